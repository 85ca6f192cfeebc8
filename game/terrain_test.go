package game

import (
	"strings"
	"testing"

	"github.com/rtype/rtype/ecs"
)

// terrainStage: open space until world x 0, then a corridor sampled every 100 px: the ceiling
// 100 px, the floor 100 px, except a floor bump to 400 px at samples 10..12 (world x
// 1000..1200) and a structure at world x 1500..1700, y 400..600. The scroll is slow (1 px/s)
// so the terrain barely moves during a test.
const terrainStage = `{
  "name": "terrain", "scrollSpeed": 1,
  "sections": [{"at": 0, "song": 1}],
  "terrain": {"theme": "base", "start": 0, "step": 100,
    "ceiling": [100,100,100,100,100,100,100,100,100,100,100,100,100,100,100,100,100,100,100,100,100,100,100,100],
    "floor":   [100,100,100,100,100,100,100,100,100,100,400,400,400,100,100,100,100,100,100,100,100,100,100,100],
    "blocks": [{"x": 1500, "y": 400, "w": 200, "h": 200}]},
  "waves": [],
  "boss": {"at": 900000, "kind": "small", "hp": 10, "song": 9,
    "phases": [{"below": 100, "pattern": "fan", "interval": 60, "bullets": 5, "speed": 300, "open": 60, "closed": 60}]}
}`

func newTerrainSim(t testing.TB, players int) *Sim {
	t.Helper()
	return NewSim(Config{Seed: 1, Players: players, Stage: mustParse(t, "terrain.json", terrainStage)})
}

func TestTerrainQueries(t *testing.T) {
	tr := &mustParse(t, "terrain.json", terrainStage).Terrain
	if got := tr.CeilY(50); got != 100 {
		t.Errorf("CeilY(50) = %v, want 100", got)
	}
	if got := tr.FloorY(500); got != Height-100 {
		t.Errorf("FloorY(500) = %v, want %v", got, Height-100)
	}
	// Slope from sample 9 (100) to 10 (400): halfway, 250 px high.
	if got := tr.FloorY(950); got != Height-250 {
		t.Errorf("FloorY(950) = %v, want %v (interpolated)", got, Height-250)
	}
	if got := tr.Slope(950, true); got != -3 {
		t.Errorf("floor slope at 950 = %v px/px, want -3 (rising: y decreases)", got)
	}
	// A box spanning the bump's top: the highest floor edge is the bump's, not the endpoints'.
	if _, floor := tr.Span(990, 1210); floor != Height-400 {
		t.Errorf("Span over the bump: floor %v, want %v", floor, Height-400)
	}
	// Before the start and after the end: open space.
	if tr.CeilY(-10) != 0 || tr.FloorY(-10) != Height || tr.FloorY(99999) != Height {
		t.Error("terrain outside its samples")
	}
	cases := []struct {
		x0, y0, x1, y1 float32
		want           Hit
	}{
		{200, 300, 300, 400, HitNone},
		{200, 80, 300, 150, HitCeil},
		{200, 950, 300, 1000, HitFloor},
		{1050, 600, 1100, 700, HitFloor}, // on the bump
		{1550, 450, 1600, 500, HitBlock},
		{1550, 200, 1600, 300, HitNone}, // above the structure
		{1550, 650, 1600, 700, HitNone}, // below it
	}
	for _, c := range cases {
		if got := tr.Touch(c.x0, c.y0, c.x1, c.y1); got != c.want {
			t.Errorf("Touch(%v,%v,%v,%v) = %v, want %v", c.x0, c.y0, c.x1, c.y1, got, c.want)
		}
	}
}

// A vulnerable ship flying into the floor is destroyed; an invulnerable one is pushed out.
func TestShipDiesOnTerrain(t *testing.T) {
	s := newTerrainSim(t, 1)
	e := s.PlayerEntity(0)
	// Invulnerable (just spawned): holding down never takes it into the floor.
	step(s, invulnTicks-1, BtnDown)
	p := s.c.Position.Get(e)
	if p.Y+shipH/2-shipInset > Height-100 {
		t.Fatalf("invulnerable ship at y=%v went into the floor (edge %v)", p.Y, Height-100)
	}
	if s.c.Player.Get(e).Flags&PlayerDead != 0 {
		t.Fatal("invulnerable ship died on terrain")
	}
	makeVulnerable(s)
	s.c.Position.Get(e).Y = 700 // back in the corridor
	ev := collectEvents(s, 60, BtnDown)
	if !hasEvent(ev, Event{Kind: EventDeath, Entity: e, Slot: 0, Lives: startLives - 1}) {
		t.Fatalf("vulnerable ship flying into the floor did not die: %+v", ev)
	}
	// It respawns inside the corridor, clear of the ceiling and the floor.
	step(s, respawnDelay+2, 0)
	p = s.c.Position.Get(e)
	if s.c.Player.Get(e).Flags&PlayerDead != 0 || p.Y-shipH/2 < 100 || p.Y+shipH/2 > Height-100 {
		t.Errorf("respawned at y=%v (dead=%v), want inside the corridor 100..%d", p.Y, s.c.Player.Get(e).Flags&PlayerDead != 0, Height-100)
	}
}

// Shots, beams and enemy bullets stop at terrain; they fly on in the open.
func TestShotsAndBulletsStopAtTerrain(t *testing.T) {
	s := newTerrainSim(t, 1)
	e := s.PlayerEntity(0)
	s.c.Position.Get(e).Y = 500 // in line with the structure at x 1500..1700
	step(s, 1, BtnFire)
	shot := find(s, KindPlayerBullet)
	if shot == ecs.Nil {
		t.Fatal("no shot")
	}
	maxX := float32(0)
	for i := 0; i < 90 && s.World().Alive(shot); i++ {
		maxX = max(maxX, s.c.Position.Get(shot).X)
		step(s, 1, 0)
	}
	if s.World().Alive(shot) {
		t.Fatal("a shot into a structure still flies after 1.5 s")
	}
	if maxX+16 > 1500+float32(s.Scroll())+60 {
		t.Errorf("the shot reached x=%v, past the structure's face at %v", maxX, 1500-s.Scroll())
	}
	// A shot above the structure flies on to the edge of the field.
	s.c.Position.Get(e).Y = 250
	step(s, 10, 0)
	step(s, 1, BtnFire)
	shot = find(s, KindPlayerBullet)
	step(s, 55, 0) // 25 px per tick
	if !s.World().Alive(shot) || s.c.Position.Get(shot).X < 1550 {
		t.Error("a shot in the open stopped")
	}
	// An enemy bullet flying up stops at the ceiling.
	b := addEnemyBullet(s, 800, 300, 0, -360)
	step(s, 60, 0)
	if s.World().Alive(b) {
		t.Errorf("enemy bullet flew through the ceiling to y=%v", s.c.Position.Get(b).Y)
	}
	// A charged beam stops at the bump of the floor.
	s.c.Position.Get(e).Y = Height - 300
	step(s, chargeDelay+chargeTicks+2, BtnFire)
	step(s, 1, 0)
	beam := find(s, KindBeam)
	if beam == ecs.Nil {
		t.Fatal("no beam")
	}
	step(s, 60, 0)
	if s.World().Alive(beam) {
		t.Errorf("beam flew through the floor bump to x=%v", s.c.Position.Get(beam).X)
	}
}

// Ground enemies stand on the terrain: turrets and walkers on the floor or the ceiling, never
// in the air or inside the ground.
func TestGroundEnemiesStandOnTerrain(t *testing.T) {
	src := strings.Replace(terrainStage, `"waves": []`, `"waves": [
    {"at": 0, "kind": "turret", "count": 1, "x": 1200, "y": 1000},
    {"at": 0, "kind": "walker", "count": 1, "x": 1800, "y": 1000, "fire": 0},
    {"at": 0, "kind": "walker", "count": 1, "x": 1900, "y": 50, "fire": 0},
    {"at": 0, "kind": "hopper", "count": 1, "x": 700, "y": 1000}]`, 1)
	s := NewSim(Config{Seed: 1, Players: 1, Stage: mustParse(t, "ground.json", src)})
	step(s, 1, 0)
	tr := &s.stage.Terrain
	var ents []ecs.Entity
	s.World().Each(func(e ecs.Entity) {
		if k := s.c.Kind.Get(e); k != nil && k.Kind == KindEnemy {
			ents = append(ents, e)
		}
	})
	if len(ents) != 4 {
		t.Fatalf("%d enemies, want 4", len(ents))
	}
	hopperLeft := false
	for tick := 0; tick < 600; tick++ {
		for _, e := range ents {
			if !s.World().Alive(e) {
				continue
			}
			en, p := s.c.Enemy.Get(e), s.c.Position.Get(e)
			h := float32(enemyDefaults[en.Type].h)
			wx := p.X + s.Scroll()
			var want float32
			if en.Surface == SurfaceCeil {
				want = tr.CeilY(wx) + h/2
			} else {
				want = tr.FloorY(wx) - h/2
			}
			d := p.Y - want
			if en.Type == EnemyHopper {
				// in the air during a jump, never below the ground
				if d > 1 {
					t.Fatalf("tick %d: hopper %v px inside the floor", tick, d)
				}
				if d < -20 {
					hopperLeft = true
				}
				continue
			}
			// On the surface; where the slope changes under a walking enemy, it is off by at most
			// one tick of the slope change (|Δslope|·speed/TickRate, under 4 px here) until the
			// next tick puts it back.
			if abs32(d) > 4 {
				t.Fatalf("tick %d: %s on surface %d at y=%v, the surface wants %v", tick, EnemyKindNames[en.Type], en.Surface, p.Y, want)
			}
		}
		step(s, 1, 0)
	}
	if !hopperLeft {
		t.Error("the hopper never jumped")
	}
}

func TestParseStageTerrainErrors(t *testing.T) {
	tests := []struct {
		name, old, new, want string
	}{
		{"lengths differ", `"floor":   [100,100,`, `"floor":   [100,`, `terrain.floor: 23 samples but terrain.ceiling has 24`},
		{"corridor too narrow", `"floor":   [100,100,`, `"floor":   [100,850,`, `terrain.floor[1]: leaves a corridor of 130 px`},
		{"negative height", `"ceiling": [100,`, `"ceiling": [-5,`, `terrain.ceiling[0]: -5 is negative`},
		{"unknown theme", `"theme": "base"`, `"theme": "lava"`, `terrain.theme: unknown theme "lava"`},
		{"missing step", `"step": 100,`, ``, `terrain.step: missing`},
		{"step too small", `"step": 100,`, `"step": 4,`, `terrain.step: 4 is out of range`},
		{"block closes the corridor", `"y": 400, "w": 200, "h": 200`, `"y": 250, "w": 200, "h": 600`, `terrain.blocks[0]: closes the corridor`},
		{"block below the field", `"y": 400, "w": 200, "h": 200`, `"y": 1000, "w": 200, "h": 200`, `terrain.blocks[0].h: the block reaches y=1200`},
		{"block without x", `"x": 1500, `, ``, `terrain.blocks[0].x: missing`},
		{"unknown terrain field", `"theme": "base",`, `"theme": "base", "lava": 1,`, `unknown field "lava"`},
		{"ground on a flyer", `"waves": []`, `"waves": [{"at": 0, "kind": "sine", "count": 1, "y": 500, "ground": "floor"}]`, `waves[0].ground: only turret, walker and hopper`},
		{"snake-body wave", `"waves": []`, `"waves": [{"at": 0, "kind": "snake-body", "count": 1, "y": 500}]`, `waves[0].kind: snake-body is not a wave kind`},
	}
	for _, tc := range tests {
		src := strings.Replace(terrainStage, tc.old, tc.new, 1)
		if src == terrainStage {
			t.Fatalf("%s: replacement %q not found", tc.name, tc.old)
		}
		_, err := ParseStage("stages/terrain.json", []byte(src))
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		if !strings.HasPrefix(err.Error(), "stages/terrain.json: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %q, want file name and %q", tc.name, err, tc.want)
		}
	}
}
