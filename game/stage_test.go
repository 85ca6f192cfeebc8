package game

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEmbeddedStages(t *testing.T) {
	for _, name := range []string{"stage1", "stage2", "short"} {
		st, err := LoadStage(name)
		if err != nil {
			t.Fatalf("LoadStage(%q): %v", name, err)
		}
		if len(st.Sections) == 0 || len(st.Boss.Phases) == 0 || st.Enemies() == 0 {
			t.Errorf("%s: sections %d, boss phases %d, enemies %d", name, len(st.Sections), len(st.Boss.Phases), st.Enemies())
		}
	}
	st, _ := LoadStage("stage1")
	// A full stage: several minutes, every enemy kind, several music sections, a multi-phase boss.
	if secs := st.Boss.At / st.ScrollSpeed; secs < 120 {
		t.Errorf("stage1 boss after %v s, want several minutes", secs)
	}
	seen := map[uint8]bool{}
	for _, w := range st.Waves {
		seen[w.Kind] = true
	}
	if len(seen) < 8 {
		t.Errorf("stage1 uses %d enemy kinds, want at least 8", len(seen))
	}
	if st.Terrain.Empty() || st.Terrain.Theme != ThemeBase || st.Boss.Variant != BossBig {
		t.Errorf("stage1: terrain empty=%v theme %d, boss %d; want a Bydo base and the big boss", st.Terrain.Empty(), st.Terrain.Theme, st.Boss.Variant)
	}
	s2, err := LoadStage("stage2")
	if err != nil {
		t.Fatal(err)
	}
	if s2.Terrain.Empty() || s2.Terrain.Theme != ThemeOrganic || s2.Boss.Variant != BossWall || len(s2.Sections) < 2 {
		t.Errorf("stage2: terrain empty=%v theme %d, boss %d, %d sections; want an organic cave, the wall boss, 2+ sections",
			s2.Terrain.Empty(), s2.Terrain.Theme, s2.Boss.Variant, len(s2.Sections))
	}
	s3, err := LoadStage("stage3")
	if err != nil {
		t.Fatal(err)
	}
	// Stage 3: one gigantic warship: a hull of blocks several screens long, turrets mounted on
	// it, engines, and its reactor core as the finale.
	hullW, mounted := float32(0), 0
	for _, b := range s3.Terrain.Blocks {
		hullW = max(hullW, b.X+b.W)
	}
	for _, w := range s3.Waves {
		if w.Mounted {
			mounted++
		}
	}
	if s3.Terrain.Theme != ThemeWarship || s3.Boss.Variant != BossCore || hullW-s3.Terrain.Blocks[0].X < 5*Width || mounted < 10 {
		t.Errorf("stage3: theme %d, boss %d, hull %v px long, %d mounted turrets; want a warship several screens long with its guns and core",
			s3.Terrain.Theme, s3.Boss.Variant, hullW-s3.Terrain.Blocks[0].X, mounted)
	}
	// Between them the stages use every wave kind (snake-body is part of a snake).
	for _, w := range append(s2.Waves, s3.Waves...) {
		seen[w.Kind] = true
	}
	for k := uint8(0); k < numEnemyKinds; k++ {
		if !seen[k] && k != EnemySnakeBody {
			t.Errorf("no stage uses enemy kind %q", EnemyKindNames[k])
		}
	}
	// Every music section of stage 2 has its own song, none of stage 1's.
	for _, sec := range s2.Sections {
		for _, sec1 := range st.Sections {
			if sec.Song == sec1.Song {
				t.Errorf("stage2 section %q plays stage 1's song %d", sec.Name, sec.Song)
			}
		}
	}
	if len(st.Sections) < 2 || len(st.Boss.Phases) < 2 {
		t.Errorf("stage1: %d sections, %d boss phases", len(st.Sections), len(st.Boss.Phases))
	}
	short, _ := LoadStage("short")
	if ticks := short.Boss.At / short.ScrollSpeed * TickRate; ticks > 1800 {
		t.Errorf("short boss appears after %v ticks, want well under a minute", ticks)
	}
}

func TestLoadStageFromFileAndUnknown(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "mine.json")
	if err := os.WriteFile(p, []byte(emptyStage), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := LoadStage(p)
	if err != nil || st.Name != "empty" {
		t.Fatalf("LoadStage(file) = %v, %v", st, err)
	}
	if _, err := LoadStage("nosuchstage"); err == nil || !strings.Contains(err.Error(), "nosuchstage") {
		t.Errorf("unknown embedded stage: %v", err)
	}
	if _, err := LoadStage(filepath.Join(dir, "missing.json")); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := LoadStage(""); err == nil {
		t.Error("empty name accepted")
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"scrollSpeed": -1}`), 0o644)
	if _, err := LoadStage(bad); err == nil || !strings.HasPrefix(err.Error(), bad+": scrollSpeed:") {
		t.Errorf("bad file error %v does not name the file and field", err)
	}
}

// base is a valid stage; the table edits it with string replacements.
const baseStage = `{
  "name": "t", "scrollSpeed": 100,
  "sections": [{"at": 0, "song": 1}, {"at": 500, "song": 2}],
  "waves": [
    {"at": 0, "kind": "straight", "count": 2, "y": 100},
    {"at": 10, "kind": "sine", "count": 2, "y": 500, "amplitude": 100},
    {"at": 20, "kind": "turret", "count": 1, "y": 1000},
    {"at": 30, "kind": "homing", "count": 3, "y": 200, "dy": 100}
  ],
  "boss": {"at": 1000, "kind": "big", "hp": 50, "song": 3,
    "phases": [{"below": 100, "pattern": "fan", "interval": 60, "bullets": 5, "speed": 300, "open": 60, "closed": 60},
               {"below": 40, "pattern": "ring", "interval": 60, "bullets": 8, "speed": 300, "open": 60, "closed": 60}]}
}`

func TestParseStageErrors(t *testing.T) {
	if _, err := ParseStage("stages/base.json", []byte(baseStage)); err != nil {
		t.Fatalf("base stage: %v", err)
	}
	tests := []struct {
		name     string
		old, new string // replacement in baseStage ("" old: whole file is new)
		want     string // expected error (prefix "stages/t.json: " implied)
	}{
		{"unknown kind", `"kind": "homing"`, `"kind": "blob"`, `waves[3].kind: unknown kind "blob"`},
		{"unknown field", `"name": "t"`, `"name": "t", "colour": 3`, `unknown field "colour"`},
		{"unknown wave field", `"count": 3,`, `"count": 3, "hp2": 1,`, `unknown field "hp2"`},
		{"negative wave at", `{"at": 10, "kind"`, `{"at": -10, "kind"`, `waves[1].at: -10 is negative`},
		{"negative section at", `{"at": 500, "song": 2}`, `{"at": -5, "song": 2}`, `sections[1].at: -5 is negative`},
		{"sections out of order", `{"at": 500, "song": 2}`, `{"at": 0, "song": 2}`, `sections[1].at: 0 is not after sections[0].at`},
		{"first section not at 0", `{"at": 0, "song": 1}, {"at": 500`, `{"at": 5, "song": 1}, {"at": 500`, `sections[0].at: the first section must start at 0`},
		{"no sections", `"sections": [{"at": 0, "song": 1}, {"at": 500, "song": 2}],`, `"sections": [],`, `sections: at least one`},
		{"song too big", `"song": 2}`, `"song": 256}`, `sections[1].song: 256 is out of range`},
		{"y out of bounds", `"count": 2, "y": 100}`, `"count": 2, "y": 1100}`, `waves[0].y: 1100 is out of range 0..1080`},
		{"x out of bounds", `"count": 2, "y": 100}`, `"count": 2, "y": 100, "x": 5000}`, `waves[0].x: 5000 is out of range`},
		{"members leave the screen", `"dy": 100`, `"dy": 500`, `waves[3].dy: member 2 would spawn at y=1200`},
		{"sine leaves the screen", `"amplitude": 100`, `"amplitude": 540`, `waves[1].amplitude: the sine path`},
		{"zero count", `"count": 2, "y": 100`, `"count": 0, "y": 100`, `waves[0].count: 0 is out of range 1..64`},
		{"huge count", `"count": 2, "y": 100`, `"count": 65, "y": 100`, `waves[0].count: 65 is out of range 1..64`},
		{"fractional count", `"count": 2, "y": 100`, `"count": 2.5, "y": 100`, `waves.count: expected int`},
		{"count as string", `"count": 2, "y": 100`, `"count": "2", "y": 100`, `waves.count: expected int, got JSON string`},
		{"missing y", `"count": 2, "y": 100}`, `"count": 2}`, `waves[0].y: missing (required)`},
		{"missing kind", `"kind": "turret", `, ``, `waves[2].kind: missing (required)`},
		{"bad drop", `"y": 1000}`, `"y": 1000, "drop": "gold"}`, `waves[2].drop: unknown drop "gold"`},
		{"negative hp", `"y": 1000}`, `"y": 1000, "hp": -3}`, `waves[2].hp: -3 is negative`},
		{"missing boss", `"boss": {"at"`, `"boss2": {"at"`, `unknown field "boss2"`},
		{"no boss", "", `{"scrollSpeed": 10, "sections": [{"at": 0, "song": 1}], "waves": []}`, `boss: missing`},
		{"bad boss kind", `"kind": "big"`, `"kind": "huge"`, `boss.kind: unknown kind "huge"`},
		{"boss hp zero", `"hp": 50`, `"hp": 0`, `boss.hp: 0 is out of range`},
		{"boss no phases", `"phases": [`, `"phases": [], "x": [`, `unknown field "x"`},
		{"boss first phase not 100", `"below": 100`, `"below": 90`, `boss.phases[0].below: the first phase must start at 100`},
		{"boss phases not decreasing", `"below": 40`, `"below": 100`, `boss.phases[1].below: 100 is not below boss.phases[0].below`},
		{"boss bad pattern", `"pattern": "ring"`, `"pattern": "laser"`, `boss.phases[1].pattern: unknown pattern "laser"`},
		{"boss zero interval", `"interval": 60, "bullets": 8`, `"interval": 0, "bullets": 8`, `boss.phases[1].interval: 0 is out of range 1..600`},
		{"scroll speed zero", `"scrollSpeed": 100`, `"scrollSpeed": 0`, `scrollSpeed: 0 is out of range 1..1000`},
		{"scroll speed missing", `"scrollSpeed": 100,`, ``, `scrollSpeed: missing (required)`},
		{"syntax error", `"name": "t",`, `"name": "t",,`, `invalid JSON at line 2`},
		{"truncated", "", `{"name": "t", "waves": [`, `truncated JSON`},
		{"empty file", "", ``, `empty file`},
		{"trailing data", "", baseStage + ` {}`, `trailing data`},
		{"not an object", "", `[1, 2]`, `(root): expected a stage object`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := tc.new
			if tc.old != "" {
				if !strings.Contains(baseStage, tc.old) {
					t.Fatalf("bad test: %q not in the base stage", tc.old)
				}
				src = strings.Replace(baseStage, tc.old, tc.new, 1)
			}
			st, err := ParseStage("stages/t.json", []byte(src))
			if err == nil {
				t.Fatalf("accepted: %+v", st)
			}
			want := "stages/t.json: " + tc.want
			if !strings.HasPrefix(err.Error(), want) {
				t.Errorf("error\n  %v\nwant prefix\n  %s", err, want)
			}
			var se *StageError
			if !errors.As(err, &se) || se.File != "stages/t.json" {
				t.Errorf("error %T does not carry the file name", err)
			}
		})
	}
}

func TestParseStageDefaultsAndExpansion(t *testing.T) {
	st := mustParse(t, "x.json", baseStage)
	w := st.Waves[3]
	d := enemyDefaults[EnemyHoming]
	if w.Speed != d.speed || w.HP != d.hp || w.Fire != d.fire || w.X != spawnXDefault {
		t.Errorf("homing wave defaults %+v", w)
	}
	if st.Enemies() != 2+2+1+3 {
		t.Errorf("%d enemies, want 8", st.Enemies())
	}
	for i := 1; i < len(st.spawns); i++ {
		if st.spawns[i].at < st.spawns[i-1].at {
			t.Fatal("spawn list not sorted by scroll position")
		}
	}
}

func FuzzParseStage(f *testing.F) {
	f.Add([]byte(baseStage))
	f.Add([]byte(emptyStage))
	f.Add([]byte(bossStage))
	f.Add([]byte(terrainStage))
	f.Add([]byte(`{"scrollSpeed": 1, "sections": [{"at": 0, "song": 1}], "terrain": {"step": 32, "ceiling": [0, 900], "floor": [0, 0], "blocks": [{"x": 0, "y": 0, "w": 16, "h": 16}]}}`))
	f.Add([]byte(`{"scrollSpeed": 1e308, "sections": [{"at": 1e400, "song": -1}]}`))
	f.Add([]byte(`{"waves": [{"count": 9999999999999999999}]}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := ParseStage("fuzz.json", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.json: ") {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		// A stage that parses can be played without panicking.
		s := NewSim(Config{Seed: 1, Players: 2, Stage: st})
		for i := 0; i < 30; i++ {
			s.Step()
		}
	})
}

// A hand-built Stage (not from ParseStage) with holes does not crash NewSim.
func TestHandBuiltStage(t *testing.T) {
	stages := []*Stage{
		{},
		{ScrollSpeed: -5, Waves: []Wave{{Kind: 99, Count: 3}, {Kind: EnemySine, Count: 2, Y: 500, Spacing: 10}}},
		{ScrollSpeed: 600, Boss: BossSpec{Variant: 7, Phases: []BossPhase{{Pattern: 200}}}},
		{ScrollSpeed: 100, Terrain: Terrain{Step: 0, Ceil: []float32{100, 200, 300}, Floor: []float32{100}, Blocks: []Block{{X: 10, Y: 10, W: 50, H: 50}}}},
	}
	for i, st := range stages {
		s := NewSim(Config{Seed: 1, Players: 1, Stage: st})
		for j := 0; j < 600; j++ {
			s.Step()
		}
		if i == 1 && s.Stage().Enemies() != 2 {
			t.Errorf("stage %d: %d enemies kept, want the 2 valid ones", i, s.Stage().Enemies())
		}
	}
	if len(stages[0].Sections) != 0 || stages[1].Waves[0].Kind != 99 {
		t.Error("NewSim modified the caller's Stage")
	}
}
