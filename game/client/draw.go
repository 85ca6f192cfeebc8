package client

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"time"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/client/art"
	"github.com/rtype/rtype/game/client/fx"
	"github.com/rtype/rtype/game/client/netflow"
	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/game/client/starfield"
	"github.com/rtype/rtype/game/client/synth"
	"github.com/rtype/rtype/game/rules"
)

// sprites are the art.Set images uploaded once: one atlas (sub-images per frame, so ebiten
// batches consecutive sprite draws into few draw calls), the terrain tiles and the parallax
// layers. Every art pixel is drawn scale×scale virtual px with nearest filtering.
type sprites struct {
	scale float32
	atlas *ebiten.Image
	// kinds are the animations of each kind's variants (kindLooks; anim): a ship's are its
	// banking frames up2, up1, level, down1, down2.
	kinds              [game.NumKinds][][]*ebiten.Image
	flame              []*ebiten.Image
	logo, glow, dot    *ebiten.Image
	white              *ebiten.Image // one white pixel (the centre of dot): rectangles
	fill, lip          [3]*ebiten.Image
	layers             [3][3]*ebiten.Image
	strips             [3][3][]image.Rectangle // the mid and near layers' bands cut to their content (art.Strips)
	glyphs             map[rune]image.Rectangle
	copyProg, tintProg *ebiten.Shader         // the fragment programs copyKage and tintKage (view.go)
	inAtlas            map[*ebiten.Image]bool // the sub-images of atlas (sub): what a batch gathers
}

func newSprites() *sprites {
	s := art.MustLoad()
	sp := &sprites{scale: float32(s.Scale), atlas: ebiten.NewImageFromImage(s.Atlas), glyphs: s.Glyphs, inAtlas: map[*ebiten.Image]bool{}}
	get := func(name string) []*ebiten.Image {
		var out []*ebiten.Image
		for _, r := range s.Frames[name] {
			out = append(out, sp.sub(r))
		}
		if len(out) == 0 { // the art test keeps every name present; never crash on a gap
			out = []*ebiten.Image{sp.sub(image.Rect(0, 0, 1, 1))}
		}
		return out
	}
	sp.flame = get("flame")
	for k := range sp.kinds { // every variant with a look has its frames (kindLook.name)
		lk, ki := lookOf(game.EntityKind(k)), game.EntityKind(k).Info()
		if lk.frames == "" {
			continue
		}
		sp.kinds[k] = make([][]*ebiten.Image, len(ki.Variants))
		for v := range ki.Variants {
			if _, ok := ki.Variant(uint8(v)); ok {
				sp.kinds[k][v] = get(lk.name(uint8(v)))
			}
		}
	}
	sp.logo, sp.glow, sp.dot = get("logo")[0], get("glow")[0], get("dot")[0]
	db := sp.dot.Bounds()
	sp.white = sp.sub(image.Rect(db.Min.X, db.Min.Y, db.Min.X+1, db.Min.Y+1))
	for t := range sp.fill {
		sp.fill[t] = ebiten.NewImageFromImage(s.Fill[t])
		sp.lip[t] = ebiten.NewImageFromImage(s.Lip[t])
		for l := range sp.layers[t] {
			img := ebiten.NewImageFromImage(s.Layers[t][l])
			sp.layers[t][l] = img
			if l != art.LayerFar {
				b := s.Layers[t][l].Bounds()
				sp.strips[t][l] = append(art.Strips(s.Layers[t][l], image.Rect(0, 0, b.Dx(), art.LayerBand), art.StripWidth),
					art.Strips(s.Layers[t][l], image.Rect(0, b.Dy()-art.LayerBand, b.Dx(), b.Dy()), art.StripWidth)...)
			}
		}
	}
	sp.copyProg = mustShader(copyKage)
	sp.tintProg = mustShader(tintKage)
	return sp
}

// anim is the animation of variant v of kind k, nil for a kind or variant without a look.
func (sp *sprites) anim(k game.EntityKind, v uint8) []*ebiten.Image {
	if int(k) < len(sp.kinds) && int(v) < len(sp.kinds[k]) {
		return sp.kinds[k][v]
	}
	return nil
}

// item is one entity to draw, copied out of the mirror world under the session lock.
type item struct {
	e      ecs.Entity
	kind   game.Kind
	x, y   float32 // draw position (View.Pos), px
	vx, vy float32 // Velocity, px/s (0 without one)
	w, h   float32 // Size, px (defaults by kind when absent)
	hp     uint16
	hasHP  bool
	player game.Player
	charge uint8 // beam charge 0..255 at the frame's tick (game.ChargeAt)
	isSelf bool
	force  game.Force
	boss   game.Boss
	// own: a local player's shot on the predicted timeline (session ownshots): a prediction
	// (e is ecs.Nil, predicted its press tick) or the server's shot that took its place.
	own       bool
	predicted uint32
	fade      float32 // 0 opaque .. 1 gone: an unconfirmed prediction fading out
}

// playerHUD is one player's line in the HUD (and on the results screen).
type playerHUD struct {
	present bool
	score   uint32
	lives   uint8
	charge  uint8
	dead    bool
	cont    bool     // out of lives with a continue offered (game.PlayerContinue)
	tick    ecs.Tick // the frame's tick (counts the continue down)
}

type drawList struct {
	items  []item
	stage  game.StageState
	hasStg bool
	scroll float32     // px the stage has scrolled: the stage singleton's drawn X
	bossHP game.Health // the boss weak point's Health (boss bar); MaxHP 0 without a boss
	self   int         // slot, -1 unknown
	// the frame's link state (netflow.Frame): watching without a ship, paused by the server,
	// no datagram for a while (silence: time since the last one)
	spectator, paused, interrupted bool
	silence                        time.Duration
	q                              *ecs.Query1[game.Kind]
	qw                             *ecs.World
	born                           map[ecs.Entity]int  // frame an explosion entity was first drawn
	hangs                          map[ecs.Entity]bool // ground enemies on the ceiling, decided when first seen (hangs)
	played                         *game.Stage         // the stage played (terrain), from the frame
	ownNew                         uint32              // press tick of the newest predicted shot sounded
	tally                          tallyView           // an arcade run's stage-clear tally (tally.go)
}

// defaultSize is the drawn size in px of an entity without a Size component (a hand-filled
// world; a session's mirror derives every Size from the Kind): game.SizeOf, else 32×32.
func defaultSize(k game.Kind) (float32, float32) {
	if sz := game.SizeOf(k); sz.W > 0 && sz.H > 0 {
		return float32(sz.W), float32(sz.H)
	}
	return 32, 32
}

// collect copies the drawable entities of the frame into d.items and the players into hud.
func (d *drawList) collect(f *netflow.Frame, hud *[rules.MaxPlayers]playerHUD) {
	d.items = d.items[:0]
	d.self = f.Slot
	d.spectator, d.paused, d.interrupted, d.silence = f.Spectator, f.Paused, f.Interrupted, f.Silence
	d.played = f.Stage
	d.tally.collect(f)
	d.hasStg = false
	d.bossHP = game.Health{}
	if d.q == nil || d.qw != f.World {
		d.q, d.qw = ecs.NewQuery1[game.Kind](f.World), f.World
	}
	for i := range hud {
		hud[i].present = false
	}
	c := f.C
	for it := d.q.Iter(); it.Next(); {
		e, k := it.Entity(), *it.Get()
		if k.Kind == game.KindStage {
			if s := c.Stage.Get(e); s != nil {
				d.stage, d.hasStg = *s, true
				if x, _, ok := f.Pos(e); ok {
					d.scroll = x
				}
			}
			continue
		}
		if k.Kind == game.KindBossWeakPoint {
			if h := c.Health.Get(e); h != nil {
				d.bossHP = *h
			}
		}
		if k.Kind == game.KindPlayer { // the HUD shows every player, drawn or not (a tally, a ship off screen)
			if p := c.Player.Get(e); p != nil && int(p.Slot) < len(hud) {
				hud[p.Slot] = playerHUD{present: true, score: p.Score, lives: p.Lives, charge: game.ChargeAt(p.ChargeFrom, f.Tick),
					dead: p.Flags&game.PlayerDead != 0, cont: p.Flags&game.PlayerContinue != 0, tick: f.Tick}
			}
		}
		x, y, ok := f.Pos(e)
		if !ok {
			continue
		}
		in := item{e: e, kind: k, x: x, y: y, own: f.OwnShot(e)}
		if v := c.Velocity.Get(e); v != nil {
			in.vx, in.vy = v.X, v.Y
		}
		if s := c.Size.Get(e); s != nil && s.W > 0 && s.H > 0 {
			in.w, in.h = float32(s.W), float32(s.H)
		} else {
			in.w, in.h = defaultSize(k)
		}
		if h := c.Health.Get(e); h != nil {
			in.hp, in.hasHP = h.HP, true
		}
		switch k.Kind {
		case game.KindPlayer:
			if p := c.Player.Get(e); p != nil {
				in.player, in.charge = *p, game.ChargeAt(p.ChargeFrom, f.Tick)
			}
			in.isSelf = e == f.Self
		case game.KindForce:
			if fc := c.Force.Get(e); fc != nil {
				in.force = *fc
			}
		case game.KindBoss:
			if b := c.Boss.Get(e); b != nil {
				in.boss = *b
			}
		}
		d.items = append(d.items, in)
	}
	for _, ps := range f.Shots {
		d.items = append(d.items, item{kind: ps.Kind, x: ps.X, y: ps.Y, vx: ps.VX, w: float32(ps.W), h: float32(ps.H),
			own: true, predicted: ps.Tick, fade: 1 - ps.Alpha})
	}
}

// playShot plays the sound of the local player's predicted shot it (on the frame of the press).
func (a *app) playShot(it *item) {
	if sound := lookOf(it.kind.Kind).appear; sound != nil {
		a.snd.Play(sound(it.kind.Variant))
	}
}

// layer orders drawing: background objects first, bullets and effects on top (kindLook.layer).
func layer(k game.EntityKind) int { return lookOf(k).layer }

const numLayers = 9

// drawWorld draws the game world of the frame (parallax, terrain, entities, particles) with w
// (the native-resolution world image) and returns the number of entities drawn.
func (a *app) drawWorld(w painter) int {
	d := &a.draw
	a.link.Frame(a.collectFn)
	a.ux.lives(a)
	if d.hasStg {
		a.scroll = d.scroll
	} else {
		a.scroll += 2
	}
	a.effects()
	t := a.stageTerrain()
	theme := 0
	if t != nil {
		theme = int(t.Theme)
	}
	scroll := a.snapScroll(w)
	a.drawBackdrop(w, theme, scroll)
	if t != nil {
		a.drawTerrain(w, t, scroll)
		a.shadeHull(w, t, scroll)
	}
	sp := a.ui.sp
	if open := a.bossOpen(); open != a.weakOpen {
		a.weakOpen, a.weakChangedAt = open, a.frameN
	}
	for l := 0; l < numLayers; l++ {
		for i := range d.items {
			it := &d.items[i]
			if layer(it.kind.Kind) == l {
				a.drawItem(w, sp, it)
			}
		}
	}
	a.drawParticles(w)
	if a.m.MenuOpen || d.interrupted {
		w.rect(0, 0, Width, Height, color.RGBA{0, 0, 0, 140}) // dims the world, not the menu
	}
	return len(d.items)
}

// snapScroll is the stage scroll rounded to whole pixels of w, so the terrain and the parallax
// layers move by whole art pixels.
func (a *app) snapScroll(w painter) float32 {
	return round32(a.scroll*w.k) / w.k
}

// drawGameUI draws what goes over the world at screen resolution: the other players' slot
// tags, the HUD and the F3 overlay (the screen's draw follows: the in-game menu, the chat).
func (a *app) drawGameUI(dst surface) {
	u := a.ui
	var placed [rules.MaxPlayers][2]float32 // x, y of the tags drawn so far
	n := 0
	for i := range a.draw.items {
		it := &a.draw.items[i]
		if it.kind.Kind != game.KindPlayer || it.isSelf || it.player.Flags&game.PlayerDead != 0 || n == len(placed) {
			continue
		}
		slot := int(it.player.Slot) % rules.MaxPlayers
		// the tag trails the ship (left of its exhaust, above it at the left edge)
		tw := float32(u.textWidth(slotTags[slot], u.small))
		tx, ty := tagSpot(it.x, it.y, it.w, it.h, tw)
		tx, _ = placeTag(placed[:n], tx, ty) // ships flying together: tags side by side, not on top
		tx = max(tx, tagMargin+tw)           // never cut at the edge
		placed[n] = [2]float32{tx, ty}
		n++
		u.text(dst, slotTags[slot], u.small, float64(tx), float64(ty), alignEnd, art.SlotColors[slot])
	}
	if a.set.ColourBlind {
		a.drawCrystalNames(dst)
	}
	a.drawTally(dst) // first: the HUD holds back the points it has not added yet
	a.drawHUD(dst)
	if a.showStats {
		a.drawStats(dst)
	}
	a.drawNotices(dst)
}

// shipAlpha is a ship's opacity at frame: an invulnerable (respawned) ship blinks at 7.5 Hz, or
// with reduced flashing (calm) is steadily faded.
func shipAlpha(invulnerable, calm bool, frame int) float32 {
	switch {
	case !invulnerable:
		return 1
	case calm:
		return 0.55
	case (frame/4)%2 == 0:
		return 0.3
	}
	return 1
}

// reducedFlashScale scales hit flashes under the reduced-flashing setting.
const reducedFlashScale = 0.3

// crystalNames label the laser crystals by colour under the colour-blind palette (the words the
// How to play screen uses), indexed by game.PowerRed, PowerBlue, PowerYellow.
var crystalNames = [...]string{game.PowerRed: "red", game.PowerBlue: "blue", game.PowerYellow: "yellow"}

// drawCrystalNames writes each laser crystal's colour under it (the colour-blind palette): the
// other capsules carry their letter already.
func (a *app) drawCrystalNames(dst surface) {
	u := a.ui
	for i := range a.draw.items {
		it := &a.draw.items[i]
		if it.kind.Kind != game.KindPowerUp || int(it.kind.Variant) >= len(crystalNames) {
			continue
		}
		u.text(dst, crystalNames[it.kind.Variant], u.small, float64(it.x), float64(it.y+it.h/2+6), alignCenter, white)
	}
}

// slotTags are the players' labels by slot.
var slotTags = [rules.MaxPlayers]string{"1P", "2P", "3P", "4P"}

// stageTerrain is the terrain of the stage being played (nil: open space): the stage the
// frame carries (resolved from the lobby before the game), or the test world's.
func (a *app) stageTerrain() *game.Terrain {
	if a.cfg.terrain != nil {
		return a.cfg.terrain
	}
	if st := a.draw.played; st != nil && !st.Terrain.Empty() {
		return &st.Terrain
	}
	return nil
}

// effects runs the tracker over the frame: hit flashes, explosion particles and sounds.
func (a *app) effects() {
	d := &a.draw
	if d.hangs == nil {
		d.hangs = map[ecs.Entity]bool{}
	}
	if d.born == nil {
		d.born = map[ecs.Entity]int{}
	}
	t := a.tracker
	t.Begin()
	var selfX, selfY float32
	for i := range d.items {
		if d.items[i].isSelf {
			selfX, selfY = d.items[i].x, d.items[i].y
		}
	}
	for i := range d.items {
		it := &d.items[i]
		if it.predicted != 0 {
			// a prediction: sounded once, on its first frame; not tracked (no entity)
			if int32(it.predicted-d.ownNew) > 0 || d.ownNew == 0 {
				d.ownNew = it.predicted
				a.playShot(it)
			}
			continue
		}
		isNew, damaged := t.See(it.e, fx.Tracked{Kind: it.kind, X: it.x, Y: it.y, W: uint16(it.w), H: uint16(it.h), HP: it.hp})
		if damaged {
			a.snd.Play(synth.Hit)
			a.parts.Burst(it.x-it.w/3, it.y, 6, 6, 10, 3, rgb(255, 240, 180))
		}
		if isNew && it.kind.Kind == game.KindEnemy && isGround(it.kind.Variant) {
			d.hangs[it.e] = hangs(a.stageTerrain(), d.scroll+it.x, it.y)
		}
		if isNew && !it.own { // an own shot sounded with its prediction
			if vi, ok := it.kind.Kind.Info().Variant(it.kind.Variant); ok && vi.Life > 0 {
				d.born[it.e] = a.frameN // its animation runs over its Life from now
			}
			lk := lookOf(it.kind.Kind)
			if dx, dy := it.x-selfX, it.y-selfY; lk.appear != nil && (!lk.near || dx*dx+dy*dy < nearSound*nearSound) {
				a.snd.Play(lk.appear(it.kind.Variant))
			}
		}
	}
	t.End(func(e ecs.Entity, last fx.Tracked) {
		delete(d.born, e)
		delete(d.hangs, e)
		if !fx.OnScreen(last.X, last.Y, 0) {
			return
		}
		lk := lookOf(last.Kind.Kind)
		if lk.edge == 0 || last.X > lk.edge && last.X < Width-lk.edge {
			for i := range lk.debris {
				if col, ok := lk.debris[i].colour(last.Kind.Variant); ok {
					b := &lk.debris[i]
					a.parts.Burst(last.X, last.Y, b.n, b.speed, b.life, b.size, col)
				}
			}
		}
		if lk.vanish != nil {
			a.snd.Play(lk.vanish(last.Kind.Variant))
		}
	})
	a.ownSounds() // charge hum, death, respawn, power-up, Force launch/attach
}

// frameAt picks frame clock/period of an animation; seed staggers entities of the same kind.
func frameAt(fr []*ebiten.Image, clock, period int, seed uint32) *ebiten.Image {
	return fr[art.Anim(len(fr), clock+int(seed%97)*period/3, period)]
}

// bankFrame is the ship frame for a vertical speed in px/s: 0 climbing fast .. 4 diving fast.
func bankFrame(vy float32) int {
	switch {
	case vy < -300:
		return 0
	case vy < -30:
		return 1
	case vy > 300:
		return 4
	case vy > 30:
		return 3
	}
	return 2
}

// isGround reports whether an enemy variant stands on the terrain (turret, walker, hopper:
// game.VariantInfo.Ground).
func isGround(v uint8) bool {
	vi, _ := game.KindEnemy.Info().Variant(v)
	return vi.Ground
}

// hangs reports whether a ground enemy first seen at (wx world px, y) hangs from the ceiling:
// it is nearer the ceiling's edge than the floor's (docs/PROTOCOL.md §4.3: the server centres it
// on the nearer surface), kept for its life, so a hopper mid-jump and a ceiling that dips below
// mid-screen (stage 2) stay right; without terrain, the upper half of the playfield.
func hangs(t *game.Terrain, wx, y float32) bool {
	if t == nil || t.Empty() {
		return y < Height/2
	}
	return y-t.CeilY(wx) < t.FloorY(wx)-y
}

// groundFlip is -1 for a ground enemy hanging from the ceiling (hangs, decided when first seen):
// it is drawn upside down.
func (a *app) groundFlip(e ecs.Entity, v uint8, y float32) float32 {
	if !isGround(v) {
		return 1
	}
	h, ok := a.draw.hangs[e]
	if !ok {
		h = y < Height/2
	}
	if h {
		return -1
	}
	return 1
}

// turretFrame aims a turret's cannon (frames 0..4: left, up-left, up, up-right, right) at the
// nearest ship.
func (a *app) turretFrame(x, y, flip float32) int {
	best, bx, by := float32(math.MaxFloat32), x-500, y
	for i := range a.draw.items {
		it := &a.draw.items[i]
		if it.kind.Kind != game.KindPlayer || it.player.Flags&game.PlayerDead != 0 {
			continue
		}
		if d := (it.x-x)*(it.x-x) + (it.y-y)*(it.y-y); d < best {
			best, bx, by = d, it.x, it.y
		}
	}
	ang := math.Atan2(float64(-(by-y)*flip), float64(bx-x)) // 0 right, pi/2 up (away from the ground)
	if ang < 0 {
		if ang < -math.Pi/2 {
			ang = math.Pi
		} else {
			ang = 0
		}
	}
	return 4 - int(math.Round(ang/(math.Pi/4)))
}

func (a *app) drawItem(p painter, sp *sprites, it *item) {
	flash := a.tracker.Flash(it.e)
	calm := a.set.ReducedFlash
	if calm {
		flash *= reducedFlashScale
	}
	fr := sp.anim(it.kind.Kind, it.kind.Variant)
	if fr == nil { // a kind or variant without a look (kindLooks)
		p.rect(it.x-it.w/2, it.y-it.h/2, it.w, it.h, color.RGBA{200, 200, 200, 255})
		return
	}
	s := sp.scale
	clock := a.frameN
	seed := it.e.Index()
	switch it.kind.Kind {
	case game.KindPlayer:
		if it.player.Flags&game.PlayerDead != 0 {
			return
		}
		img := fr[min(bankFrame(it.vy), len(fr)-1)] // the variant is the slot (its colour)
		alpha := shipAlpha(it.player.Flags&game.PlayerInvulnerable != 0, calm, a.frameN)
		if alpha < 1 {
			flash = 0
		}
		fl := frameAt(sp.flame, clock, 3, seed)
		fw := float32(fl.Bounds().Dx()) * s
		p.frame(fl, it.x-float32(img.Bounds().Dx())*s/2-fw/2+s, it.y+s*0.5, s, s, alpha, 0)
		p.frame(img, it.x, it.y, s, s, alpha, flash)
		if it.charge > 20 { // beam charge glow at the nose
			k := float32(it.charge) / 255
			r := 16 + 50*k
			pulse := 0.8 + 0.2*float32(math.Sin(float64(a.frameN)/2))
			if calm {
				pulse = 1
			}
			p.tinted(sp.glow, it.x+it.w*0.62, it.y, r*pulse, r*pulse, color.RGBA{120, 190, 255, 255}, 0.5+0.5*k, true)
		}
	case game.KindForce:
		p.tinted(sp.glow, it.x, it.y, it.w*1.6, it.w*1.6, color.RGBA{255, 140, 40, 255}, 0.35+0.1*float32(math.Sin(float64(a.frameN)/5)), true)
		p.frame(frameAt(fr, clock, 5, 0), it.x, it.y, s, s, 1, flash)
	case game.KindBit:
		p.frame(frameAt(fr, clock, 5, seed), it.x, it.y, s, s, 1, flash)
	case game.KindPlayerBullet:
		if colour, _, ok := game.LaserOf(it.kind.Variant); ok && colour == game.LaserBlue && (it.vx != 0 || it.vy != 0) {
			p.frameRot(frameAt(fr, clock, 3, seed), it.x, it.y, s, math.Atan2(float64(it.vy), float64(it.vx)))
			return
		}
		sx := s
		if it.vx < 0 {
			sx = -s
		}
		p.frame(frameAt(fr, clock, 3, seed), it.x, it.y, sx, s, 1-it.fade, 0)
	case game.KindBeam:
		p.frame(frameAt(fr, clock, 2, 0), it.x, it.y, s, s, 1-it.fade, 0)
	case game.KindEnemyBullet:
		if a.set.ColourBlind { // a white ring: visible on any scenery without telling pink from red
			p.tinted(sp.glow, it.x, it.y, it.w*2.4, it.h*2.4, color.RGBA{255, 255, 255, 255}, 0.85, true)
		}
		p.frame(frameAt(fr, clock, 4, seed), it.x, it.y, s, s, 1, 0)
	case game.KindEnemy:
		flip := a.mountFlip(it.e, it.kind.Variant, it.x, it.y, it.h)
		var img *ebiten.Image
		switch it.kind.Variant {
		case game.EnemyTurret:
			img = fr[min(a.turretFrame(it.x, it.y, flip), len(fr)-1)]
		case game.EnemyHopper: // crouched on the ground, stretched when it leaves, tucked in the air
			switch {
			case it.vy == 0:
				img = fr[0]
			case math.Abs(float64(it.vy)) > 150:
				img = fr[min(2, len(fr)-1)]
			default:
				img = fr[min(1, len(fr)-1)]
			}
		case game.EnemySine:
			img = frameAt(fr, clock, 3, seed) // spins
		case game.EnemyWalker:
			img = frameAt(fr, clock, 8, seed) // steps
		default:
			img = frameAt(fr, clock, 7, seed)
		}
		p.frame(img, it.x, it.y, s, s*flip, 1, flash)
	case game.KindBoss:
		p.frame(frameAt(fr, clock, 40, 0), it.x, it.y, s, s, 1, flash*0.5)
	case game.KindBossWeakPoint:
		f := 0
		if open := it.kind.Variant == 1 || a.bossOpen(); open {
			f = 2 + (a.frameN/6)%2
			if a.frameN-a.weakChangedAt < 8 {
				f = 1 // opening
			}
			glow := 0.35 + 0.2*float32(math.Sin(float64(a.frameN)/4))
			if calm { // open and steady: no 5 Hz frame flicker, no pulse
				f, glow = 2, 0.45
			}
			p.tinted(sp.glow, it.x, it.y, it.w*2, it.w*2, color.RGBA{255, 60, 40, 255}, glow, true)
		} else if a.frameN-a.weakChangedAt < 8 {
			f = 1 // closing
		}
		p.frame(fr[min(f, len(fr)-1)], it.x, it.y, s, s, 1, flash)
	case game.KindBossPart:
		sx := s
		if it.x > Width-float32(fr[0].Bounds().Dx())*s && it.kind.Variant >= game.PartTentacle {
			sx = s
		}
		p.frame(frameAt(fr, clock, 10, seed), it.x, it.y, sx, s, 1, flash)
	case game.KindPowerUp:
		bob := float32(math.Sin(float64(a.frameN)/8)) * 4
		p.frame(frameAt(fr, clock, 8, seed), it.x, it.y+bob, s, s, 1, 0)
	case game.KindExplosion:
		vi, _ := game.KindExplosion.Info().Variant(it.kind.Variant)
		life := int(vi.Life) // the server's explosion lifetime (ticks)
		age := a.frameN - a.draw.born[it.e]
		f := age * len(fr) / life
		if f >= len(fr) {
			return
		}
		p.frame(fr[f], it.x, it.y, s, s, 1, 0)
	}
}

func (a *app) bossOpen() bool {
	for i := range a.draw.items {
		if a.draw.items[i].kind.Kind == game.KindBoss {
			return a.draw.items[i].boss.WeakOpen == 1
		}
	}
	return false
}

// layerSpeed is how fast each parallax layer scrolls, as a fraction of the stage scroll.
var layerSpeed = [3]float32{0.06, 0.22, 0.45}

// layerDim darkens each layer (1: as drawn): the mid layer sits deeper in the haze.
var layerDim = [3]float32{1, 0.55, 0.8}

// drawBackdrop draws the parallax layers of a theme for a stage scroll (virtual px) with p:
// the opaque far layer (it covers the whole image: no clear needed), the twinkling stars, then
// only the content bands of the mid and near layers. Layer pixels are whole pixels of p.
func (a *app) drawBackdrop(p painter, theme int, scroll float32) {
	sp := a.ui.sp
	ps := p.pix(sp.scale) // px of p per layer pixel (1 in the world image)
	theme = min(max(theme, 0), len(sp.layers)-1)
	lw := float32(sp.layers[theme][0].Bounds().Dx()) * ps
	dstW := Width * p.k
	if !(lw >= 1) { // a degenerate scale (or NaN): the tiling loop below would not advance
		return
	}
	m := &a.meshes[0]
	var cs ebiten.ColorScale
	for l := 0; l < 3; l++ {
		img := sp.layers[theme][l]
		lh := img.Bounds().Dy()
		off := float32(math.Mod(float64(round32(scroll*layerSpeed[l]*p.k)), float64(lw)))
		cs.Reset()
		cs.Scale(layerDim[l], layerDim[l], layerDim[l], 1) // distance haze: farther layers darker
		for x0 := -off; x0 < dstW; x0 += lw {
			if l == art.LayerFar {
				b := img.Bounds()
				m.rect(x0+p.ox, p.oy, x0+p.ox+float32(b.Dx())*ps, p.oy+float32(b.Dy())*ps, b, &cs)
				continue
			}
			for _, r := range sp.strips[theme][l] { // the bands' content only
				sx0, sx1 := x0+float32(r.Min.X)*ps, x0+float32(r.Max.X)*ps
				if sx1 <= 0 || sx0 >= dstW {
					continue // off the view: not even a triangle to set up
				}
				y := float32(r.Min.Y) * ps // the top band at the top of p, the bottom one at its bottom
				if r.Min.Y >= art.LayerBand {
					y = Height*p.k - float32(lh-r.Min.Y)*ps
				}
				m.rect(sx0+p.ox, y+p.oy, sx1+p.ox, y+p.oy+float32(r.Dy())*ps, r, &cs)
			}
		}
		if l == art.LayerFar {
			m.drawShader(p.dst, img, sp.copyProg, ebiten.BlendCopy) // opaque: no blending
			if theme == 0 {
				a.drawStars(p, scroll)
			}
			continue
		}
		m.drawShader(p.dst, img, sp.tintProg, ebiten.Blend{})
	}
}

// drawStars draws the twinkling starfield (a tinted atlas dot per star, in one draw call).
func (a *app) drawStars(p painter, scroll float32) {
	sp := a.ui.sp
	f := a.stars
	m := &a.meshes[0]
	for _, st := range f.Stars {
		l := f.Layers[st.Layer]
		x := f.ScreenX(st, scroll)
		br := l.Brightness * starfield.Twinkle(st, a.clock())
		sz := max(2, l.Size*1.5)
		p.tintedRect(m, sp.dot.Bounds(), x, st.Y, sz, sz, color.RGBA{200, 220, 255, 255}, br)
	}
	m.drawShader(p.dst, sp.atlas, sp.tintProg, ebiten.Blend{})
}

// quad appends a quadrilateral with corners (x0,y0a) (x1,y1a) (x1,y1b) (x0,y0b) in virtual px,
// mapped through t, and the matching texture coordinates (texture px).
func (m *mesh) quad(t xf, x0, y0a, y0b, x1, y1a, y1b, u0, v0a, v0b, u1, v1a, v1b float32) {
	n := uint16(len(m.v))
	vx := func(x, y, u, v float32) ebiten.Vertex {
		return ebiten.Vertex{DstX: x*t.k + t.ox, DstY: y*t.k + t.oy, SrcX: u, SrcY: v, ColorR: 1, ColorG: 1, ColorB: 1, ColorA: 1}
	}
	m.v = append(m.v, vx(x0, y0a, u0, v0a), vx(x1, y1a, u1, v1a), vx(x1, y1b, u1, v1b), vx(x0, y0b, u0, v0b))
	m.i = append(m.i, n, n+1, n+2, n, n+2, n+3)
}

// drawTerrain draws the ceiling, the floor and the blocks of t at the stage scroll with p:
// textured triangles from the theme's repeating fill tile (texture px = world px / scale, so the
// texture scrolls with the world), with the lip strip along each surface facing the corridor.
// World x = screen x + scroll. Two DrawTriangles calls in all.
func (a *app) drawTerrain(p painter, t *game.Terrain, scroll float32) {
	if t.Empty() {
		return
	}
	sp := a.ui.sp
	th := min(int(t.Theme), len(sp.fill)-1)
	s := sp.scale
	lh := float32(sp.lip[th].Bounds().Dy())
	lipH := lh * s
	fill, lip := &a.terrFill, &a.terrLip
	fill.v, fill.i, lip.v, lip.i = fill.v[:0], fill.i[:0], lip.v[:0], lip.i[:0]
	x := p.xf
	if len(t.Ceil) >= 2 && t.Step > 0 {
		i0 := max(0, int((scroll-t.Start)/t.Step))
		i1 := min(len(t.Ceil)-1, int((scroll+Width-t.Start)/t.Step)+1)
		for i := i0; i < i1; i++ {
			wx0, wx1 := t.Start+float32(i)*t.Step, t.Start+float32(i+1)*t.Step
			x0, x1 := wx0-scroll, wx1-scroll
			u0, u1 := wx0/s, wx1/s
			if c0, c1 := t.Ceil[i], t.Ceil[i+1]; c0 > 0 || c1 > 0 {
				fill.quad(x, x0, 0, c0, x1, 0, c1, u0, 0, c0/s, u1, 0, c1/s)
				if c0 > 0 && c1 > 0 { // flipped: row 0 at the surface
					lip.quad(x, x0, c0-lipH, c0, x1, c1-lipH, c1, u0, lh, 0, u1, lh, 0)
				}
			}
			if i < len(t.Floor)-1 {
				if f0, f1 := t.Floor[i], t.Floor[i+1]; f0 > 0 || f1 > 0 {
					y0, y1 := Height-f0, Height-f1
					fill.quad(x, x0, y0, Height, x1, y1, Height, u0, y0/s, Height/s, u1, y1/s, Height/s)
					if f0 > 0 && f1 > 0 {
						lip.quad(x, x0, y0, y0+lipH, x1, y1, y1+lipH, u0, 0, lh, u1, 0, lh)
					}
				}
			}
		}
	}
	for _, b := range t.Blocks {
		x0 := b.X - scroll
		if x0 > Width || x0+b.W < 0 {
			continue
		}
		fill.quad(x, x0, b.Y, b.Y+b.H, x0+b.W, b.Y, b.Y+b.H, b.X/s, b.Y/s, (b.Y+b.H)/s, (b.X+b.W)/s, b.Y/s, (b.Y+b.H)/s)
		lh2 := min(lipH, b.H)
		lip.quad(x, x0, b.Y, b.Y+lh2, x0+b.W, b.Y, b.Y+lh2, b.X/s, 0, lh2/s, (b.X+b.W)/s, 0, lh2/s)
		if th == int(game.ThemeWarship) && b.H > 2*lipH { // a hull: its keel edge too (flipped)
			yb := b.Y + b.H
			lip.quad(x, x0, yb-lipH, yb, x0+b.W, yb-lipH, yb, b.X/s, lh, 0, (b.X+b.W)/s, lh, 0)
		}
	}
	op := &a.terrOp
	op.Address = ebiten.AddressRepeat
	op.Filter = ebiten.FilterNearest
	if len(fill.i) > 0 {
		p.dst.DrawTriangles(fill.v, fill.i, sp.fill[th], op)
	}
	if len(lip.i) > 0 {
		p.dst.DrawTriangles(lip.v, lip.i, sp.lip[th], op)
	}
}

// drawParticles draws the debris: a tinted atlas dot each, in one draw call.
func (a *app) drawParticles(p painter) {
	sp := a.ui.sp
	m := &a.meshes[0]
	for i := range a.parts.P {
		pt := &a.parts.P[i]
		al := pt.Alpha()
		sz := max(3, pt.Size*(0.4+al))
		p.tintedRect(m, sp.dot.Bounds(), pt.X, pt.Y, sz, sz, color.RGBA{pt.Col.R, pt.Col.G, pt.Col.B, 255}, al)
	}
	m.drawShader(p.dst, sp.atlas, sp.tintProg, ebiten.Blend{})
}

// hudText caches the HUD's changing strings, rebuilt only when their value changes (no
// allocation in a steady frame).
type hudText struct {
	score    [rules.MaxPlayers]string
	scoreVal [rules.MaxPlayers]uint32
	rtt      string
	rttVal   int
}

func (h *hudText) scoreOf(slot int, v uint32) string {
	if h.score[slot] == "" || h.scoreVal[slot] != v {
		h.score[slot], h.scoreVal[slot] = fmt.Sprintf("%08d", v), v
	}
	return h.score[slot]
}

func (h *hudText) rttOf(ms float64) string {
	v := int(math.Round(ms))
	if h.rtt == "" || h.rttVal != v {
		h.rtt, h.rttVal = fmt.Sprintf("RTT %d ms", v), v
	}
	return h.rtt
}

var (
	hudFree     = [rules.MaxPlayers]string{"1P  ---", "2P  ---", "3P  ---", "4P  ---"}
	livesText   = [...]string{"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x9+"}
	hudBarCol   = color.RGBA{0, 0, 0, 215} // nearly opaque: ships stay above it (game.ShipMaxY); what is below shows only faintly
	hudPlateCol = color.RGBA{0, 0, 0, 150} // behind the top HUD texts
	hudFreeCol  = color.RGBA{90, 90, 110, 255}
	beamCol     = color.RGBA{150, 190, 255, 255}
	beamEdgeCol = color.RGBA{120, 160, 255, 255}
	beamFillCol = color.RGBA{80, 160, 255, 255}
	white       = color.RGBA{255, 255, 255, 255}
	black       = color.RGBA{0, 0, 0, 255}
	rttCol      = color.RGBA{160, 200, 160, 255}
	outCol      = color.RGBA{200, 90, 90, 255}
)

// drawHUD draws the bottom bar (players' scores and lives, the beam charge meter), the boss
// health bar and the RTT.
func (a *app) drawHUD(dst surface) {
	u := a.ui
	p := u.on(dst)
	p.rect(0, art.HUDLineY, Width, game.HUDHeight, hudBarCol)
	p.rect(0, art.HUDLineY, Width, 2, art.HUDLineColor) // screenshot marker
	xs := [rules.MaxPlayers]float32{20, 376, 1216, 1572}
	for slot, sc := range a.scores {
		x := xs[slot]
		col := art.SlotColors[slot]
		if !sc.present {
			u.text(dst, hudFree[slot], u.small, float64(x), Height-42, alignStart, hudFreeCol)
			continue
		}
		if sc.lives == 0 { // out of lives: greyed, marked OUT (netflow.Frame.OutOfLives)
			col = hudFreeCol
		}
		// tag, score, then a ship and the lives (or OUT), placed by their measured widths: the
		// font's pixels and the ship's are whole screen pixels, so at a small window they are
		// wider in virtual px than at 1080p
		sx := x + float32(u.textWidth(slotTags[slot], u.small)) + 12
		score := a.hud.scoreOf(slot, sc.score-min(sc.score, a.draw.tally.pending[slot])) // the tally counts it up
		ex := sx + float32(u.textWidth(score, u.small))                                  // the score's end
		icon := a.ui.sp.anim(game.KindPlayer, uint8(slot))[2]
		grow := float32(icon.Bounds().Dx()) * (p.pix(1)/p.k - 1) // how much wider than at 1080p
		ix, lives := ex+34+grow/2, livesText[min(int(sc.lives), len(livesText)-1)]
		lx := ix + 22 + grow/2 // the lives' count, after the ship
		end := lx + float32(u.textWidth(lives, u.small))
		if sc.lives == 0 {
			ix, lives = ex+20, "OUT"
			if sc.cont {
				lives = "CONT?"
			}
			end = ix + float32(u.textWidth(lives, u.small))
		}
		if slot == a.draw.self {
			p.rect(x-10, Height-56, max(330, end-x+20), 48, color.RGBA{col.R / 4, col.G / 4, col.B / 4, 200})
		}
		u.text(dst, slotTags[slot], u.small, float64(x), Height-42, alignStart, col)
		u.text(dst, score, u.small, float64(sx), Height-42, alignStart, white)
		if sc.lives == 0 {
			u.text(dst, lives, u.small, float64(ix), Height-42, alignStart, outCol)
		} else {
			p.frame(icon, ix, Height-32, 1, 1, 1, 0)
			u.text(dst, lives, u.small, float64(lx), Height-42, alignStart, white)
		}
	}
	if a.draw.spectator {
		a.drawHUDTop(dst)
		return // no ship: no beam meter
	}
	// beam meter (own charge)
	mx, my, mw, mh := float32(830), float32(Height-46), float32(340), float32(26)
	u.text(dst, "BEAM", u.small, float64(mx-14), float64(my+2), alignEnd, beamCol)
	p.strokeRect(mx, my, mw, mh, 2, beamEdgeCol)
	charge := float32(0)
	if s := a.draw.self; s >= 0 && s < rules.MaxPlayers {
		charge = float32(a.scores[s].charge) / 255
	}
	if charge > 0 {
		col := beamFillCol
		if charge >= 1 {
			col = white
		}
		p.rect(mx+3, my+3, (mw-6)*charge, mh-6, col)
	}
	a.drawHUDTop(dst)
}

// drawHUDTop draws the boss health bar and the RTT.
func (a *app) drawHUDTop(dst surface) {
	u := a.ui
	p := u.on(dst)
	if h := a.draw.bossHP; h.MaxHP > 0 {
		k := float32(h.HP) / float32(h.MaxHP)
		bx, bw := float32(Width/2-400), float32(800)
		p.rect(bx-110, 16, bw+118, 38, hudPlateCol)
		u.text(dst, "BOSS", u.small, float64(bx-14), 25, alignEnd, color.RGBA{255, 120, 120, 255})
		p.rect(bx, 24, bw, 22, color.RGBA{40, 0, 0, 200})
		p.rect(bx, 24, bw*k, 22, color.RGBA{230, 40, 60, 255})
		p.strokeRect(bx, 24, bw, 22, 2, color.RGBA{255, 160, 160, 255})
	}
	if a.m.Scene == scene.Watching {
		return // no network: the replay overlay takes the top of the screen
	}
	st := a.link.Stats()
	rtt := a.hud.rttOf(st.RTTMillis)
	p.rect(Width-34-float32(u.textWidth(rtt, u.small)), 8, float32(u.textWidth(rtt, u.small))+28, 38, hudPlateCol)
	u.text(dst, rtt, u.small, Width-20, 16, alignEnd, rttCol)
}

// drawStats is the F3 network overlay (session.Stats).
func (a *app) drawStats(dst surface) {
	st := a.link.Stats()
	lines := []string{
		"NETWORK (F3)",
		fmt.Sprintf("RTT          %6.1f ms", st.RTTMillis),
		fmt.Sprintf("jitter       %6.1f ms", st.JitterMillis),
		fmt.Sprintf("loss         %6.1f %%", st.LossPercent),
		fmt.Sprintf("snapshots/s  %6.1f", st.SnapshotsPerSec),
		fmt.Sprintf("in           %6.1f KB/s", st.BytesInPerSec/1024),
		fmt.Sprintf("out          %6.1f KB/s", st.BytesOutPerSec/1024),
		fmt.Sprintf("interp delay %6.1f ms", st.InterpDelayMs),
		fmt.Sprintf("corrections  %6d (%.1f px)", st.Corrections, st.CorrectionPixels),
		fmt.Sprintf("server tick  %6d", st.ServerTick),
		fmt.Sprintf("dropped      %6d", st.Dropped),
		fmt.Sprintf("entities     %6d", len(a.draw.items)),
		fmt.Sprintf("FPS %.0f  TPS %.0f", ebiten.ActualFPS(), ebiten.ActualTPS()),
	}
	// bottom right, above the HUD: clear of where the ships start (left), the boss bar, the
	// RTT and the spectator's tag (top), the pause menu (centre) and the chat (bottom left)
	const lineStep = 32
	w := 0.0
	for _, l := range lines {
		w = max(w, a.ui.textWidth(l, a.ui.mono))
	}
	h := float32(20 + len(lines)*lineStep)
	x0, y0 := float32(Width-16-28-w), art.HUDLineY-12-h
	a.ui.on(dst).rect(x0, y0, float32(w)+28, h, color.RGBA{0, 0, 0, 190})
	for i, l := range lines {
		a.ui.text(dst, l, a.ui.mono, float64(x0+14), float64(y0+12+float32(i*lineStep)), alignStart, color.RGBA{180, 255, 180, 255})
	}
}

func rgb(r, g, b uint8) fx.Color { return fx.Color{R: r, G: g, B: b, A: 255} }
