package game

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"github.com/rtype/rtype/assets"
	"github.com/rtype/rtype/game/stagefile"
)

// Stage is a validated stage script (see LoadStage, ParseStage and
// assets/stages/*.json). Positions are virtual px, speeds px/s, times
// ticks; "at" values are scroll positions in px (Stage.Scroll). A Stage is
// never modified by a Sim: one parsed Stage may be shared by concurrent
// simulations.
type Stage struct {
	Name        string
	ScrollSpeed float32 // px/s the playfield scrolls (Stage.Scroll grows by ScrollSpeed/TickRate per tick)
	Sections    []Section
	Waves       []Wave
	Boss        BossSpec
	Terrain     Terrain // ceiling, floor and structures (empty: open space)

	spawns []spawnEntry // waves expanded to one entry per enemy, sorted by At
	source []byte       // the file ParseStage read (Source)
}

// Source returns the stage file this Stage was parsed from (ParseStage, LoadStage), or nil for a
// Stage built in code. Do not modify it.
func (st *Stage) Source() []byte { return st.source }

// Hash returns the stagefile.Hash of the stage's file (Source): the stable name of the stage definition
// that replays and the lobby protocol carry; "" for a Stage built in code.
func (st *Stage) Hash() string {
	if st.source == nil {
		return ""
	}
	return stagefile.Hash(st.source)
}

// Section is a music section starting at scroll position At (px).
type Section struct {
	At   float32
	Song uint8
	Name string
}

// Wave is a group of Count enemies of one kind. Member i spawns when the
// scroll reaches At+i*Spacing, at (X, Y+i*DY).
type Wave struct {
	At        float32 // px of scroll
	Kind      uint8   // EnemyStraight ... EnemyCarrier
	Count     int     // 1..64
	X, Y      float32 // px, spawn position of the first member
	Spacing   float32 // px of scroll between members
	DY        float32 // px, vertical offset between members
	Speed     float32 // px/s (0 in the file: the kind's default)
	Amplitude float32 // px, sine amplitude (sine kind)
	HP        int     // hit points before player scaling (0 in the file: default)
	Fire      int     // ticks between shots before player scaling; 0 never fires
	Drop      uint8   // 0 none, else 1 + the KindPowerUp variant carried by the last member (1+PowerRed: a crystal)
	Surface   uint8   // ground kinds: SurfaceFloor or SurfaceCeil (from "ground", default by y)
	// Mounted: a turret on a structure (ground "deck": standing on it, "keel": hanging under it)
	// at the wave's y, not on the floor or ceiling.
	Mounted bool
}

// BossSpec is the stage boss. It appears when the scroll reaches At; the
// scroll then stops until the boss is destroyed (victory).
type BossSpec struct {
	At      float32 // px of scroll
	Variant uint8   // BossBig or BossSmall
	HP      int     // weak point HP before player scaling
	Song    uint8   // music while the boss is on screen
	Phases  []BossPhase
}

// BossPhase is one attack phase of the boss, active while the weak point's
// HP is at most Below percent of its maximum.
type BossPhase struct {
	Below    int     // percent 1..100 (the first phase is 100)
	Pattern  uint8   // PatternFan, PatternAimed, PatternRing, PatternSpawn
	Interval int     // ticks between volleys before player scaling
	Bullets  int     // bullets (or minions for PatternSpawn) per volley
	Speed    float32 // px/s of the bullets
	Open     int     // ticks the weak point stays open
	Closed   int     // ticks the weak point stays closed (0: always open)
	Sway     float32 // px, vertical sway amplitude of the boss
}

// Boss attack patterns (BossPhase.Pattern).
const (
	PatternFan   uint8 = 0 // bullets spread over 60 degrees towards the left
	PatternAimed uint8 = 1 // a tight burst aimed at the nearest ship
	PatternRing  uint8 = 2 // bullets on a full circle, rotating between volleys
	PatternSpawn uint8 = 3 // launches homing minions
)

// EnemyKindNames are the wave kinds of the stage JSON, indexed by Kind.Variant of KindEnemy.
var EnemyKindNames = [numEnemyKinds]string{"straight", "sine", "turret", "homing", "carrier", "walker", "hopper", "snake", "snake-body", "midboss", "engine"}

var (
	patternNames  = []string{"fan", "aimed", "ring", "spawn"}
	bossKindNames = []string{"big", "small", "wall", "core"}
	// dropNames are the stage JSON "drop" values, indexed by Wave.Drop-1 ("" none). "force"
	// and "laser" are accepted as older names of "crystal".
	dropNames = []string{"", "crystal", "", "", "bit", "speed", "missile"}
)

type spawnEntry struct {
	at     float32
	wave   int
	member int
	y      float32
	drop   uint8
}

// isGround reports whether enemy kind k stands on the floor or hangs from the ceiling.
func isGround(k uint8) bool { return k == EnemyTurret || k == EnemyWalker || k == EnemyHopper }

// Stage file limits.
const (
	maxWaves       = 1000
	maxWaveCount   = 64
	maxSpawns      = 20000
	maxScrollAt    = 1e6
	maxSections    = stagefile.MaxSections
	maxBossPhases  = 8
	maxEnemyHP     = 1000
	maxBossHP      = 20000
	spawnXDefault  = Width + 60
	maxSpawnX      = Width + 200
	maxStageNameSz = 64
)

// JSON shapes: pointers mark required fields or defaults.
type stageJSON struct {
	Name        string        `json:"name"`
	ScrollSpeed *float64      `json:"scrollSpeed"`
	Sections    []sectionJSON `json:"sections"`
	Waves       []waveJSON    `json:"waves"`
	Boss        *bossJSON     `json:"boss"`
	Terrain     *terrainJSON  `json:"terrain"`
}

// terrainJSON is the compact terrain form: column heights every step px of world x.
type terrainJSON struct {
	Theme   string      `json:"theme"`
	Start   float64     `json:"start"`
	Step    *float64    `json:"step"`
	Ceiling []float64   `json:"ceiling"`
	Floor   []float64   `json:"floor"`
	Blocks  []blockJSON `json:"blocks"`
}

type blockJSON struct {
	X *float64 `json:"x"`
	Y *float64 `json:"y"`
	W *float64 `json:"w"`
	H *float64 `json:"h"`
}

type sectionJSON struct {
	At   *float64 `json:"at"`
	Song *int     `json:"song"`
	Name string   `json:"name"`
}

type waveJSON struct {
	At        *float64 `json:"at"`
	Kind      *string  `json:"kind"`
	Count     *int     `json:"count"`
	X         *float64 `json:"x"`
	Y         *float64 `json:"y"`
	Spacing   float64  `json:"spacing"`
	DY        float64  `json:"dy"`
	Speed     float64  `json:"speed"`
	Amplitude float64  `json:"amplitude"`
	HP        int      `json:"hp"`
	Fire      *int     `json:"fire"`
	Drop      string   `json:"drop"`
	Ground    string   `json:"ground"`
}

type bossJSON struct {
	At     *float64    `json:"at"`
	Kind   *string     `json:"kind"`
	HP     *int        `json:"hp"`
	Song   *int        `json:"song"`
	Phases []phaseJSON `json:"phases"`
}

type phaseJSON struct {
	Below    *int     `json:"below"`
	Pattern  *string  `json:"pattern"`
	Interval *int     `json:"interval"`
	Bullets  *int     `json:"bullets"`
	Speed    *float64 `json:"speed"`
	Open     *int     `json:"open"`
	Closed   *int     `json:"closed"`
	Sway     float64  `json:"sway"`
}

// Per-kind defaults: speed px/s, HP, fire interval ticks (0 never), score.
var enemyDefaults = [numEnemyKinds]struct {
	speed float32
	hp    int
	fire  int
	score uint16
	w, h  uint16
}{
	EnemyStraight: {speed: 320, hp: 1, fire: 150, score: 100, w: 64, h: 48},
	EnemySine:     {speed: 260, hp: 1, fire: 200, score: 100, w: 56, h: 56},
	EnemyTurret:   {speed: 0, hp: 4, fire: 130, score: 300, w: 72, h: 64},
	EnemyHoming:   {speed: 300, hp: 2, fire: 0, score: 200, w: 56, h: 48},
	EnemyCarrier:  {speed: 150, hp: 4, fire: 0, score: 500, w: 96, h: 80},
	// Ground kinds: speed is along the ground in the world (px/s, walking left).
	EnemyWalker:    {speed: 70, hp: 3, fire: 170, score: 300, w: 64, h: 56},
	EnemyHopper:    {speed: 110, hp: 2, fire: 0, score: 200, w: 56, h: 48},
	EnemySnake:     {speed: 200, hp: 3, fire: 160, score: 300, w: 64, h: 64},
	EnemySnakeBody: {speed: 200, hp: 2, fire: 0, score: 100, w: 48, h: 48},
	EnemyMidboss:   {speed: 60, hp: 40, fire: 80, score: 3000, w: 200, h: 176},
	EnemyEngine:    {speed: 0, hp: 24, fire: 150, score: 2000, w: 168, h: 120},
}

// StageError is a stage file validation error: File names the file,
// Field the JSON path (e.g. "waves[3].kind") and Reason what is wrong.
type StageError struct {
	File, Field, Reason string
}

func (e *StageError) Error() string {
	if e.Field == "" {
		return e.File + ": " + e.Reason
	}
	return e.File + ": " + e.Field + ": " + e.Reason
}

// LoadStage loads a stage. A bare name ("stage1", "short", ...) is read
// from the embedded assets (assets/stages/<name>.json); anything else
// (containing a path separator or ending in ".json") is read from disk.
func LoadStage(name string) (*Stage, error) {
	if name == "" {
		return nil, errors.New("game: LoadStage: empty stage name")
	}
	if !strings.ContainsAny(name, `/\`) && !strings.HasSuffix(name, ".json") {
		p := assets.StagePath(name)
		data, err := fs.ReadFile(assets.Stages, p)
		if err != nil {
			return nil, fmt.Errorf("game: LoadStage: unknown stage %q (not in assets/stages): %w", name, err)
		}
		return ParseStage(p, data)
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("game: LoadStage: %w", err)
	}
	return ParseStage(name, data)
}

// ParseStage decodes and validates a stage file. file is only used in
// error messages, which have the form `<file>: <field>: <reason>`, e.g.
// `stages/short.json: waves[3].kind: unknown kind "blob"`. Unknown JSON
// fields, trailing data, missing required fields and out-of-range values
// are rejected. It never panics.
func ParseStage(file string, data []byte) (*Stage, error) {
	var raw stageJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return nil, decodeError(file, data, dec, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &StageError{File: file, Reason: "trailing data after the stage object"}
	}
	v := validator{file: file}
	st := v.stage(&raw)
	if v.err != nil {
		return nil, v.err
	}
	st.source = bytes.Clone(data)
	return st, nil
}

func decodeError(file string, data []byte, dec *json.Decoder, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		l, c := lineCol(data, syn.Offset)
		return &StageError{File: file, Reason: fmt.Sprintf("invalid JSON at line %d, column %d: %v", l, c, syn)}
	case errors.As(err, &typ):
		l, c := lineCol(data, typ.Offset)
		field := typ.Field
		if field == "" {
			field = "(root)"
		}
		want := typ.Type.String()
		if typ.Type == reflect.TypeOf(stageJSON{}) {
			want = "a stage object {...}"
		}
		return &StageError{File: file, Field: field, Reason: fmt.Sprintf("expected %s, got JSON %s (line %d, column %d)", want, typ.Value, l, c)}
	case errors.Is(err, io.EOF):
		return &StageError{File: file, Reason: "empty file"}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &StageError{File: file, Reason: "truncated JSON"}
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	off := dec.InputOffset()
	if name, ok := strings.CutPrefix(msg, "unknown field "); ok {
		// point at the field itself, not where the decoder stopped
		if re, err := regexp.Compile(regexp.QuoteMeta(name) + `\s*:`); err == nil {
			if loc := re.FindIndex(data); loc != nil {
				off = int64(loc[0])
			}
		}
	}
	l, c := lineCol(data, off)
	return &StageError{File: file, Reason: fmt.Sprintf("%s (near line %d, column %d)", msg, l, c)}
}

func lineCol(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	line, col = 1, 1
	for _, b := range data[:off] {
		if b == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

type validator struct {
	file string
	err  error
}

func (v *validator) fail(field, format string, args ...any) {
	if v.err == nil {
		v.err = &StageError{File: v.file, Field: field, Reason: fmt.Sprintf(format, args...)}
	}
}

func (v *validator) num(field string, p *float64, def, lo, hi float64) float32 {
	x := def
	if p != nil {
		x = *p
	}
	if math.IsNaN(x) || x < lo || x > hi {
		if x < 0 && lo >= 0 {
			v.fail(field, "%g is negative (allowed %g..%g)", x, lo, hi)
		} else {
			v.fail(field, "%g is out of range %g..%g", x, lo, hi)
		}
	}
	return float32(x)
}

func (v *validator) integer(field string, x, lo, hi int) int {
	if x < lo || x > hi {
		if x < 0 && lo >= 0 {
			v.fail(field, "%d is negative (allowed %d..%d)", x, lo, hi)
		} else {
			v.fail(field, "%d is out of range %d..%d", x, lo, hi)
		}
	}
	return x
}

func (v *validator) required(field string, missing bool) bool {
	if missing {
		v.fail(field, "missing (required)")
	}
	return !missing
}

func lookup(names []string, s string) (uint8, bool) {
	for i, n := range names {
		if n == s {
			return uint8(i), true
		}
	}
	return 0, false
}

func (v *validator) stage(raw *stageJSON) *Stage {
	st := &Stage{Name: raw.Name}
	if len(raw.Name) > maxStageNameSz {
		v.fail("name", "longer than %d bytes", maxStageNameSz)
	}
	if v.required("scrollSpeed", raw.ScrollSpeed == nil) {
		st.ScrollSpeed = v.num("scrollSpeed", raw.ScrollSpeed, 0, 1, 1000)
	}
	// Sections.
	if len(raw.Sections) == 0 {
		v.fail("sections", "at least one music section is required")
	}
	if len(raw.Sections) > maxSections {
		v.fail("sections", "%d sections, at most %d", len(raw.Sections), maxSections)
	}
	for i := range raw.Sections {
		r := &raw.Sections[i]
		f := fmt.Sprintf("sections[%d]", i)
		var s Section
		if v.required(f+".at", r.At == nil) {
			s.At = v.num(f+".at", r.At, 0, 0, maxScrollAt)
		}
		if v.required(f+".song", r.Song == nil) {
			s.Song = uint8(v.integer(f+".song", *r.Song, 0, 255))
		}
		s.Name = r.Name
		if i == 0 && r.At != nil && *r.At != 0 {
			v.fail(f+".at", "the first section must start at 0, got %g", *r.At)
		}
		if i > 0 && r.At != nil && raw.Sections[i-1].At != nil && *r.At <= *raw.Sections[i-1].At {
			v.fail(f+".at", "%g is not after sections[%d].at (%g)", *r.At, i-1, *raw.Sections[i-1].At)
		}
		st.Sections = append(st.Sections, s)
	}
	// Waves.
	if len(raw.Waves) > maxWaves {
		v.fail("waves", "%d waves, at most %d", len(raw.Waves), maxWaves)
	}
	total := 0
	for i := range raw.Waves {
		if v.err != nil {
			break
		}
		r := &raw.Waves[i]
		f := fmt.Sprintf("waves[%d]", i)
		var w Wave
		if v.required(f+".at", r.At == nil) {
			w.At = v.num(f+".at", r.At, 0, 0, maxScrollAt)
		}
		if v.required(f+".kind", r.Kind == nil) {
			k, ok := lookup(EnemyKindNames[:], *r.Kind)
			if !ok {
				v.fail(f+".kind", "unknown kind %q (want one of %s)", *r.Kind, strings.Join(EnemyKindNames[:], ", "))
			}
			w.Kind = k
		}
		if v.required(f+".count", r.Count == nil) {
			w.Count = v.integer(f+".count", *r.Count, 1, maxWaveCount)
		}
		w.X = v.num(f+".x", r.X, spawnXDefault, 0, maxSpawnX)
		if v.required(f+".y", r.Y == nil) {
			w.Y = v.num(f+".y", r.Y, 0, 0, Height)
		}
		w.Spacing = v.num(f+".spacing", &r.Spacing, 0, 0, 10000)
		w.DY = v.num(f+".dy", &r.DY, 0, -Height, Height)
		w.Speed = v.num(f+".speed", &r.Speed, 0, 0, 2000)
		w.Amplitude = v.num(f+".amplitude", &r.Amplitude, 0, 0, Height/2)
		w.HP = v.integer(f+".hp", r.HP, 0, maxEnemyHP)
		if v.err != nil {
			break
		}
		d := enemyDefaults[w.Kind]
		if w.Speed == 0 {
			w.Speed = d.speed
		}
		if w.HP == 0 {
			w.HP = d.hp
		}
		w.Fire = d.fire
		if r.Fire != nil {
			w.Fire = v.integer(f+".fire", *r.Fire, 0, 3600)
		}
		drop, ok := lookup(dropNames, r.Drop)
		if r.Drop == "force" || r.Drop == "laser" {
			drop, ok = 1+PowerRed, true
		}
		if !ok {
			v.fail(f+".drop", "unknown drop %q (want crystal, bit, speed, missile or none)", r.Drop)
		}
		w.Drop = drop
		switch r.Ground {
		case "":
			if isGround(w.Kind) {
				w.Surface = SurfaceFloor
				if w.Y < Height/2 {
					w.Surface = SurfaceCeil
				}
			}
		case "floor", "ceiling":
			if !isGround(w.Kind) {
				v.fail(f+".ground", "only turret, walker and hopper waves stand on the ground, not %q", EnemyKindNames[w.Kind])
			}
			w.Surface = SurfaceFloor
			if r.Ground == "ceiling" {
				w.Surface = SurfaceCeil
			}
		case "deck", "keel": // mounted on a structure at the wave's y
			if w.Kind != EnemyTurret {
				v.fail(f+".ground", "only turrets are mounted on a deck or a keel, not %q", EnemyKindNames[w.Kind])
			}
			w.Surface, w.Mounted = SurfaceFloor, true
			if r.Ground == "keel" {
				w.Surface = SurfaceCeil
			}
		default:
			v.fail(f+".ground", "unknown ground %q (want floor, ceiling, deck or keel)", r.Ground)
		}
		if w.Kind == EnemySnakeBody {
			v.fail(f+".kind", "snake-body is not a wave kind: a snake wave's members after the head are its body")
		}
		if last := float64(w.Y) + float64(w.Count-1)*float64(w.DY); last < 0 || last > Height {
			v.fail(f+".dy", "member %d would spawn at y=%g, outside 0..%d", w.Count-1, last, Height)
		}
		if w.Kind == EnemySine {
			lo, hi := float64(w.Y)-float64(w.Amplitude), float64(w.Y)+float64(w.Amplitude)
			if w.DY < 0 {
				lo += float64(w.Count-1) * float64(w.DY)
			} else {
				hi += float64(w.Count-1) * float64(w.DY)
			}
			if lo < 0 || hi > Height {
				v.fail(f+".amplitude", "the sine path y=%g..%g leaves the playfield 0..%d", lo, hi, Height)
			}
		}
		total += w.Count
		if total > maxSpawns {
			v.fail(f+".count", "more than %d enemies in the stage", maxSpawns)
		}
		st.Waves = append(st.Waves, w)
	}
	// Boss.
	if raw.Boss == nil {
		v.fail("boss", "missing (every stage ends with a boss)")
		return st
	}
	b := raw.Boss
	if v.required("boss.at", b.At == nil) {
		st.Boss.At = v.num("boss.at", b.At, 0, 0, maxScrollAt)
	}
	if v.required("boss.kind", b.Kind == nil) {
		k, ok := lookup(bossKindNames, *b.Kind)
		if !ok {
			v.fail("boss.kind", "unknown kind %q (want one of %s)", *b.Kind, strings.Join(bossKindNames, ", "))
		}
		st.Boss.Variant = k
	}
	if v.required("boss.hp", b.HP == nil) {
		st.Boss.HP = v.integer("boss.hp", *b.HP, 1, maxBossHP)
	}
	if v.required("boss.song", b.Song == nil) {
		st.Boss.Song = uint8(v.integer("boss.song", *b.Song, 0, 255))
	}
	if len(b.Phases) == 0 || len(b.Phases) > maxBossPhases {
		v.fail("boss.phases", "%d phases, want 1..%d", len(b.Phases), maxBossPhases)
	}
	for i := range b.Phases {
		if v.err != nil {
			break
		}
		r := &b.Phases[i]
		f := fmt.Sprintf("boss.phases[%d]", i)
		var p BossPhase
		if v.required(f+".below", r.Below == nil) {
			p.Below = v.integer(f+".below", *r.Below, 1, 100)
			if i == 0 && p.Below != 100 {
				v.fail(f+".below", "the first phase must start at 100 (percent), got %d", p.Below)
			}
			if i > 0 && b.Phases[i-1].Below != nil && p.Below >= *b.Phases[i-1].Below {
				v.fail(f+".below", "%d is not below boss.phases[%d].below (%d)", p.Below, i-1, *b.Phases[i-1].Below)
			}
		}
		if v.required(f+".pattern", r.Pattern == nil) {
			k, ok := lookup(patternNames, *r.Pattern)
			if !ok {
				v.fail(f+".pattern", "unknown pattern %q (want one of %s)", *r.Pattern, strings.Join(patternNames, ", "))
			}
			p.Pattern = k
		}
		if v.required(f+".interval", r.Interval == nil) {
			p.Interval = v.integer(f+".interval", *r.Interval, 1, 600)
		}
		if v.required(f+".bullets", r.Bullets == nil) {
			p.Bullets = v.integer(f+".bullets", *r.Bullets, 1, 64)
		}
		if v.required(f+".speed", r.Speed == nil) {
			p.Speed = v.num(f+".speed", r.Speed, 0, 30, 1500)
		}
		if v.required(f+".open", r.Open == nil) {
			p.Open = v.integer(f+".open", *r.Open, 1, 3600)
		}
		if v.required(f+".closed", r.Closed == nil) {
			p.Closed = v.integer(f+".closed", *r.Closed, 0, 3600)
		}
		p.Sway = v.num(f+".sway", &r.Sway, 0, 0, 400)
		st.Boss.Phases = append(st.Boss.Phases, p)
	}
	if v.err != nil {
		return st
	}
	if raw.Terrain != nil {
		v.terrain(raw.Terrain, &st.Terrain)
		if v.err != nil {
			return st
		}
	}
	st.expand()
	return st
}

// terrain validates the "terrain" object into t.
func (v *validator) terrain(r *terrainJSON, t *Terrain) {
	t.Theme = ThemeBase
	if r.Theme != "" {
		th, ok := lookup(ThemeNames, r.Theme)
		if !ok {
			v.fail("terrain.theme", "unknown theme %q (want one of %s)", r.Theme, strings.Join(ThemeNames, ", "))
		}
		t.Theme = th
	}
	t.Start = v.num("terrain.start", &r.Start, 0, 0, maxScrollAt)
	if v.required("terrain.step", r.Step == nil) {
		t.Step = v.num("terrain.step", r.Step, 0, minTerrainStep, maxTerrainStep)
	}
	if len(r.Ceiling) != len(r.Floor) {
		v.fail("terrain.floor", "%d samples but terrain.ceiling has %d (one height per column in each)", len(r.Floor), len(r.Ceiling))
	}
	if len(r.Ceiling) == 1 || len(r.Ceiling) > maxTerrainLen {
		v.fail("terrain.ceiling", "%d samples, want 0 or 2..%d", len(r.Ceiling), maxTerrainLen)
	}
	if v.err != nil {
		return
	}
	hmax := float64(Height - MinCorridor)
	for i := range r.Ceiling {
		c := v.num(fmt.Sprintf("terrain.ceiling[%d]", i), &r.Ceiling[i], 0, 0, hmax)
		f := v.num(fmt.Sprintf("terrain.floor[%d]", i), &r.Floor[i], 0, 0, hmax)
		if v.err != nil {
			return
		}
		if gap := Height - c - f; gap < MinCorridor {
			v.fail(fmt.Sprintf("terrain.floor[%d]", i), "leaves a corridor of %g px with terrain.ceiling[%d] = %g (at least %d px, so a ship can pass)", gap, i, c, MinCorridor)
			return
		}
		t.Ceil = append(t.Ceil, c)
		t.Floor = append(t.Floor, f)
	}
	if len(r.Blocks) > maxBlocks {
		v.fail("terrain.blocks", "%d blocks, at most %d", len(r.Blocks), maxBlocks)
		return
	}
	for i := range r.Blocks {
		b := &r.Blocks[i]
		f := fmt.Sprintf("terrain.blocks[%d]", i)
		var blk Block
		if v.required(f+".x", b.X == nil) {
			blk.X = v.num(f+".x", b.X, 0, 0, maxScrollAt+Width)
		}
		if v.required(f+".y", b.Y == nil) {
			blk.Y = v.num(f+".y", b.Y, 0, 0, Height-16)
		}
		if v.required(f+".w", b.W == nil) {
			blk.W = v.num(f+".w", b.W, 0, 16, 4000)
		}
		if v.required(f+".h", b.H == nil) {
			blk.H = v.num(f+".h", b.H, 0, 16, Height)
		}
		if v.err != nil {
			return
		}
		if blk.Y+blk.H > Height {
			v.fail(f+".h", "the block reaches y=%g, below the playfield (0..%d)", blk.Y+blk.H, Height)
			return
		}
		ceil, floor := t.Span(blk.X, blk.X+blk.W)
		if blk.Y-ceil < MinCorridor && floor-(blk.Y+blk.H) < MinCorridor {
			v.fail(f, "closes the corridor: %g px free above it and %g px below (one side needs at least %d px)",
				blk.Y-ceil, floor-(blk.Y+blk.H), MinCorridor)
			return
		}
		t.Blocks = append(t.Blocks, blk)
	}
	t.index()
}

// expand builds the sorted per-enemy spawn list.
func (st *Stage) expand() {
	for i := range st.Waves {
		w := &st.Waves[i]
		for j := 0; j < w.Count; j++ {
			e := spawnEntry{
				at:     w.At + float32(float32(j)*w.Spacing),
				wave:   i,
				member: j,
				y:      w.Y + float32(float32(j)*w.DY),
			}
			if j == w.Count-1 {
				e.drop = w.Drop
			}
			st.spawns = append(st.spawns, e)
		}
	}
	sort.SliceStable(st.spawns, func(a, b int) bool { return st.spawns[a].at < st.spawns[b].at })
}

// Enemies returns the number of enemies the stage spawns (boss excluded).
func (st *Stage) Enemies() int { return len(st.spawns) }

// sanitize returns st if it came from ParseStage, or a repaired copy of a
// hand-built Stage (missing sections or boss phases, unknown kinds, bad
// speeds) so that NewSim never panics on it.
func sanitize(st *Stage) *Stage {
	ok := len(st.Sections) > 0 && len(st.Boss.Phases) > 0 && st.Boss.Variant <= BossCore &&
		st.ScrollSpeed > 0 && st.ScrollSpeed <= 1000 && st.Boss.HP > 0
	total := 0
	for i := range st.Waves {
		w := &st.Waves[i]
		total += w.Count
		if w.Kind >= numEnemyKinds || w.Count < 0 || w.Count > maxWaveCount || w.Drop > numPowers || w.HP < 0 || w.Fire < 0 {
			ok = false
		}
	}
	tr := &st.Terrain
	if len(tr.Ceil) != len(tr.Floor) || len(tr.Ceil) == 1 || (len(tr.Ceil)+len(tr.Blocks) > 0 && !(tr.Step >= minTerrainStep && tr.Step <= maxTerrainStep)) ||
		(len(tr.Blocks) > 0 && tr.cols == nil) {
		ok = false
	}
	if ok && total == len(st.spawns) {
		return st
	}
	c := *st
	c.spawns = nil
	c.Terrain = sanitizeTerrain(st.Terrain)
	if len(c.Sections) == 0 {
		c.Sections = []Section{{At: 0}}
	}
	if !(c.ScrollSpeed > 0 && c.ScrollSpeed <= 1000) {
		c.ScrollSpeed = 120
	}
	if c.Boss.Variant > BossCore {
		c.Boss.Variant = BossSmall
	}
	if c.Boss.HP <= 0 {
		c.Boss.HP = 1
	}
	if len(c.Boss.Phases) == 0 {
		c.Boss.Phases = []BossPhase{{Below: 100, Pattern: PatternFan, Interval: 60, Bullets: 5, Speed: 300, Open: 60, Closed: 60}}
	}
	ph := make([]BossPhase, len(c.Boss.Phases))
	copy(ph, c.Boss.Phases)
	for i := range ph {
		p := &ph[i]
		p.Pattern = min(p.Pattern, PatternSpawn)
		p.Interval = max(p.Interval, 1)
		p.Bullets = min(max(p.Bullets, 1), 64)
		p.Open = min(max(p.Open, 1), 3600)
		p.Closed = min(max(p.Closed, 0), 3600)
	}
	c.Boss.Phases = ph
	c.Waves = nil
	for _, w := range st.Waves {
		if w.Kind < numEnemyKinds && w.Count > 0 && w.Count <= maxWaveCount && w.Drop <= numPowers && w.HP >= 0 && w.Fire >= 0 {
			c.Waves = append(c.Waves, w)
		}
	}
	c.expand()
	return &c
}

// sanitizeTerrain returns a usable copy of a hand-built terrain: equal sample counts, a valid
// step and the block index built.
func sanitizeTerrain(t Terrain) Terrain {
	n := min(len(t.Ceil), len(t.Floor))
	if n < 2 {
		n = 0
	}
	t.Ceil = append([]float32(nil), t.Ceil[:n]...)
	t.Floor = append([]float32(nil), t.Floor[:n]...)
	t.Blocks = append([]Block(nil), t.Blocks...)
	if !(t.Step >= minTerrainStep && t.Step <= maxTerrainStep) {
		t.Step = 128
	}
	t.index()
	return t
}
