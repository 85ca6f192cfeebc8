package game

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game/rules"
)

// corridorStage is emptyStage (no waves, no boss in reach, scroll 60 px/s) with a terrain of n
// samples every 128 px from world x 0: ceiling and floor heights (px) given per sample by
// ceil(i) and floor(i), plus the blocks (JSON objects) given.
func corridorStage(t testing.TB, n int, ceil, floor func(i int) int, blocks ...string) *Stage {
	t.Helper()
	var c, f []string
	for i := 0; i < n; i++ {
		c = append(c, fmt.Sprint(ceil(i)))
		f = append(f, fmt.Sprint(floor(i)))
	}
	terr := fmt.Sprintf(`"terrain": {"step": 128, "start": 0, "ceiling": [%s], "floor": [%s], "blocks": [%s]},`,
		strings.Join(c, ","), strings.Join(f, ","), strings.Join(blocks, ","))
	return mustParse(t, "terrain.json", strings.Replace(emptyStage, `"waves": [],`, `"waves": [], `+terr, 1))
}

func flat(h int) func(int) int { return func(int) int { return h } }

// armed returns ship 0 of s with a Force of colour and level attached in mode (ForceFront or
// ForceBack), as if it had taken the crystals.
func armed(s *Sim, colour, level, mode uint8) (ship, force ecs.Entity) {
	e := s.PlayerEntity(0)
	sh := s.c.Ship.Get(e)
	s.giveForce(e, sh)
	fe := sh.Force
	*s.c.Force.Get(fe) = Force{Owner: e, Mode: mode, Level: level}
	s.c.Kind.Get(fe).Variant = level
	*s.c.ForceCtl.Get(fe) = ForceCtl{}
	s.c.Player.Get(e).Laser = colour
	return e, fe
}

// shots returns the live player bullets of variant v.
func shots(s *Sim, v uint8) []ecs.Entity {
	var out []ecs.Entity
	for it := s.qPK.Iter(); it.Next(); {
		if _, k := it.Get(); k.Kind == KindPlayerBullet && k.Variant == v {
			out = append(out, it.Entity())
		}
	}
	return out
}

func TestForceLaunchFrontAndBack(t *testing.T) {
	s := newTestSim(t, 1)
	e, fe := armed(s, LaserRed, 1, ForceFront)
	step(s, 1, 0)
	if x := s.c.Position.Get(fe).X; x != s.c.Position.Get(e).X+forceAttachDX {
		t.Fatalf("front Force at x %v", x)
	}
	// From the front it flies forward to forceAheadX, then hovers at its ship's height.
	step(s, 1, BtnForce)
	x0 := s.c.Position.Get(fe).X
	step(s, 3, 0)
	if x := s.c.Position.Get(fe).X; x <= x0 {
		t.Fatalf("front launch: x %v -> %v, want forward", x0, x)
	}
	if v := s.c.Velocity.Get(fe); v.X != forceLaunchSpeed {
		t.Errorf("front launch velocity %v, want %d px/s forward", *v, forceLaunchSpeed)
	}
	step(s, 120, BtnDown)
	step(s, 120, 0)
	fp, sp := s.c.Position.Get(fe), s.c.Position.Get(e)
	if fp.X != forceAheadX || fp.Y != sp.Y {
		t.Errorf("front-launched Force hovers at %v, want x %d at the ship's y %v", *fp, forceAheadX, sp.Y)
	}
	// Recalled, it comes back and attaches in front (the side it touches).
	step(s, 1, BtnForce)
	step(s, 180, 0)
	if m := s.c.Force.Get(fe).Mode; m != ForceFront {
		t.Fatalf("recalled from the front: mode %d", m)
	}

	// From the back it flies backward to forceBehindX.
	s = newTestSim(t, 1)
	step(s, 40, BtnRight) // room behind the ship
	e, fe = armed(s, LaserRed, 1, ForceBack)
	step(s, 1, 0)
	step(s, 1, BtnForce)
	x0 = s.c.Position.Get(fe).X
	step(s, 3, 0)
	if x := s.c.Position.Get(fe).X; x >= x0 {
		t.Fatalf("back launch: x %v -> %v, want backward", x0, x)
	}
	if v := s.c.Velocity.Get(fe); v.X != -forceLaunchSpeed {
		t.Errorf("back launch velocity %v, want %d px/s backward", *v, -forceLaunchSpeed)
	}
	step(s, 120, BtnUp)
	step(s, 120, 0)
	fp, sp = s.c.Position.Get(fe), s.c.Position.Get(e)
	if fp.X != forceBehindX || fp.Y != sp.Y {
		t.Errorf("back-launched Force hovers at %v, want x %d at the ship's y %v", *fp, forceBehindX, sp.Y)
	}
	step(s, 1, BtnForce)
	step(s, 180, 0)
	if m := s.c.Force.Get(fe).Mode; m != ForceBack {
		t.Fatalf("recalled from behind: mode %d, want back", m)
	}
}

func TestDetachedForceFiresOnItsOwn(t *testing.T) {
	for _, tc := range []struct {
		name   string
		colour uint8
		level  uint8
		back   bool
		shot   uint8
		per    int // shots per volley
	}{
		{"red", LaserRed, 1, false, ShotForce, 1},
		{"red level 3", LaserRed, 3, false, ShotForce, 3},
		{"red from the back", LaserRed, 2, true, ShotForce, 2},
		{"blue", LaserBlue, 1, false, LaserShot(LaserBlue, 1), 2},
		{"blue level 3", LaserBlue, 3, false, LaserShot(LaserBlue, 3), 4},
		{"yellow", LaserYellow, 2, false, LaserShot(LaserYellow, 2), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestSim(t, 1)
			mode := ForceFront
			if tc.back {
				step(s, 40, BtnRight)
				mode = ForceBack
			}
			_, fe := armed(s, tc.colour, tc.level, mode)
			step(s, 1, 0)
			step(s, 1, BtnForce)
			seen := map[ecs.Entity]bool{}
			for i := 0; i < 5*forceFireEvery; i++ { // fire never pressed
				step(s, 1, 0)
				for _, b := range shots(s, tc.shot) {
					if !seen[b] {
						seen[b] = true
						v := s.c.Velocity.Get(b)
						switch {
						case tc.colour == LaserRed && tc.back && !(v.X < 0 && v.Y == 0):
							t.Errorf("red shot of a Force launched backward: velocity %v", *v)
						case tc.colour == LaserRed && !tc.back && !(v.X > 0 && v.Y == 0):
							t.Errorf("red shot: velocity %v, want straight forward", *v)
						case tc.colour == LaserBlue && !(v.X > 0 && v.Y != 0 && abs32(v.Y) >= abs32(v.X)/2):
							t.Errorf("blue shot: velocity %v, want diagonal", *v)
						case tc.colour == LaserYellow && !(v.X == 0 && abs32(v.Y) == yellowRise):
							t.Errorf("yellow shot: velocity %v, want straight up or down", *v)
						}
					}
				}
			}
			if want := 5 * tc.per; len(seen) != want {
				t.Errorf("%d shots in %d ticks, want %d (a volley of %d every %d ticks)", len(seen), 5*forceFireEvery, want, tc.per, forceFireEvery)
			}
			if s.c.Force.Get(fe).Mode != ForceDetached {
				t.Fatal("Force not detached")
			}
			// Its ship firing makes it fire at once too.
			before := len(shots(s, tc.shot))
			step(s, 1, BtnFire)
			if got := len(shots(s, tc.shot)); got < before+tc.per {
				t.Errorf("ship fired: Force shots %d -> %d, want a volley", before, got)
			}
		})
	}
}

func TestRedLaserGoesStraightAhead(t *testing.T) {
	s := newTestSim(t, 1)
	e, _ := armed(s, LaserRed, 2, ForceFront)
	step(s, 1, 0)
	sp := *s.c.Position.Get(e)
	air := addEnemy(s, 1500, sp.Y, laserDamage[LaserRed][2])
	step(s, 1, BtnFire)
	ls := shots(s, LaserShot(LaserRed, 2))
	if len(ls) != 1 || count(s, KindPlayerBullet, int(ShotNormal)) != 0 {
		t.Fatalf("%d red lasers and %d normal shots, want 1 and 0 (the Force in front fires the laser instead)", len(ls), count(s, KindPlayerBullet, int(ShotNormal)))
	}
	if v := s.c.Velocity.Get(ls[0]); v.X != laserSpeed || v.Y != 0 {
		t.Errorf("red laser velocity %v, want (%d, 0)", *v, laserSpeed)
	}
	step(s, 40, 0)
	if s.World().Alive(air) {
		t.Error("red laser did not destroy the enemy ahead in one hit")
	}
}

func TestBlueLaserBouncesOffCeilingFloorAndBlocks(t *testing.T) {
	// A corridor from y=200 to y=880.
	st := corridorStage(t, 40, flat(200), flat(200))
	s := NewSim(Config{Seed: 1, Players: 1, Stage: st})
	armed(s, LaserBlue, 1, ForceFront)
	step(s, 1, 0)
	step(s, 1, BtnFire)
	beams := shots(s, LaserShot(LaserBlue, 1))
	if len(beams) != 3 {
		t.Fatalf("%d blue beams at level 1, want 3 (0°, ±20°)", len(beams))
	}
	ceil, floor := st.Terrain.CeilY(0), st.Terrain.FloorY(0)
	flipped := map[ecs.Entity]bool{}
	first := map[ecs.Entity]float32{}
	for _, b := range beams {
		first[b] = s.c.Velocity.Get(b).Y
	}
	for i := 0; i < 60; i++ {
		step(s, 1, 0)
		for _, b := range beams {
			if !s.World().Alive(b) {
				continue
			}
			p, v := s.c.Position.Get(b), s.c.Velocity.Get(b)
			if p.Y < ceil || p.Y > floor {
				t.Fatalf("tick %d: blue beam at %v left the corridor %v..%v", i, *p, ceil, floor)
			}
			if first[b] != 0 && v.Y == -first[b] {
				flipped[b] = true
			}
		}
	}
	n := 0
	for _, b := range beams {
		if first[b] != 0 {
			n++
			if !flipped[b] {
				t.Errorf("beam fired with vy %v never reflected off the ceiling or floor", first[b])
			}
		}
	}
	if n != 2 {
		t.Fatalf("%d angled beams, want 2", n)
	}

	// A block ahead reflects the straight beam back (its side: vx flips).
	st = corridorStage(t, 40, flat(200), flat(200), `{"x": 1300, "y": 400, "w": 200, "h": 280}`)
	s = NewSim(Config{Seed: 1, Players: 1, Stage: st})
	armed(s, LaserBlue, 1, ForceFront)
	step(s, 1, 0)
	step(s, 1, BtnFire)
	var straight ecs.Entity
	for _, b := range shots(s, LaserShot(LaserBlue, 1)) {
		if s.c.Velocity.Get(b).Y == 0 {
			straight = b
		}
	}
	back := false
	for i := 0; i < 60 && s.World().Alive(straight); i++ {
		step(s, 1, 0)
		if v := s.c.Velocity.Get(straight); v != nil && v.X < 0 {
			back = true
			if g := s.c.Guide.Get(straight); g.Left != blueBounces-1 {
				t.Errorf("after one bounce %d bounces left, want %d", g.Left, blueBounces-1)
			}
			break
		}
	}
	if !back {
		t.Error("straight blue beam did not bounce back off the block")
	}
}

func TestBlueLaserBouncesALimitedNumberOfTimes(t *testing.T) {
	// Two blocks facing each other: a beam between them bounces blueBounces times, then the
	// next contact destroys it.
	st := corridorStage(t, 40, flat(100), flat(100),
		`{"x": 400, "y": 300, "w": 64, "h": 400}`, `{"x": 1400, "y": 300, "w": 64, "h": 400}`)
	s := NewSim(Config{Seed: 1, Players: 1, Stage: st})
	s.queue(bulletReq{kind: KindPlayerBullet, variant: LaserShot(LaserBlue, 1), x: 900, y: 500, vx: laserSpeed,
		damage: 1, guide: GuideBounce, left: blueBounces})
	step(s, 1, 0)
	b := shots(s, LaserShot(LaserBlue, 1))[0]
	turns, last := 0, s.c.Velocity.Get(b).X
	for i := 0; i < 300 && s.World().Alive(b); i++ {
		step(s, 1, 0)
		if v := s.c.Velocity.Get(b); v != nil && (v.X < 0) != (last < 0) {
			turns++
			last = v.X
		}
	}
	if s.World().Alive(b) || turns != blueBounces {
		t.Errorf("beam alive %v after %d bounces, want destroyed after %d", s.World().Alive(b), turns, blueBounces)
	}
}

func TestYellowLaserCrawlsAlongFloorAndCeiling(t *testing.T) {
	// A sloping floor (heights 150..330 px) and ceiling.
	floorH := func(i int) int { return 150 + (i*60)%240 }
	ceilH := func(i int) int { return 120 + (i*40)%160 }
	st := corridorStage(t, 60, ceilH, floorH)
	tr := &st.Terrain
	s := NewSim(Config{Seed: 1, Players: 1, Stage: st})
	armed(s, LaserYellow, 1, ForceFront)
	step(s, 1, 0)
	step(s, 1, BtnFire)
	beams := shots(s, LaserShot(LaserYellow, 1))
	if len(beams) != 2 {
		t.Fatalf("%d yellow beams, want 2 (up and down)", len(beams))
	}
	hh := float32(SizeOf(Kind{Kind: KindPlayerBullet, Variant: LaserShot(LaserYellow, 1)}).H) / 2
	crawled := map[uint8]int{}
	velChanges := 0
	prevV := map[ecs.Entity]Velocity{}
	cols := map[ecs.Entity]int32{}
	colChanges := 0
	for i := 0; i < 90; i++ {
		step(s, 1, 0)
		scroll := s.Scroll()
		for _, b := range beams {
			if !s.World().Alive(b) {
				continue
			}
			g, p, v := s.c.Guide.Get(b), s.c.Position.Get(b), s.c.Velocity.Get(b)
			if g.Surf == SurfNone {
				continue
			}
			wx := p.X + scroll
			want := tr.FloorY(wx) - hh
			if g.Surf == SurfCeil {
				want = tr.CeilY(wx) + hh
			}
			if d := abs32(p.Y - want); d > 1 {
				t.Fatalf("tick %d: crawling beam (surface %d) at y %v, the surface puts it at %v", i, g.Surf, p.Y, want)
			}
			if k := s.c.Kind.Get(b); CrawlOf(k.Variant) != g.Surf || ShotLook(k.Variant) != LaserShot(LaserYellow, 1) {
				t.Fatalf("crawling beam variant %d, want crawling along surface %d", k.Variant, g.Surf)
			}
			if v.X != crawlSpeed {
				t.Fatalf("crawling beam vx %v, want %d", v.X, crawlSpeed)
			}
			crawled[g.Surf]++
			if pv, ok := prevV[b]; ok && pv != *v {
				velChanges++
			}
			if c, ok := cols[b]; ok && c != terrainCol(tr, wx) {
				colChanges++
			}
			prevV[b], cols[b] = *v, terrainCol(tr, wx)
		}
	}
	if crawled[SurfCeil] < 10 || crawled[SurfFloor] < 10 {
		t.Errorf("ticks crawling: ceiling %d, floor %d; want both", crawled[SurfCeil], crawled[SurfFloor])
	}
	// Crawling, its Velocity never changes (clients place it on the surface, PROTOCOL §5.8),
	// across every terrain segment it passes.
	if velChanges != 0 || colChanges == 0 {
		t.Errorf("%d velocity changes over %d segment changes, want none", velChanges, colChanges)
	}
	for _, b := range beams {
		if k := s.c.Kind.Get(b); k != nil && CrawlOf(k.Variant) == SurfNone {
			t.Errorf("a beam still alive has variant %d, not a crawling one", k.Variant)
		}
	}
}

func TestYellowLaserWithoutTerrainRunsAlongTheEdges(t *testing.T) {
	s := newTestSim(t, 1)
	armed(s, LaserYellow, 3, ForceFront)
	step(s, 1, 0)
	step(s, 1, BtnFire)
	beams := shots(s, LaserShot(LaserYellow, 3))
	step(s, 30, 0)
	hh := float32(SizeOf(Kind{Kind: KindPlayerBullet, Variant: LaserShot(LaserYellow, 3)}).H) / 2
	ys := map[float32]bool{}
	for _, b := range beams {
		if p, v := s.c.Position.Get(b), s.c.Velocity.Get(b); p != nil {
			ys[p.Y] = true
			if *v != (Velocity{crawlSpeed, 0}) {
				t.Errorf("edge-crawling beam velocity %v", *v)
			}
		}
	}
	if len(ys) != 2 || !ys[hh] || !ys[Height-hh] {
		t.Errorf("beams at y %v, want %v and %v (the playfield's edges)", ys, hh, Height-hh)
	}
}

func TestYellowLaserHitsGroundEnemy(t *testing.T) {
	st := corridorStage(t, 40, flat(150), flat(150))
	s := NewSim(Config{Seed: 1, Players: 1, Stage: st})
	armed(s, LaserYellow, 1, ForceFront)
	// A turret standing on the floor, out of the straight line of fire.
	ground := addEnemy(s, 1200, st.Terrain.FloorY(0)-30, 2)
	s.c.Velocity.Get(ground).X = 0
	step(s, 1, 0)
	step(s, 1, BtnFire)
	step(s, 60, 0)
	if s.World().Alive(ground) {
		t.Error("yellow laser crawling along the floor did not hit the ground enemy")
	}
}

func TestLaserFromTheBackFiresBackward(t *testing.T) {
	for _, colour := range []uint8{LaserRed, LaserBlue, LaserYellow} {
		s := newTestSim(t, 1)
		step(s, 60, BtnRight)
		armed(s, colour, 1, ForceBack)
		step(s, 1, 0)
		step(s, 1, BtnFire)
		if n := count(s, KindPlayerBullet, int(ShotNormal)); n != 1 {
			t.Errorf("colour %d: %d normal shots, want 1 forward", colour, n)
		}
		ls := shots(s, LaserShot(colour, 1))
		if len(ls) == 0 {
			t.Fatalf("colour %d: no laser", colour)
		}
		if colour == LaserYellow {
			step(s, 40, 0) // crawling by now
		}
		for _, l := range ls {
			if v := s.c.Velocity.Get(l); v != nil && v.X >= 0 {
				t.Errorf("colour %d: laser from the back flies at %v, want backward", colour, *v)
			}
		}
	}
}

func TestBitsFollowBlockAndHurt(t *testing.T) {
	s := newTestSim(t, 1)
	makeVulnerable(s)
	e := s.PlayerEntity(0)
	sh := s.c.Ship.Get(e)
	for i := 0; i < 3; i++ { // the third only scores
		p := *s.c.Position.Get(e)
		addCapsule(s, PowerBit, p.X, p.Y)
		step(s, 1, 0)
	}
	if count(s, KindBit, -1) != 2 || sh.Bits[0] == ecs.Nil || sh.Bits[1] == ecs.Nil {
		t.Fatalf("%d Bits after 3 capsules, want 2", count(s, KindBit, -1))
	}
	step(s, 30, 0)
	sp := *s.c.Position.Get(e)
	up, down := *s.c.Position.Get(sh.Bits[0]), *s.c.Position.Get(sh.Bits[1])
	if up != (Position{sp.X, sp.Y - bitDY}) || down != (Position{sp.X, sp.Y + bitDY}) {
		t.Fatalf("Bits at %v and %v, ship at %v", up, down, sp)
	}
	if k := s.c.Kind.Get(sh.Bits[1]); k.Kind != KindBit || k.Variant != 1 {
		t.Errorf("lower Bit kind %v", *k)
	}
	// They follow with a little lag and carry the ship's Velocity.
	step(s, 1, BtnRight)
	if bp, v := s.c.Position.Get(sh.Bits[0]), s.c.Velocity.Get(sh.Bits[0]); bp.X >= s.c.Position.Get(e).X || *v != *s.c.Velocity.Get(e) {
		t.Errorf("Bit at %v velocity %v: want lagging behind a ship moving right, with its velocity %v", *bp, *v, *s.c.Velocity.Get(e))
	}
	step(s, 30, 0)
	// A bullet flying at the upper Bit is blocked; the ship behind it lives.
	up = *s.c.Position.Get(sh.Bits[0])
	b := addEnemyBullet(s, up.X+80, up.Y, -360, 0)
	step(s, 30, 0)
	if s.World().Alive(b) {
		t.Error("enemy bullet went through the Bit")
	}
	if s.c.Player.Get(e).Flags&PlayerDead != 0 {
		t.Fatal("ship died")
	}
	if !s.World().Alive(sh.Bits[0]) {
		t.Fatal("Bit destroyed by a bullet")
	}
	// An enemy touching the lower Bit takes damage every bitHitEvery ticks until it dies.
	down = *s.c.Position.Get(sh.Bits[1])
	en := addEnemy(s, down.X, down.Y+20, 3)
	step(s, 3*bitHitEvery+1, 0)
	if s.World().Alive(en) {
		t.Errorf("enemy on the Bit alive, HP %d", s.c.Health.Get(en).HP)
	}
	if !s.World().Alive(sh.Bits[1]) {
		t.Error("Bit destroyed by an enemy")
	}
	// The Bits fire a small shot each with the ship.
	step(s, 20, 0)
	step(s, 1, BtnFire)
	if n := count(s, KindPlayerBullet, int(ShotForce)); n != 2 {
		t.Errorf("%d Bit shots, want 2", n)
	}
}

func TestSpeedUpIsFasterAndCapped(t *testing.T) {
	s := newTestSim(t, 1)
	e := s.PlayerEntity(0)
	prev := float32(0)
	for i := 0; i <= MaxSpeed+1; i++ {
		if i > 0 {
			p := *s.c.Position.Get(e)
			addCapsule(s, PowerSpeed, p.X, p.Y)
			step(s, 1, 0)
		}
		if got, want := s.c.Player.Get(e).Speed, uint8(min(i, MaxSpeed)); got != want {
			t.Fatalf("speed %d after %d capsules, want %d", got, i, want)
		}
		x0 := s.c.Position.Get(e).X
		step(s, 1, BtnDown) // vertical: stays clear of the field's edges
		step(s, 1, BtnUp)
		step(s, 1, BtnRight)
		d := s.c.Position.Get(e).X - x0
		if i > 0 && i <= MaxSpeed && d <= prev {
			t.Errorf("speed %d: %v px/tick, not faster than %v", i, d, prev)
		}
		if i > MaxSpeed && d != prev {
			t.Errorf("capsule past MaxSpeed: %v px/tick, want still %v", d, prev)
		}
		prev = d
		step(s, 1, BtnLeft)
	}
}

func TestMissilesHome(t *testing.T) {
	s := newTestSim(t, 1)
	e := s.PlayerEntity(0)
	p := *s.c.Position.Get(e)
	addCapsule(s, PowerMissile, p.X, p.Y)
	step(s, 1, 0)
	if s.c.Player.Get(e).Missile != 1 {
		t.Fatal("missile capsule not taken")
	}
	// An enemy high above the line of fire: straight shots miss it, missiles find it.
	en := addEnemy(s, 900, p.Y-300, 2*missileDamage)
	step(s, 1, BtnFire)
	if n := count(s, KindPlayerBullet, int(ShotMissile)); n != maxMissiles {
		t.Fatalf("%d missiles, want %d", n, maxMissiles)
	}
	step(s, 10, 0)
	step(s, 1, BtnFire)
	if n := count(s, KindPlayerBullet, int(ShotMissile)); n != maxMissiles {
		t.Errorf("%d missiles in flight after a second shot, want at most %d", n, maxMissiles)
	}
	for i := 0; i < 120 && s.World().Alive(en); i++ {
		step(s, 1, 0)
	}
	if s.World().Alive(en) {
		t.Error("homing missiles did not reach the enemy")
	}
	// Velocity changes only every missileSteerEvery ticks.
	step(s, 20, 0)
	step(s, 1, BtnFire)
	m := shots(s, ShotMissile)[0]
	changes := 0
	for i := 0; i < 30 && s.World().Alive(m); i++ {
		step(s, 1, 0)
		if s.c.Velocity.ChangedAt(m) == s.Tick() {
			changes++
		}
	}
	if changes > 30/missileSteerEvery+1 {
		t.Errorf("missile velocity changed %d times in 30 ticks", changes)
	}
}

func TestMissilesStopAtTerrain(t *testing.T) {
	st := corridorStage(t, 40, flat(300), flat(300))
	s := NewSim(Config{Seed: 1, Players: 1, Stage: st})
	e := s.PlayerEntity(0)
	s.c.Player.Get(e).Missile = 1
	// The only enemy is beyond the ceiling: the missiles steer into it and stop there.
	addEnemy(s, 700, 100, 100)
	step(s, 1, BtnFire)
	ms := shots(s, ShotMissile)
	step(s, 90, 0)
	for _, m := range ms {
		if s.World().Alive(m) {
			t.Errorf("missile at %v alive inside the ceiling", *s.c.Position.Get(m))
		}
	}
}

func TestCrystalColourCycles(t *testing.T) {
	s := newTestSim(t, 1)
	c := s.spawnCapsule(PowerRed, 1800, 100)
	bit := s.spawnCapsule(PowerBit, 1800, 300)
	for _, want := range []uint8{PowerRed, PowerBlue, PowerYellow, PowerRed} {
		if v := s.c.Kind.Get(c).Variant; v != want {
			t.Errorf("tick %d: crystal variant %d, want %d", s.Tick(), v, want)
		}
		if v := s.c.Kind.Get(bit).Variant; v != PowerBit {
			t.Errorf("Bit capsule turned into %d", v)
		}
		step(s, crystalCycle, 0)
	}
	if v := s.c.Velocity.Get(c); v.X != powerUpDrift {
		t.Errorf("capsule velocity %v, want the drift", *v)
	}
	// Taken while blue, it gives the blue laser.
	e := s.PlayerEntity(0)
	p := *s.c.Position.Get(e)
	c = s.spawnCapsule(PowerRed, p.X, p.Y)
	s.c.Capsule.Get(c).Age = crystalCycle - 1
	step(s, 1, 0)
	if l := s.c.Player.Get(e).Laser; l != LaserBlue {
		t.Errorf("crystal taken when it turned blue gave laser %d", l)
	}
}

func TestDeathLosesTheArsenal(t *testing.T) {
	s := newTestSim(t, 1)
	e, fe := armed(s, LaserYellow, 3, ForceFront)
	sh := s.c.Ship.Get(e)
	s.giveBit(e, sh)
	s.giveBit(e, sh)
	bits := sh.Bits
	pl := s.c.Player.Get(e)
	pl.Speed, pl.Missile = MaxSpeed, 1
	step(s, 1, 0)
	s.killShip(0)
	pl = s.c.Player.Get(e)
	if s.World().Alive(fe) || sh.Force != ecs.Nil || s.World().Alive(bits[0]) || s.World().Alive(bits[1]) ||
		sh.Bits != [2]ecs.Entity{} || pl.Laser != 0 || pl.Speed != 0 || pl.Missile != 0 {
		t.Errorf("after death: force %v bits %v player %+v", s.World().Alive(fe), sh.Bits, *pl)
	}
	// Leaving the game takes the Bits along.
	s = newTestSim(t, 2)
	e = s.PlayerEntity(1)
	sh = s.c.Ship.Get(e)
	s.giveBit(e, sh)
	b := sh.Bits[0]
	s.RemovePlayer(1)
	if s.World().Alive(b) {
		t.Error("Bit of a removed player left behind")
	}
}

// arsenalInputs gives every weapon to the 4 ships of s (Force colours red, blue, yellow, and a
// detached yellow one; Bits, missiles, speed) in a corridor stage.
func armAll(s *Sim) {
	for slot := 0; slot < rules.MaxPlayers; slot++ {
		e := s.PlayerEntity(slot)
		sh := s.c.Ship.Get(e)
		s.giveForce(e, sh)
		f := s.c.Force.Get(sh.Force)
		f.Level = uint8(1 + slot%3)
		f.Mode = [4]uint8{ForceFront, ForceBack, ForceFront, ForceDetached}[slot]
		s.c.Kind.Get(sh.Force).Variant = f.Level
		if f.Mode != ForceDetached {
			*s.c.ForceCtl.Get(sh.Force) = ForceCtl{}
		}
		s.c.Player.Get(e).Laser = [4]uint8{LaserRed, LaserBlue, LaserYellow, LaserYellow}[slot]
		s.giveBit(e, sh)
		s.giveBit(e, sh)
		pl := s.c.Player.Get(e)
		pl.Missile, pl.Speed = 1, uint8(slot%(MaxSpeed+1))
	}
}

// arsenalStage has waves of every flying kind, capsules and a sloped corridor.
func arsenalStage(t testing.TB) *Stage {
	t.Helper()
	src := strings.Replace(emptyStage, `"waves": [],`, `"waves": [
	  {"at": 0, "kind": "sine", "count": 8, "y": 500, "amplitude": 80, "spacing": 40},
	  {"at": 60, "kind": "straight", "count": 6, "y": 400, "dy": 40, "fire": 90},
	  {"at": 120, "kind": "carrier", "count": 2, "y": 600, "drop": "laser"},
	  {"at": 200, "kind": "homing", "count": 4, "y": 300, "dy": 120}],
	  "terrain": {"step": 128, "start": 0, "ceiling": [CEIL], "floor": [FLOOR], "blocks": [{"x": 1700, "y": 420, "w": 128, "h": 200}]},`, 1)
	var c, f []string
	for i := 0; i < 80; i++ {
		c = append(c, fmt.Sprint(80+(i*37)%120))
		f = append(f, fmt.Sprint(80+(i*53)%140))
	}
	src = strings.Replace(strings.Replace(src, "CEIL", strings.Join(c, ","), 1), "FLOOR", strings.Join(f, ","), 1)
	return mustParse(t, "arsenal.json", src)
}

func runArsenal(t testing.TB, seed uint64, ticks int) []uint64 {
	s := NewSim(Config{Seed: seed, Players: 4, Stage: arsenalStage(t)})
	armAll(s)
	var hashes []uint64
	for i := 0; i < ticks; i++ {
		for slot := 0; slot < rules.MaxPlayers; slot++ {
			s.c.Ship.Get(s.PlayerEntity(slot)).Invuln = 1000 // terrain and bullets do not end the test
			s.SetInput(slot, Input{Buttons: scripted(slot, i)})
		}
		s.Step()
		s.World().ClearEvents()
		if i%50 == 49 {
			hashes = append(hashes, s.Hash())
		}
	}
	return hashes
}

func TestArsenalDeterminism(t *testing.T) {
	a, b := runArsenal(t, 5, 1500), runArsenal(t, 5, 1500)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("same seed and inputs with every weapon diverged at tick %d", (i+1)*50)
		}
	}
	c := runArsenal(t, 6, 1500)
	if c[len(c)-1] == a[len(a)-1] {
		t.Error("another seed gave the same final hash")
	}
}

// TestStepAllocsArsenal pins the zero-allocation Step with every weapon in play: the busy
// benchmark state (4 ships, ~300 entities) in a corridor, each ship with a Force (red, blue and
// yellow lasers, one detached), two Bits and missiles.
func TestStepAllocsArsenal(t *testing.T) {
	s := arsenalBenchSim(t, true)
	kinds := map[uint8]bool{}
	for it := s.qPK.Iter(); it.Next(); {
		if _, k := it.Get(); k.Kind == KindPlayerBullet {
			kinds[k.Variant] = true
		}
	}
	for _, v := range []uint8{ShotNormal, ShotForce, ShotMissile, LaserShot(LaserRed, 1), LaserShot(LaserBlue, 2), LaserShot(LaserYellow, 3)} {
		if !kinds[v] {
			t.Errorf("no shot of variant %d in play (have %v)", v, kinds)
		}
	}
	if a := testing.AllocsPerRun(300, func() { benchTick(s) }); a != 0 {
		t.Errorf("Step with every weapon allocates %v times per tick, want 0", a)
	}
}

// arsenalBenchSim is benchSim's busy state in a corridor, every ship fully armed if arm.
func arsenalBenchSim(tb testing.TB, arm bool) *Sim {
	tb.Helper()
	var c, f []string
	for i := 0; i < 40; i++ {
		c = append(c, fmt.Sprint(60+(i*37)%100))
		f = append(f, fmt.Sprint(60+(i*53)%100))
	}
	src := strings.Replace(benchStage, `"waves": [`, fmt.Sprintf(`"terrain": {"step": 128, "start": 0, "ceiling": [%s], "floor": [%s],
	  "blocks": [{"x": 900, "y": 480, "w": 64, "h": 120}]},
	"waves": [`, strings.Join(c, ","), strings.Join(f, ",")), 1)
	st, err := ParseStage("bench-arsenal.json", []byte(src))
	if err != nil {
		tb.Fatal(err)
	}
	s := NewSim(Config{Seed: 7, Players: 4, Stage: st})
	if arm {
		armAll(s)
	}
	for i := 0; i < 600; i++ {
		benchTick(s)
	}
	return s
}

// BenchmarkStepArsenal is BenchmarkStep in a corridor with every weapon in play (compare with
// BenchmarkStepTerrain: the same corridor, unarmed ships).
func BenchmarkStepArsenal(b *testing.B) { benchArmed(b, true) }

// BenchmarkStepTerrain is BenchmarkStep in the corridor of BenchmarkStepArsenal, unarmed.
func BenchmarkStepTerrain(b *testing.B) { benchArmed(b, false) }

func benchArmed(b *testing.B, arm bool) {
	s := arsenalBenchSim(b, arm)
	b.ReportAllocs()
	b.ResetTimer()
	live := 0
	for i := 0; i < b.N; i++ {
		if i%3000 == 2999 {
			b.StopTimer()
			s = arsenalBenchSim(b, arm)
			b.StartTimer()
		}
		benchTick(s)
		if i%100 == 0 {
			live += s.World().Len()
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(live)/float64((b.N+99)/100), "entities")
}
