package game

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game/rules"
)

func TestMoveShip(t *testing.T) {
	const step, diag = float32(shipSpeed) / TickRate, float32(shipSpeed / TickRate / math.Sqrt2)
	minX, maxX := float32(shipW)/2, float32(Width-shipW/2)
	minY, maxY := float32(shipH)/2, float32(ShipMaxY)
	tests := []struct {
		name   string
		x, y   float32
		b      Buttons
		nx, ny float32
	}{
		{"idle", 500, 500, 0, 500, 500},
		{"fire only", 500, 500, BtnFire | BtnForce, 500, 500},
		{"right", 500, 500, BtnRight, 500 + step, 500},
		{"left", 500, 500, BtnLeft, 500 - step, 500},
		{"up", 500, 500, BtnUp, 500, 500 - step},
		{"down", 500, 500, BtnDown, 500, 500 + step},
		{"up-left diagonal", 500, 500, BtnUp | BtnLeft, 500 - diag, 500 - diag},
		{"down-right diagonal", 500, 500, BtnDown | BtnRight, 500 + diag, 500 + diag},
		{"left+right cancel", 500, 500, BtnLeft | BtnRight, 500, 500},
		{"all four cancel", 500, 500, BtnLeft | BtnRight | BtnUp | BtnDown, 500, 500},
		{"clamp left", minX + 3, 500, BtnLeft, minX, 500},
		{"clamp right", maxX - 3, 500, BtnRight, maxX, 500},
		{"clamp top", 500, minY + 1, BtnUp, 500, minY},
		{"clamp bottom", 500, maxY - 1, BtnDown, 500, maxY},
		{"clamp corner diagonal", maxX, maxY, BtnDown | BtnRight, maxX, maxY},
		{"outside is pulled in", -50, 2000, 0, minX, maxY},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			nx, ny := MoveShip(tc.x, tc.y, tc.b, 0)
			if abs32(nx-tc.nx) > 1e-4 || abs32(ny-tc.ny) > 1e-4 {
				t.Errorf("MoveShip(%v,%v,%06b) = (%v,%v), want (%v,%v)", tc.x, tc.y, tc.b, nx, ny, tc.nx, tc.ny)
			}
		})
	}
	// Diagonal speed equals straight speed.
	nx, ny := MoveShip(500, 500, BtnUp|BtnRight, 0)
	if d := math.Hypot(float64(nx-500), float64(ny-500)); math.Abs(d-float64(step)) > 1e-3 {
		t.Errorf("diagonal step length %v, want %v", d, step)
	}
}

// The server moves ships with MoveShip exactly (client prediction relies on it).
func TestShipMovesLikeMoveShip(t *testing.T) {
	s := newTestSim(t, 1)
	e := s.PlayerEntity(0)
	p := *s.c.Position.Get(e)
	seq := []Buttons{BtnUp, BtnUp | BtnRight, BtnDown | BtnLeft, BtnRight, BtnRight, 0, BtnDown}
	for i := 0; i < 200; i++ {
		b := seq[i%len(seq)]
		p.X, p.Y = MoveShip(p.X, p.Y, b, 0)
		step(s, 1, b)
		if got := *s.c.Position.Get(e); got != p {
			t.Fatalf("tick %d: ship at %v, MoveShip says %v", i, got, p)
		}
	}
	if ch := s.c.Position.ChangedAt(e); ch != s.Tick() {
		t.Errorf("moved ship Position changed at %d, want current tick %d", ch, s.Tick())
	}
}

func TestFireRate(t *testing.T) {
	tests := []struct {
		name    string
		pattern func(i int) bool // fire held at tick i
		ticks   int
		want    int
	}{
		// A press fires; holding does not auto-fire (it charges).
		{"hold", func(int) bool { return true }, 40, 1},
		{"tap every 8 ticks", func(i int) bool { return i%8 < 4 }, 80, 10},
		// Pressing every other tick is limited by the fire cooldown.
		{"mash faster than cooldown", func(i int) bool { return i%2 == 0 }, 80, 80 / fireCooldown},
		{"never", func(int) bool { return false }, 40, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestSim(t, 1)
			seen := map[ecs.Entity]bool{}
			for i := 0; i < tc.ticks; i++ {
				var b Buttons
				if tc.pattern(i) {
					b = BtnFire
				}
				step(s, 1, b)
				for it := s.qPK.Iter(); it.Next(); {
					if _, k := it.Get(); k.Kind == KindPlayerBullet {
						seen[it.Entity()] = true
					}
				}
			}
			if len(seen) != tc.want {
				t.Errorf("%d shots, want %d", len(seen), tc.want)
			}
		})
	}
}

func TestLaserNeedsAttachedForce(t *testing.T) {
	// Without a Force the ship fires its normal shot whatever its laser colour; with the Force
	// attached it fires the laser of its colour at the Force's level.
	s := newTestSim(t, 1)
	e := s.PlayerEntity(0)
	s.c.Player.Get(e).Laser = LaserRed
	step(s, 1, BtnFire)
	if got := count(s, KindPlayerBullet, int(ShotNormal)); got != 1 {
		t.Fatalf("no Force: %d normal shots, want 1", got)
	}
	p := *s.c.Position.Get(e)
	addCapsule(s, PowerRed, p.X, p.Y)
	step(s, 120, 0) // the Force flies in and attaches
	f := s.c.Force.Get(s.c.Ship.Get(e).Force)
	if f == nil || f.Mode == ForceDetached {
		t.Fatalf("Force %+v not attached", f)
	}
	step(s, 1, BtnFire)
	if got := count(s, KindPlayerBullet, int(LaserShot(LaserRed, 1))); got == 0 {
		t.Error("Force attached with a red crystal: no red laser")
	}
}

func TestChargeLevels(t *testing.T) {
	if ChargeLevel(0) != 0 || ChargeLevel(59) != 0 || ChargeLevel(60) != 1 || ChargeLevel(150) != 2 || ChargeLevel(254) != 2 || ChargeLevel(255) != 3 {
		t.Fatal("ChargeLevel thresholds are not 60/150/255")
	}
	tests := []struct {
		held      int // ticks fire is held (press tick included)
		wantLevel int
	}{
		{5, 0}, {chargeDelay + 10, 0}, {chargeDelay + 20, 1}, {chargeDelay + 40, 2}, {chargeDelay + chargeTicks, 3}, {300, 3},
	}
	prevW := uint16(0)
	for _, tc := range tests {
		s := newTestSim(t, 1)
		e := s.PlayerEntity(0)
		step(s, tc.held, BtnFire)
		charge := ChargeAt(s.c.Player.Get(e).ChargeFrom, s.Tick())
		wantCharge := (tc.held - chargeDelay) * 255 / chargeTicks
		wantCharge = max(0, min(255, wantCharge))
		if int(charge) != wantCharge {
			t.Errorf("held %d: charge %d, want %d", tc.held, charge, wantCharge)
		}
		if lvl := ChargeLevel(charge); lvl != tc.wantLevel {
			t.Errorf("held %d: level %d, want %d", tc.held, lvl, tc.wantLevel)
		}
		step(s, 1, 0) // release
		if c := s.c.Player.Get(e).ChargeFrom; c != 0 {
			t.Errorf("held %d: charge %d after release, want 0", tc.held, c)
		}
		beam := find(s, KindBeam)
		if tc.wantLevel == 0 {
			if beam != ecs.Nil {
				t.Errorf("held %d: a beam fired below level 1", tc.held)
			}
			continue
		}
		if beam == ecs.Nil {
			t.Fatalf("held %d: no beam fired", tc.held)
		}
		k, sz, sh := s.c.Kind.Get(beam), s.c.Size.Get(beam), s.c.Shot.Get(beam)
		if int(k.Variant) != tc.wantLevel || sh.Pierce != 1 || sh.Damage != beamLevels[tc.wantLevel].damage {
			t.Errorf("held %d: beam variant %d pierce %d damage %d", tc.held, k.Variant, sh.Pierce, sh.Damage)
		}
		if sz.W < prevW {
			t.Errorf("held %d: beam width %d smaller than a lower level's %d", tc.held, sz.W, prevW)
		}
		prevW = sz.W
	}
}

func TestBeamPiercesWeakEnemies(t *testing.T) {
	s := newTestSim(t, 1)
	e := s.PlayerEntity(0)
	y := s.c.Position.Get(e).Y
	weak := []ecs.Entity{addEnemy(s, 700, y, 1), addEnemy(s, 900, y, 1), addEnemy(s, 1100, y, 1)}
	strong := addEnemy(s, 1400, y, 100)
	behind := addEnemy(s, 1700, y, 1)
	step(s, chargeDelay+chargeTicks, BtnFire) // full charge (the press shot hits the first enemy)
	for i := 0; i < 60; i++ {
		step(s, 1, 0)
	}
	for i, w := range weak {
		if s.World().Alive(w) {
			t.Errorf("weak enemy %d survived the beam", i)
		}
	}
	if h := s.c.Health.Get(strong); h == nil || h.HP != 100-beamLevels[3].damage {
		t.Errorf("strong enemy health %+v, want %d", h, 100-beamLevels[3].damage)
	}
	if !s.World().Alive(behind) {
		t.Error("the beam went through a strong enemy")
	}
	if find(s, KindBeam) != ecs.Nil {
		t.Error("beam still alive after hitting a strong enemy")
	}
	if sc := s.c.Player.Get(e).Score; sc != 300 {
		t.Errorf("score %d, want 300 (3 enemies x 100)", sc)
	}
}

func TestShotDamagesAndKills(t *testing.T) {
	s := newTestSim(t, 2)
	e := s.PlayerEntity(0)
	y := s.c.Position.Get(e).Y
	en := addEnemy(s, 800, y, 2)
	s.c.Enemy.Get(en).Drop = 1 + PowerSpeed
	step(s, 1, BtnFire)
	step(s, 40, 0)
	if h := s.c.Health.Get(en); h == nil || h.HP != 1 {
		t.Fatalf("enemy health %+v after one shot, want 1", h)
	}
	if s.c.Health.ChangedAt(en) == 0 {
		t.Error("damage did not mark Health changed")
	}
	step(s, 1, BtnFire)
	events := collectEvents(s, 40, 0)
	_ = events
	if s.World().Alive(en) {
		t.Fatal("enemy alive after two shots")
	}
	if sc := s.c.Player.Get(e).Score; sc != 100 {
		t.Errorf("score %d, want 100", sc)
	}
	if sc := s.c.Player.Get(s.PlayerEntity(1)).Score; sc != 0 {
		t.Errorf("other player scored %d", sc)
	}
	if count(s, KindPowerUp, int(PowerSpeed)) != 1 {
		t.Error("the enemy did not drop its speed capsule")
	}
}

func TestEnemyBulletKillsShipAndRespawn(t *testing.T) {
	s := newTestSim(t, 1)
	makeVulnerable(s)
	e := s.PlayerEntity(0)
	p := *s.c.Position.Get(e)
	addEnemyBullet(s, p.X+60, p.Y, -360, 0)
	var deaths []Event
	for i := 0; i < 20 && len(deaths) == 0; i++ {
		for _, ev := range collectEvents(s, 1, 0) {
			if ev.Kind == EventDeath {
				deaths = append(deaths, ev)
			}
		}
	}
	if len(deaths) != 1 {
		t.Fatalf("deaths %v, want one", deaths)
	}
	if d := deaths[0]; d.Entity != e || d.Slot != 0 || d.Lives != startLives-1 {
		t.Errorf("death event %+v", d)
	}
	pl := s.c.Player.Get(e)
	if pl.Flags&PlayerDead == 0 || pl.Lives != startLives-1 {
		t.Fatalf("player after death %+v", pl)
	}
	if count(s, KindExplosion, int(ExplosionBig)) != 1 {
		t.Error("no ship explosion")
	}
	// Dead ships do not move nor fire.
	before := *s.c.Position.Get(e)
	step(s, 10, BtnUp|BtnFire)
	if *s.c.Position.Get(e) != before || count(s, KindPlayerBullet, -1) != 0 {
		t.Error("a dead ship moved or fired")
	}
	step(s, respawnDelay, 0)
	pl = s.c.Player.Get(e)
	if pl.Flags != PlayerInvulnerable {
		t.Fatalf("after respawn flags %02b, want invulnerable only", pl.Flags)
	}
	// Invulnerable: a bullet passes through.
	p = *s.c.Position.Get(e)
	addEnemyBullet(s, p.X+40, p.Y, -360, 0)
	if ev := collectEvents(s, 20, 0); len(ev) != 0 {
		t.Errorf("events while invulnerable: %v", ev)
	}
	step(s, int(s.rules.InvulnMax), 0)
	if f := s.c.Player.Get(e).Flags; f != 0 {
		t.Errorf("flags %02b after invulnerability, want 0", f)
	}
}

func TestContactWithEnemyKillsShip(t *testing.T) {
	s := newTestSim(t, 1)
	makeVulnerable(s)
	e := s.PlayerEntity(0)
	p := s.c.Position.Get(e)
	en := addEnemy(s, p.X+20, p.Y, 10)
	step(s, 1, 0)
	if s.c.Player.Get(e).Flags&PlayerDead == 0 {
		t.Error("ship survived touching an enemy")
	}
	if h := s.c.Health.Get(en); h.HP != 6 {
		t.Errorf("rammed enemy HP %d, want 6", h.HP)
	}
}

func TestDefeatAndStepAfterOver(t *testing.T) {
	s := newTestSim(t, 1)
	e := s.PlayerEntity(0)
	var got []Event
	for life := 0; life < startLives; life++ {
		makeVulnerable(s)
		p := s.c.Position.Get(e)
		addEnemyBullet(s, p.X, p.Y, 0, 0)
		got = append(got, collectEvents(s, respawnDelay+2, 0)...)
	}
	got = append(got, collectEvents(s, continueTicks, 0)...) // the continue not taken
	var deaths, ends int
	for _, ev := range got {
		switch ev.Kind {
		case EventDeath:
			deaths++
		case EventGameEnd:
			ends++
			if ev.Result != rules.ResultDefeat {
				t.Errorf("game end result %v, want defeat", ev.Result)
			}
		}
	}
	if deaths != startLives || ends != 1 {
		t.Fatalf("%d deaths and %d game ends, want %d and 1", deaths, ends, startLives)
	}
	over, r := s.Over()
	if !over || r != rules.ResultDefeat {
		t.Fatalf("Over() = %v, %v", over, r)
	}
	tick, h := s.Tick(), s.Hash()
	for i := 0; i < 5; i++ {
		s.Step()
	}
	if s.Tick() != tick || s.Hash() != h || len(s.Events()) != 0 {
		t.Error("Step after the end changed the world")
	}
}

func TestDefeatNeedsEveryPlayer(t *testing.T) {
	s := newTestSim(t, 2)
	s.c.Player.Get(s.PlayerEntity(0)).Lives = 1
	s.killShip(0)
	step(s, 1, 0)
	if over, _ := s.Over(); over {
		t.Fatal("game over while player 2 still has lives")
	}
	s.c.Player.Get(s.PlayerEntity(1)).Lives = 1
	s.killShip(1)
	step(s, continueTicks-1, 0)
	if over, _ := s.Over(); over {
		t.Fatal("game over while both players may still continue")
	}
	step(s, 2, 0)
	if over, r := s.Over(); !over || r != rules.ResultDefeat {
		t.Fatalf("Over() = %v, %v, want defeat", over, r)
	}
}

func TestRemovePlayer(t *testing.T) {
	s := newTestSim(t, 2)
	e1 := s.PlayerEntity(1)
	s.RemovePlayer(1)
	if s.PlayerEntity(1) != ecs.Nil || s.World().Alive(e1) {
		t.Fatal("removed ship still present")
	}
	step(s, 10, 0)
	if over, _ := s.Over(); over {
		t.Fatal("game ended with one player left")
	}
	s.RemovePlayer(1) // twice: no-op
	s.RemovePlayer(9) // invalid: no-op
	s.RemovePlayer(0)
	step(s, 1, 0)
	if over, r := s.Over(); !over || r != rules.ResultAborted {
		t.Fatalf("Over() = %v, %v, want aborted", over, r)
	}
}

func TestInvalidSlotsAndPlayerCount(t *testing.T) {
	s := NewSim(Config{Seed: 1, Players: 9, Stage: mustParse(t, "empty.json", emptyStage)})
	for slot := 0; slot < rules.MaxPlayers; slot++ {
		if s.PlayerEntity(slot) == ecs.Nil {
			t.Errorf("slot %d empty with Players=9 (clamped to 4)", slot)
		}
	}
	if s.PlayerEntity(-1) != ecs.Nil || s.PlayerEntity(4) != ecs.Nil {
		t.Error("out-of-range slot has a ship")
	}
	s.SetInput(-1, Input{BtnFire})
	s.SetInput(4, Input{BtnFire})
	s1 := NewSim(Config{Seed: 1, Players: 0, Stage: mustParse(t, "empty.json", emptyStage)})
	if s1.PlayerEntity(0) == ecs.Nil || s1.PlayerEntity(1) != ecs.Nil {
		t.Error("Players=0 is not clamped to 1")
	}
}

func TestForceLifecycle(t *testing.T) {
	s := newTestSim(t, 1)
	e := s.PlayerEntity(0)
	p := *s.c.Position.Get(e)
	addCapsule(s, PowerRed, p.X+20, p.Y)
	step(s, 1, 0)
	fe := s.c.Ship.Get(e).Force
	if fe == ecs.Nil {
		t.Fatal("capsule did not give a Force")
	}
	if f := s.c.Force.Get(fe); f.Owner != e || f.Level != 1 {
		t.Fatalf("new force %+v", f)
	}
	if count(s, KindPowerUp, -1) != 0 {
		t.Error("capsule not consumed")
	}
	// It flies in from the left and attaches to the back.
	for i := 0; i < 120 && s.c.Force.Get(fe).Mode == ForceDetached; i++ {
		step(s, 1, 0)
	}
	if m := s.c.Force.Get(fe).Mode; m != ForceBack {
		t.Fatalf("force mode %d after flying in from the left, want back (%d)", m, ForceBack)
	}
	// Attached: it follows the ship.
	step(s, 10, BtnDown)
	sp, fp := s.c.Position.Get(e), s.c.Position.Get(fe)
	if fp.X != sp.X-forceAttachDX || fp.Y != sp.Y {
		t.Errorf("attached force at %v, ship at %v", *fp, *sp)
	}
	// Launch from the back: the button detaches it and it flies backward (the front launch is
	// in weapons_test.go).
	step(s, 30, BtnRight)
	step(s, 1, BtnForce)
	if m := s.c.Force.Get(fe).Mode; m != ForceDetached {
		t.Fatalf("mode %d after the force button, want detached", m)
	}
	x0 := s.c.Position.Get(fe).X
	step(s, 5, BtnForce) // held: no new edge
	if m := s.c.Force.Get(fe).Mode; m != ForceDetached || s.c.Position.Get(fe).X >= x0 {
		t.Fatalf("detached force mode %d did not fly backward (x %v -> %v)", m, x0, s.c.Position.Get(fe).X)
	}
	step(s, 120, 0)
	if x := s.c.Position.Get(fe).X; x != forceBehindX {
		t.Errorf("force launched backward stopped at x=%v, want %v", x, forceBehindX)
	}
	// Recall: next press brings it back; coming from behind it attaches at the back.
	step(s, 1, BtnForce)
	for i := 0; i < 180 && s.c.Force.Get(fe).Mode == ForceDetached; i++ {
		step(s, 1, 0)
	}
	if m := s.c.Force.Get(fe).Mode; m != ForceBack {
		t.Fatalf("recalled force mode %d, want back", m)
	}
	// A second capsule levels it up.
	p = *s.c.Position.Get(e)
	addCapsule(s, PowerRed, p.X, p.Y+10)
	step(s, 1, 0)
	if f, k := s.c.Force.Get(fe), s.c.Kind.Get(fe); f.Level != 2 || k.Variant != 2 {
		t.Errorf("force level %d variant %d after a second capsule, want 2", f.Level, k.Variant)
	}
	// Attached at the back, the ship fires its shot forward and the Force its laser backward.
	step(s, 10, 0)
	step(s, 1, BtnFire)
	if n := count(s, KindPlayerBullet, int(ShotNormal)); n != 1 {
		t.Errorf("%d normal shots with the Force at the back, want 1", n)
	}
	if count(s, KindPlayerBullet, int(LaserShot(LaserRed, 2))) != 1 {
		t.Errorf("no red laser of level 2 from the Force at the back")
	}
	for it := s.qPK.Iter(); it.Next(); {
		if _, k := it.Get(); k.Kind == KindPlayerBullet && k.Variant == LaserShot(LaserRed, 2) && s.c.Velocity.Get(it.Entity()).X >= 0 {
			t.Errorf("laser from the Force at the back flies at vx %v, want backward", s.c.Velocity.Get(it.Entity()).X)
		}
	}
}

func TestForceBlocksBulletsAndDamagesEnemies(t *testing.T) {
	s := newTestSim(t, 1)
	makeVulnerable(s)
	e := s.PlayerEntity(0)
	sh := s.c.Ship.Get(e)
	sp := *s.c.Position.Get(e)
	s.giveForce(e, sh)
	fe := sh.Force
	s.c.Force.Get(fe).Mode = ForceFront
	step(s, 1, 0)
	// A bullet flying at the ship from the front hits the Force first.
	fp := *s.c.Position.Get(fe)
	b := addEnemyBullet(s, fp.X+60, sp.Y, -360, 0)
	step(s, 20, 0)
	if s.World().Alive(b) {
		t.Error("bullet not blocked by the Force")
	}
	if s.c.Player.Get(e).Flags&PlayerDead != 0 {
		t.Fatal("ship died behind its Force")
	}
	// An enemy touching the Force takes contact damage until it dies.
	fp = *s.c.Position.Get(fe)
	en := addEnemy(s, fp.X+forceSize/2+20, fp.Y, 3)
	step(s, 3*forceHitEvery+1, 0)
	if s.World().Alive(en) {
		t.Errorf("enemy touching the Force alive, HP %d", s.c.Health.Get(en).HP)
	}
	if sc := s.c.Player.Get(e).Score; sc != 100 {
		t.Errorf("score %d for a Force kill, want 100", sc)
	}
}

func TestDeathLosesForceAndLaser(t *testing.T) {
	s := newTestSim(t, 1)
	e := s.PlayerEntity(0)
	sh := s.c.Ship.Get(e)
	s.giveForce(e, sh)
	fe := sh.Force
	s.c.Player.Get(e).Laser = 2
	s.killShip(0)
	if s.World().Alive(fe) || sh.Force != ecs.Nil || s.c.Player.Get(e).Laser != 0 {
		t.Error("Force or laser kept after death")
	}
}

func TestCrystalsColourAndLevel(t *testing.T) {
	// The first crystal gives the Force and its colour; one of the same colour levels the Force
	// up to 3; another colour changes the laser and keeps the level.
	s := newTestSim(t, 1)
	e := s.PlayerEntity(0)
	take := func(v uint8) {
		p := *s.c.Position.Get(e)
		addCapsule(s, v, p.X, p.Y)
		step(s, 1, 0)
	}
	take(PowerBlue)
	fe := s.c.Ship.Get(e).Force
	if fe == ecs.Nil || s.c.Player.Get(e).Laser != LaserBlue {
		t.Fatalf("first crystal: force %v laser %d", fe, s.c.Player.Get(e).Laser)
	}
	for want := uint8(2); want <= maxForceLevel+1; want++ {
		take(PowerBlue)
		if got := s.c.Force.Get(fe).Level; got != min(want, maxForceLevel) {
			t.Errorf("Force level %d after %d blue crystals, want %d", got, want, min(want, maxForceLevel))
		}
	}
	take(PowerYellow)
	if s.c.Player.Get(e).Laser != LaserYellow || s.c.Force.Get(fe).Level != maxForceLevel {
		t.Errorf("yellow crystal: laser %d level %d", s.c.Player.Get(e).Laser, s.c.Force.Get(fe).Level)
	}
}

func TestBossPhasesWeakPointAndVictory(t *testing.T) {
	s := NewSim(Config{Seed: 3, Players: 1, Stage: mustParse(t, "boss.json", bossStage)})
	e := s.PlayerEntity(0)
	ev := collectEvents(s, 1, 0)
	if s.boss == ecs.Nil {
		t.Fatal("boss not spawned at scroll 0")
	}
	if !hasEvent(ev, Event{Kind: EventMusic, Song: 3}) {
		t.Errorf("no boss music event in %v", ev)
	}
	if h := s.c.Health.Get(s.weak); h == nil || *h != (Health{HP: 20, MaxHP: 20}) {
		t.Errorf("weak point Health %+v, want 20/20", h)
	}
	if s.c.Health.Has(s.boss) {
		t.Error("the boss body has a Health (the boss's hit points are the weak point's)")
	}
	for i := 0; i < 600 && s.c.Boss.Get(s.boss).Phase == 0; i++ {
		step(s, 1, 0)
	}
	if ph := s.c.Boss.Get(s.boss).Phase; ph != 1 {
		t.Fatalf("boss phase %d after entering, want 1", ph)
	}
	// Scroll stops while the boss is on screen.
	sc := s.Scroll()
	step(s, 10, 0)
	if s.Scroll() != sc {
		t.Error("scroll advances during the boss fight")
	}
	weak := s.weak
	// Line the ship up with the weak point and shoot it while closed, then open.
	aimAt := func() {
		sp, wp := s.c.Position.Get(e), s.c.Position.Get(weak)
		s.c.Player.Get(e).Flags |= PlayerInvulnerable
		s.c.Ship.Get(e).Invuln = 1000
		sp.X, sp.Y = wp.X-150, wp.Y
	}
	waitWeak := func(open uint8) {
		for i := 0; i < 200 && s.c.Boss.Get(s.boss).WeakOpen != open; i++ {
			step(s, 1, 0)
		}
		if s.c.Boss.Get(s.boss).WeakOpen != open {
			t.Fatalf("weak point never became open=%d", open)
		}
	}
	waitWeak(0)
	// Shots hitting the closed weak point do nothing.
	hp0 := s.c.Health.Get(weak).HP
	for i := 0; i < 2; i++ {
		aimAt()
		step(s, 1, BtnFire)
		step(s, fireCooldown, 0)
	}
	if s.c.Boss.Get(s.boss).WeakOpen != 0 {
		t.Fatal("weak point opened during the closed-shot check (timing)")
	}
	if hp := s.c.Health.Get(weak).HP; hp != hp0 {
		t.Errorf("closed weak point damaged: %d -> %d", hp0, hp)
	}
	waitWeak(1)
	hp0 = s.c.Health.Get(weak).HP
	aimAt()
	step(s, 1, BtnFire)
	step(s, fireCooldown, 0)
	if hp := s.c.Health.Get(weak).HP; hp != hp0-1 {
		t.Fatalf("open weak point HP %d after one shot, want %d", hp, hp0-1)
	}
	// Below 50%: phase 2.
	s.c.Health.Get(weak).HP = 10
	step(s, 1, 0)
	if ph := s.c.Boss.Get(s.boss).Phase; ph != 2 {
		t.Errorf("phase %d at 50%% HP, want 2", ph)
	}
	// The kill: dying phase, then victory.
	s.c.Health.Get(weak).HP = 1
	waitWeak(1)
	aimAt()
	step(s, 1, BtnFire)
	step(s, fireCooldown, 0)
	if ph := s.c.Boss.Get(s.boss).Phase; ph != BossPhaseDying {
		t.Fatalf("phase %d after the last hit, want dying", ph)
	}
	if sc := s.c.Player.Get(e).Score; sc < bossScore {
		t.Errorf("score %d, want the boss bonus %d", sc, bossScore)
	}
	ev = collectEvents(s, bossDyingTicks+5, 0)
	if !hasEvent(ev, Event{Kind: EventGameEnd, Result: rules.ResultVictory}) {
		t.Fatalf("no victory event in %v", ev)
	}
	if over, r := s.Over(); !over || r != rules.ResultVictory {
		t.Errorf("Over() = %v, %v", over, r)
	}
}

func hasEvent(evs []Event, want Event) bool {
	for _, e := range evs {
		if e == want {
			return true
		}
	}
	return false
}

func TestMusicSections(t *testing.T) {
	s := newTestSim(t, 1) // sections: song 7 at 0, song 8 at scroll 30 (60 px/s: tick 30)
	ev := collectEvents(s, 1, 0)
	if !hasEvent(ev, Event{Kind: EventMusic, Song: 7}) {
		t.Fatalf("first step events %v, want music 7", ev)
	}
	ev = collectEvents(s, 40, 0)
	if len(ev) != 1 || ev[0] != (Event{Kind: EventMusic, Song: 8}) {
		t.Fatalf("events %v, want one music 8", ev)
	}
	if sec := s.c.Stage.Get(s.stageEnt).Section; sec != 1 {
		t.Errorf("section %d, want 1", sec)
	}
}

func TestScrollAndWaveSpawns(t *testing.T) {
	st := mustParse(t, "w.json", `{"scrollSpeed": 120, "sections": [{"at": 0, "song": 1}],
	  "waves": [{"at": 20, "kind": "sine", "count": 3, "y": 300, "spacing": 10, "amplitude": 50},
	            {"at": 40, "kind": "turret", "count": 1, "y": 1000}],
	  "boss": {"at": 9000, "kind": "small", "hp": 5, "song": 2,
	    "phases": [{"below": 100, "pattern": "ring", "interval": 30, "bullets": 8, "speed": 200, "open": 30, "closed": 0}]}}`)
	s := NewSim(Config{Seed: 1, Players: 1, Stage: st})
	// The scroll (the stage singleton's Position) moves in the move system,
	// before the spawn system: step t spawns what the scroll reached at
	// step t (2 px per tick at 120 px/s).
	for tick := 1; tick <= 25; tick++ {
		scroll := float32(2 * tick)
		want := 0
		for _, w := range st.Waves {
			for i := 0; i < w.Count; i++ {
				if w.At+float32(i)*w.Spacing <= scroll {
					want++
				}
			}
		}
		step(s, 1, 0)
		if got := count(s, KindEnemy, -1); got != want {
			t.Errorf("tick %d (scroll %v): %d enemies, want %d", tick, scroll, got, want)
		}
	}
	if got := count(s, KindEnemy, int(EnemyTurret)); got != 1 {
		t.Errorf("%d turrets, want 1", got)
	}
}

func TestDifficultyScalesWithPlayers(t *testing.T) {
	hp := func(players int) uint16 {
		s := NewSim(Config{Seed: 1, Players: players, Stage: mustParse(t, "boss.json", bossStage)})
		step(s, 1, 0)
		return s.c.Health.Get(s.weak).MaxHP
	}
	h1, h4 := hp(1), hp(4)
	if h1 != 20 || h4 <= h1 {
		t.Errorf("boss HP %d with 1 player, %d with 4: want 20 and more", h1, h4)
	}
	s1, s4 := newTestSim(t, 1), newTestSim(t, 4)
	if s4.scaleFire(120) >= s1.scaleFire(120) {
		t.Error("enemies do not fire faster with 4 players")
	}
}

// The ship's bounds PROTOCOL.md §5 states for predicting clients.
func TestShipBoundsDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("x %d..%d and y %d..%d, above the %d px HUD bar", shipW/2, Width-shipW/2, shipH/2, ShipMaxY, HUDHeight)
	if !strings.Contains(string(b), want) {
		t.Errorf("PROTOCOL.md does not say %q", want)
	}
}
