package client

import (
	"fmt"
	"image/color"
	"math"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/vector"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/client/art"
	"github.com/rtype/rtype/game/client/fx"
	"github.com/rtype/rtype/game/client/netflow"
	"github.com/rtype/rtype/game/client/starfield"
	"github.com/rtype/rtype/game/client/synth"
)

// sprites are the art.Sheet images uploaded once to the GPU.
type sprites struct {
	ship        [4]*ebiten.Image
	force       [3]*ebiten.Image
	shot        [4]*ebiten.Image
	enemyBullet [2]*ebiten.Image
	enemy       [5]*ebiten.Image
	boss        [2]*ebiten.Image
	weak        [2]*ebiten.Image
	powerUp     [2]*ebiten.Image
	beam, glow  *ebiten.Image
	ring        *ebiten.Image
	background  *ebiten.Image // 480x270 backdrop, scaled 4x
}

func newSprites() *sprites {
	s := art.NewSheet()
	up := ebiten.NewImageFromImage
	sp := &sprites{beam: up(s.Beam), glow: up(s.Glow), ring: up(s.Ring), background: up(art.Background(480, 270))}
	for i := range s.Ship {
		sp.ship[i] = up(s.Ship[i])
	}
	for i := range s.Force {
		sp.force[i] = up(s.Force[i])
	}
	for i := range s.Shot {
		sp.shot[i] = up(s.Shot[i])
	}
	for i := range s.EnemyBullet {
		sp.enemyBullet[i] = up(s.EnemyBullet[i])
	}
	for i := range s.Enemy {
		sp.enemy[i] = up(s.Enemy[i])
	}
	for i := range s.Boss {
		sp.boss[i] = up(s.Boss[i])
		sp.weak[i] = up(s.Weak[i])
		sp.powerUp[i] = up(s.PowerUp[i])
	}
	return sp
}

// item is one entity to draw, copied out of the mirror world under the session lock.
type item struct {
	e      ecs.Entity
	kind   game.Kind
	x, y   float32 // draw position (View.Pos), px
	w, h   float32 // Size, px (defaults by kind when absent)
	hp     uint16
	hasHP  bool
	player game.Player
	charge uint8 // beam charge 0..255 at the frame's tick (game.ChargeAt)
	isSelf bool
	force  game.Force
	boss   game.Boss
}

// playerHUD is one player's line in the HUD (and on the results screen).
type playerHUD struct {
	present bool
	score   uint32
	lives   uint8
	charge  uint8
	dead    bool
}

type drawList struct {
	items  []item
	stage  game.StageState
	hasStg bool
	scroll float32     // px the stage has scrolled: the stage singleton's drawn X
	bossHP game.Health // the boss weak point's Health (boss bar); MaxHP 0 without a boss
	self   int         // slot, -1 unknown
	q      *ecs.Query1[game.Kind]
	qw     *ecs.World
	born   map[ecs.Entity]int // frame an explosion entity was first drawn
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
func (d *drawList) collect(f *netflow.Frame, hud *[game.MaxPlayers]playerHUD) {
	d.items = d.items[:0]
	d.self = f.Slot
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
		x, y, ok := f.Pos(e)
		if !ok {
			continue
		}
		in := item{e: e, kind: k, x: x, y: y}
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
				if int(p.Slot) < len(hud) {
					hud[p.Slot] = playerHUD{present: true, score: p.Score, lives: p.Lives, charge: in.charge, dead: p.Flags&game.PlayerDead != 0}
				}
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
}

// layer orders drawing: background objects first, bullets and effects on top.
func layer(k game.EntityKind) int {
	switch k {
	case game.KindBoss:
		return 0
	case game.KindBossWeakPoint:
		return 1
	case game.KindEnemy:
		return 2
	case game.KindPowerUp:
		return 3
	case game.KindPlayerBullet, game.KindBeam:
		return 4
	case game.KindPlayer:
		return 5
	case game.KindForce:
		return 6
	case game.KindEnemyBullet:
		return 7
	case game.KindExplosion:
		return 8
	}
	return 3
}

const numLayers = 9

// drawGame draws the in-game frame and returns the number of entities drawn.
func (a *app) drawGame(dst *ebiten.Image) int {
	d := &a.draw
	a.link.Frame(func(f *netflow.Frame) { d.collect(f, &a.scores) })
	if d.hasStg {
		a.scroll = d.scroll
	} else {
		a.scroll += 2
	}
	a.effects()
	a.drawStars(dst, a.scroll)
	sp := a.ui.sp
	for l := 0; l < numLayers; l++ {
		for i := range d.items {
			it := &d.items[i]
			if layer(it.kind.Kind) == l {
				a.drawItem(dst, sp, it)
			}
		}
	}
	a.drawParticles(dst)
	a.drawHUD(dst)
	if a.showStats {
		a.drawStats(dst)
	}
	if a.paused {
		a.drawPause(dst)
	}
	return len(d.items)
}

// effects runs the tracker over the frame: hit flashes, explosion particles and sounds.
func (a *app) effects() {
	d := &a.draw
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
		isNew, damaged := t.See(it.e, fx.Tracked{Kind: it.kind, X: it.x, Y: it.y, W: uint16(it.w), H: uint16(it.h), HP: it.hp})
		if damaged {
			a.snd.Play(synth.Hit)
			a.parts.Burst(it.x-it.w/3, it.y, 6, 6, 10, 3, rgb(255, 240, 180))
		}
		if isNew {
			switch it.kind.Kind {
			case game.KindPlayerBullet:
				if dx, dy := it.x-selfX, it.y-selfY; dx*dx+dy*dy < 200*200 {
					a.snd.Play(synth.Shot)
				}
			case game.KindBeam:
				a.snd.Play(synth.BeamEffect(int(it.kind.Variant)))
			case game.KindExplosion:
				d.born[it.e] = a.frameN
				a.snd.Play(explosionEffect(it.kind.Variant))
			}
		}
	}
	t.End(func(e ecs.Entity, last fx.Tracked) {
		delete(d.born, e)
		if !fx.OnScreen(last.X, last.Y, 0) {
			return
		}
		switch last.Kind.Kind {
		case game.KindEnemy, game.KindBossWeakPoint:
			col := art.EnemyColors[int(last.Kind.Variant)%len(art.EnemyColors)]
			a.parts.Burst(last.X, last.Y, 22, 9, 28, 5, rgb(255, 200, 90))
			a.parts.Burst(last.X, last.Y, 10, 6, 36, 6, rgb(col.R, col.G, col.B))
			if last.Kind.Kind == game.KindBossWeakPoint {
				a.snd.Play(synth.ExplosionMedium)
			} else {
				a.snd.Play(synth.ExplosionSmall)
			}
		case game.KindBoss:
			a.parts.Burst(last.X, last.Y, 200, 18, 70, 9, rgb(255, 180, 80))
			a.snd.Play(synth.ExplosionLarge)
		case game.KindPlayer:
			col := art.SlotColors[int(last.Kind.Variant)%4]
			a.parts.Burst(last.X, last.Y, 60, 12, 50, 7, rgb(col.R, col.G, col.B))
			a.parts.Burst(last.X, last.Y, 40, 8, 40, 5, rgb(255, 255, 255))
		case game.KindPlayerBullet, game.KindEnemyBullet:
			if last.X > 20 && last.X < Width-20 {
				a.parts.Burst(last.X, last.Y, 4, 4, 8, 2.5, rgb(255, 255, 200))
			}
		case game.KindPowerUp:
			a.parts.Burst(last.X, last.Y, 20, 7, 25, 4, rgb(140, 220, 255))
		}
	})
	a.ownSounds() // charge hum, death, respawn, power-up, Force launch/attach
}

var drawOp ebiten.DrawImageOptions

// drawSprite draws img centred at (cx,cy) scaled to w×h px; flash (0..1) adds white.
func drawSprite(dst, img *ebiten.Image, cx, cy, w, h float32, alpha, flash float32) {
	drawSpriteFlip(dst, img, cx, cy, w, h, alpha, flash, false)
}

// drawSpriteFlip is drawSprite, mirrored vertically when flipY (ceiling turrets).
func drawSpriteFlip(dst, img *ebiten.Image, cx, cy, w, h float32, alpha, flash float32, flipY bool) {
	op := &drawOp
	op.GeoM.Reset()
	op.ColorScale.Reset()
	op.Blend = ebiten.Blend{}
	op.Filter = ebiten.FilterLinear
	b := img.Bounds()
	if flipY {
		op.GeoM.Scale(float64(w)/float64(b.Dx()), -float64(h)/float64(b.Dy()))
		op.GeoM.Translate(float64(cx-w/2), float64(cy+h/2))
	} else {
		op.GeoM.Scale(float64(w)/float64(b.Dx()), float64(h)/float64(b.Dy()))
		op.GeoM.Translate(float64(cx-w/2), float64(cy-h/2))
	}
	if alpha < 1 {
		op.ColorScale.ScaleAlpha(alpha)
	}
	dst.DrawImage(img, op)
	if flash > 0 {
		op.Blend = ebiten.BlendLighter
		op.ColorScale.Reset()
		op.ColorScale.ScaleAlpha(flash)
		dst.DrawImage(img, op)
		dst.DrawImage(img, op)
	}
}

// drawGlow draws the soft glow sprite tinted col, additive.
func drawGlow(dst, glow *ebiten.Image, cx, cy, r float32, col color.RGBA, alpha float32) {
	op := &drawOp
	op.GeoM.Reset()
	op.ColorScale.Reset()
	op.Filter = ebiten.FilterLinear
	op.Blend = ebiten.BlendLighter
	s := float64(2*r) / float64(glow.Bounds().Dx())
	op.GeoM.Scale(s, s)
	op.GeoM.Translate(float64(cx-r), float64(cy-r))
	op.ColorScale.Scale(float32(col.R)/255*alpha, float32(col.G)/255*alpha, float32(col.B)/255*alpha, alpha)
	dst.DrawImage(glow, op)
	op.Blend = ebiten.Blend{}
}

func (a *app) drawItem(dst *ebiten.Image, sp *sprites, it *item) {
	flash := a.tracker.Flash(it.e)
	v := int(it.kind.Variant)
	switch it.kind.Kind {
	case game.KindPlayer:
		if it.player.Flags&game.PlayerDead != 0 {
			return
		}
		if it.player.Flags&game.PlayerInvulnerable != 0 && (a.frameN/4)%2 == 0 {
			drawSprite(dst, sp.ship[int(it.player.Slot)%4], it.x, it.y, it.w*1.15, it.h*1.15, 0.35, 0)
			return
		}
		drawSprite(dst, sp.ship[int(it.player.Slot)%4], it.x, it.y, it.w*1.15, it.h*1.15, 1, flash)
		if it.charge > 20 { // charging glow at the nose
			k := float32(it.charge) / 255
			drawGlow(dst, sp.glow, it.x+it.w*0.6, it.y, 10+30*k, color.RGBA{120, 190, 255, 255}, 0.5+0.5*k)
		}
		if !it.isSelf && a.ui != nil { // slot tag above the other players
			ty := it.y - it.h/2 - 30
			if ty < 0 { // near the top edge: tag below the ship
				ty = it.y + it.h/2
			}
			a.ui.text(dst, fmt.Sprintf("%dP", it.player.Slot+1), a.ui.small, float64(it.x), float64(ty), alignCenter, art.SlotColors[int(it.player.Slot)%4])
		}
	case game.KindForce:
		lv := min(max(v, 1), 3) - 1
		drawGlow(dst, sp.glow, it.x, it.y, it.w*0.9, color.RGBA{255, 140, 40, 255}, 0.5+0.15*float32(math.Sin(float64(a.frameN)/5)))
		drawSprite(dst, sp.force[lv], it.x, it.y, it.w, it.h, 1, flash)
	case game.KindPlayerBullet:
		drawSprite(dst, sp.shot[v%4], it.x, it.y, it.w*1.4, max(it.h*1.6, 10), 1, 0)
	case game.KindBeam:
		pulse := 0.85 + 0.15*float32(math.Sin(float64(a.frameN)/2))
		drawGlow(dst, sp.glow, it.x+it.w/2, it.y, it.h, color.RGBA{120, 180, 255, 255}, 0.8)
		drawSprite(dst, sp.beam, it.x, it.y, it.w, it.h*1.3*pulse, 1, 0)
	case game.KindEnemyBullet:
		drawSprite(dst, sp.enemyBullet[v%2], it.x, it.y, it.w*1.5, it.h*1.5, 1, 0)
	case game.KindEnemy:
		// turrets sit on the floor or hang from the ceiling (upper half of the screen)
		ceiling := v == int(game.EnemyTurret) && it.y < Height/2
		drawSpriteFlip(dst, sp.enemy[v%5], it.x, it.y, it.w*1.1, it.h*1.1, 1, flash, ceiling)
	case game.KindBoss:
		drawSprite(dst, sp.boss[v%2], it.x, it.y, it.w, it.h, 1, flash*0.5)
	case game.KindBossWeakPoint:
		open := v%2 == 1 || a.bossOpen()
		idx := 0
		if open {
			idx = 1
			drawGlow(dst, sp.glow, it.x, it.y, it.w, color.RGBA{255, 60, 40, 255}, 0.6+0.3*float32(math.Sin(float64(a.frameN)/4)))
		}
		drawSprite(dst, sp.weak[idx], it.x, it.y, it.w*1.2, it.h*1.2, 1, flash)
	case game.KindPowerUp:
		bob := float32(math.Sin(float64(a.frameN)/8)) * 4
		drawSprite(dst, sp.powerUp[v%2], it.x, it.y+bob, it.w*1.3, it.h*1.3, 1, 0)
	case game.KindExplosion:
		age := a.frameN - a.draw.born[it.e]
		k := min(float32(age)/30, 1)
		r := it.w / 2 * (0.4 + 0.8*k)
		drawGlow(dst, sp.glow, it.x, it.y, r*1.6, color.RGBA{255, 150, 50, 255}, 1-k*0.8)
		drawGlow(dst, sp.glow, it.x, it.y, r*0.8, color.RGBA{255, 255, 200, 255}, 1-k)
		drawSprite(dst, sp.ring, it.x, it.y, r*2.2, r*2.2, (1-k)*0.7, 0)
	default:
		vector.DrawFilledRect(dst, it.x-it.w/2, it.y-it.h/2, it.w, it.h, color.RGBA{200, 200, 200, 255}, false)
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

// drawStars draws the parallax starfield for a stage scroll (px) plus a few slow nebula glows.
func (a *app) drawStars(dst *ebiten.Image, scroll float32) {
	sp := a.ui.sp
	// backdrop: one pre-rendered low-resolution image scaled up, scrolling at 3% of the stage
	bg := sp.background
	bw := float32(bg.Bounds().Dx())
	scale := float32(Width) / bw
	off := starfield.Wrap(scroll * 0.03)
	for _, x0 := range [2]float32{-off, Width - off} {
		op := &drawOp
		op.GeoM.Reset()
		op.ColorScale.Reset()
		op.Blend = ebiten.Blend{}
		op.Filter = ebiten.FilterLinear
		op.GeoM.Scale(float64(scale), float64(scale))
		op.GeoM.Translate(float64(x0), 0)
		dst.DrawImage(bg, op)
	}
	f := a.stars
	for _, s := range f.Stars {
		l := f.Layers[s.Layer]
		x := f.ScreenX(s, scroll)
		br := l.Brightness * starfield.Twinkle(s, a.frameN)
		drawGlow(dst, sp.glow, x, s.Y, l.Size*3, color.RGBA{200, 220, 255, 255}, br)
	}
}

func (a *app) drawParticles(dst *ebiten.Image) {
	g := a.ui.sp.glow
	for i := range a.parts.P {
		p := &a.parts.P[i]
		al := p.Alpha()
		drawGlow(dst, g, p.X, p.Y, p.Size*(0.5+al)*2, color.RGBA{p.Col.R, p.Col.G, p.Col.B, 255}, al)
	}
}

// drawHUD draws the bottom bar (players' scores and lives, the beam charge meter), the boss
// health bar and the RTT.
func (a *app) drawHUD(dst *ebiten.Image) {
	u := a.ui
	vector.DrawFilledRect(dst, 0, Height-64, Width, 64, color.RGBA{0, 0, 0, 90}, false)
	vector.DrawFilledRect(dst, 0, art.HUDLineY, Width, 2, art.HUDLineColor, false) // screenshot marker
	xs := [game.MaxPlayers]float32{24, 384, 1230, 1580}
	for slot, p := range a.scores {
		x := xs[slot]
		col := art.SlotColors[slot]
		if !p.present {
			u.text(dst, fmt.Sprintf("%dP  ---", slot+1), u.small, float64(x), Height-48, alignStart, color.RGBA{90, 90, 110, 255})
			continue
		}
		if slot == a.draw.self {
			vector.DrawFilledRect(dst, x-10, Height-58, 330, 52, color.RGBA{col.R / 4, col.G / 4, col.B / 4, 200}, false)
		}
		u.text(dst, fmt.Sprintf("%dP", slot+1), u.normal, float64(x), Height-52, alignStart, col)
		u.text(dst, fmt.Sprintf("%08d", p.score), u.normal, float64(x+60), Height-52, alignStart, color.White)
		for i := 0; i < int(min(p.lives, 5)); i++ {
			drawSprite(dst, a.ui.sp.ship[slot], x+250+float32(i)*22, Height-32, 24, 12, 1, 0)
		}
	}
	// beam meter (own charge)
	mx, my, mw, mh := float32(830), float32(Height-46), float32(340), float32(26)
	u.text(dst, "BEAM", u.small, float64(mx-12), float64(my-3), alignEnd, color.RGBA{150, 190, 255, 255})
	vector.StrokeRect(dst, mx, my, mw, mh, 2, color.RGBA{120, 160, 255, 255}, false)
	charge := float32(0)
	if s := a.draw.self; s >= 0 && s < game.MaxPlayers {
		charge = float32(a.scores[s].charge) / 255
	}
	if charge > 0 {
		col := color.RGBA{80, 160, 255, 255}
		if charge >= 1 {
			col = color.RGBA{255, 255, 255, 255}
		}
		vector.DrawFilledRect(dst, mx+3, my+3, (mw-6)*charge, mh-6, col, false)
	}
	// boss bar
	if h := a.draw.bossHP; h.MaxHP > 0 {
		k := float32(h.HP) / float32(h.MaxHP)
		bx, bw := float32(Width/2-400), float32(800)
		u.text(dst, "BOSS", u.small, float64(bx-14), 26, alignEnd, color.RGBA{255, 120, 120, 255})
		vector.DrawFilledRect(dst, bx, 24, bw, 22, color.RGBA{40, 0, 0, 200}, false)
		vector.DrawFilledRect(dst, bx, 24, bw*k, 22, color.RGBA{230, 40, 60, 255}, false)
		vector.StrokeRect(dst, bx, 24, bw, 22, 2, color.RGBA{255, 160, 160, 255}, false)
	}
	st := a.link.Stats()
	u.text(dst, fmt.Sprintf("RTT %.0f ms", st.RTTMillis), u.small, Width-20, 16, alignEnd, color.RGBA{160, 200, 160, 255})
}

// drawStats is the F3 network overlay (session.Stats).
func (a *app) drawStats(dst *ebiten.Image) {
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
	vector.DrawFilledRect(dst, 16, 16, 460, float32(24+len(lines)*30), color.RGBA{0, 0, 0, 190}, false)
	for i, l := range lines {
		a.ui.text(dst, l, a.ui.mono, 30, float64(28+i*30), alignStart, color.RGBA{180, 255, 180, 255})
	}
}

func (a *app) drawPause(dst *ebiten.Image) {
	u := a.ui
	vector.DrawFilledRect(dst, 0, 0, Width, Height, color.RGBA{0, 0, 0, 140}, false)
	u.text(dst, "PAUSED", u.big, Width/2, 380, alignCenter, color.White)
	u.text(dst, "the game keeps running for the other players", u.small, Width/2, 460, alignCenter, color.RGBA{180, 180, 200, 255})
	u.menu(dst, []string{"Resume", "Leave game"}, a.pauseSel, Width/2, 540)
}

func rgb(r, g, b uint8) fx.Color { return fx.Color{R: r, G: g, B: b, A: 255} }
