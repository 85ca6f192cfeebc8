package game

import (
	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/game/stagefile"
)

// Gameplay tuning. Distances px, speeds px/s, times ticks.
const (
	shipW, shipH     = 80, 36
	shipSpeed        = 480                  // px/s
	shipStep         = shipSpeed / TickRate // 8 px/tick
	shipDiag         = 5.656854             // shipStep/sqrt(2), px/tick
	shipSpawnX       = 200
	startLives       = 3   // Normal's (DifficultyRules.Lives)
	fireCooldown     = 8   // ticks between normal shots
	chargeDelay      = 10  // ticks fire is held before charging starts
	chargeTicks      = 60  // ticks from 0 to full charge (255)
	respawnDelay     = 90  // ticks between death and respawn
	invulnTicks      = 120 // ticks of invulnerability at the start of the game (a fixed grace, as a respawn's)
	continueTicks    = ContinueTicks
	continueRespawn  = 30 // ticks from taking a continue to the new ship
	shotSpeed        = 1500
	laserSpeed       = 1800
	beamSpeed        = 1800
	enemyBulletSpeed = 360
	forceSize        = 56
	forceAttachDX    = shipW/2 + forceSize/2 + 2 // centre distance when attached
	forceAheadX      = Width - 300               // where a launched Force stops
	forceLaunchSpeed = 900
	forceRecallSpeed = 900
	forceFollowSpeed = 240 // vertical following of a detached Force
	forceHitEvery    = 6   // ticks between Force contact damage
	forceAttachLock  = 20  // ticks after a launch during which it cannot re-attach
	powerUpSize      = 48
	weakPointSize    = 72 // boss weak point, px square
	powerUpDrift     = -60
	maxLaser         = 2
	maxForceLevel    = 3
	bossScore        = 10000
	bossDyingTicks   = 120
	bossEnterSpeed   = 240
	offscreenMargin  = 300
	bitSize          = 36
	// MaxSpeed is the number of speed-ups a ship can take (Player.Speed).
	MaxSpeed = 3
)

// Beam (charged shot) levels 1..3: size and damage.
var beamLevels = [4]struct {
	w, h   uint16
	damage uint16
}{{}, {120, 24, 4}, {200, 44, 8}, {300, 72, 16}}

// ChargeAt returns the beam charge 0..255 at tick of a ship whose Player.ChargeFrom is from
// (0: fire not held): 0 for the first chargeDelay (10) ticks fire is held, then rising to 255
// over chargeTicks (60) ticks. Server and clients compute it alike (docs/PROTOCOL.md §4).
func ChargeAt(from uint32, tick ecs.Tick) uint8 {
	if from == 0 || uint32(tick) < from {
		return 0
	}
	return chargeOf(int(uint32(tick)-from) + 1)
}

// chargeOf is the beam charge 0..255 once fire has been held for held ticks (the press tick is 1).
func chargeOf(held int) uint8 {
	if held <= chargeDelay {
		return 0
	}
	return uint8(min(255, (held-chargeDelay)*255/chargeTicks))
}

// ChargeLevel returns the beam level 0..3 of a charge value (ChargeAt)
// (0: releasing fire fires no beam). Thresholds: 60, 150, 255.
func ChargeLevel(charge uint8) int {
	switch {
	case charge == 255:
		return 3
	case charge >= 150:
		return 2
	case charge >= 60:
		return 1
	}
	return 0
}

// Config configures a simulation.
type Config struct {
	Seed    uint64 // PRNG seed; same seed + same inputs = same world
	Players int    // 1..MaxPlayers ships in slots 0..Players-1 (clamped)
	Stage   *Stage // stage script; nil loads the embedded stagefile.Default
	// Difficulty is the level chosen in the lobby (zero: Normal).
	Difficulty rules.Difficulty
	// Section starts the game at that section of the stage (practice): 0 is the start, 1 ..
	// len(Stage.Sections)-1 a later section (its waves only), len(Stage.Sections) the boss
	// (Stage.PracticeBoss). Out of range: the start.
	Section int
	// Run is an arcade run: with two or more stages the game plays them in order (arcade.go;
	// Stage is then ignored and Section applies to the first). Nil entries are the embedded
	// stagefile.Default.
	Run []*Stage
	// InfiniteLives is the practice trainer: a lost ship costs no life (it comes back after its
	// respawn delay, with the grace, as ever; Stats still count the deaths).
	InfiniteLives bool
}

// PracticeBoss is the Config.Section that starts the stage at its boss (stagefile.Script).
func (st *Stage) PracticeBoss() int { return len(st.Sections) }

// practiceBossLead is how far before the boss's position (px of scroll) a boss practice starts.
const practiceBossLead = 240

// ContinueTicks is how long (60 Hz ticks) a player whose last ship is lost may take a continue
// by pressing fire ("CONTINUE? 9…"); the count starts at the DEATH with lives 0.
const ContinueTicks = 10 * TickRate

// Sim is one deterministic game. It is not safe for concurrent use.
type Sim struct {
	w     *ecs.World
	c     *Components
	stage *Stage
	rng   rng
	n     int // players at start (difficulty)
	diff  rules.Difficulty
	// infinite: Config.InfiniteLives (a lost ship costs no life).
	infinite bool
	rules    rules.DifficultyRules

	inputs   [rules.MaxPlayers]Buttons
	ships    [rules.MaxPlayers]ecs.Entity
	stageEnt ecs.Entity
	boss     ecs.Entity
	weak     ecs.Entity
	parts    [maxBossParts]ecs.Entity // the boss's tail or tentacle segments (BossCtl.Parts of them)

	spawnIdx    int  // next entry of stage.spawns
	bossSpawned bool // boss entity created (scroll stopped)
	bossDead    bool // boss death animation finished
	bossKilled  bool // weak point destroyed this tick
	over        bool
	result      rules.Result
	musicSent   bool

	events []Event

	// Per-slot figures (players.go): stats counts them; away holds suspended slots' records;
	// removed keeps a removed slot's score.
	stats   [rules.MaxPlayers]PlayerStats
	away    [rules.MaxPlayers]awaySlot
	removed [rules.MaxPlayers]PlayerStats
	// lastDeath is where each slot's ship was last destroyed (safe respawns avoid it).
	lastDeath [rules.MaxPlayers]deathSpot

	// Queries (built once).
	qPK    *ecs.Query2[Position, Kind]
	qVel   *ecs.Query2[Velocity, Position]
	qEnemy *ecs.Query3[Enemy, Position, Velocity]
	qLife  *ecs.Query1[Lifetime]
	arm    arsenal // weapon queries (weapons.go)

	// Reused per-tick buffers.
	grid    grid
	doomed  []ecs.Entity
	pending []bulletReq
	kills   []killReq
	pickups []pickup
	deaths  []int
	probes  []probe
	hashBuf []byte

	rec Recorder // SetRecorder (record.go)

	run arcade // an arcade run's state (arcade.go)
}

type bulletReq struct {
	kind    EntityKind
	variant uint8
	x, y    float32
	vx, vy  float32
	damage  uint16
	slot    uint8
	pierce  uint8
	life    uint16  // explosions; player bullets: a Lifetime when > 0
	guide   uint8   // player bullets: Guide.Mode (0: flies straight)
	left    uint8   // Guide.Left
	speed   float32 // Guide.Speed
}

type killReq struct {
	e    ecs.Entity
	slot int // scorer, -1 none
}

// DefaultStage loads the embedded stagefile.Default, what a nil Stage plays (a broken embedded
// file is a build defect and panics).
func DefaultStage() *Stage {
	st, err := LoadStage(stagefile.Default)
	if err != nil {
		panic("game: embedded " + stagefile.Default + " is invalid: " + err.Error())
	}
	return st
}

// NewSim creates a simulation with the ships of slots 0..Players-1 and the
// stage singleton. Players is clamped to 1..MaxPlayers. A nil Stage loads
// DefaultStage (which always parses; a broken embedded file is a
// build defect and panics).
func NewSim(cfg Config) *Sim {
	st := cfg.Stage
	var s0 Sim
	if r := s0.initRun(cfg.Run); r != nil {
		st = r
	}
	if st == nil {
		st = DefaultStage()
	}
	st = sanitize(st)
	n := cfg.Players
	if n < 1 {
		n = 1
	}
	if n > rules.MaxPlayers {
		n = rules.MaxPlayers
	}
	w := ecs.NewWorld()
	s := &Sim{
		w:     w,
		c:     RegisterComponents(w),
		stage: st,
		rng:   rng{state: cfg.Seed},
		n:     n,
		diff:  cfg.Difficulty,
		rules: cfg.Difficulty.Rules(),
		run:   s0.run,

		infinite: cfg.InfiniteLives,
	}
	s.qPK = ecs.NewQuery2[Position, Kind](w)
	s.qVel = ecs.NewQuery2[Velocity, Position](w)
	s.qEnemy = ecs.NewQuery3[Enemy, Position, Velocity](w)
	s.qLife = ecs.NewQuery1[Lifetime](w)
	s.arm.init(w)
	s.grid.init()
	s.events = make([]Event, 0, 16)
	s.doomed = make([]ecs.Entity, 0, 64)
	s.pending = make([]bulletReq, 0, 64)
	s.kills = make([]killReq, 0, 32)
	s.probes = make([]probe, 0, 64)
	s.pickups = make([]pickup, 0, 8)
	s.deaths = make([]int, 0, rules.MaxPlayers)

	s.stageEnt = w.Create()
	s.c.Kind.Set(s.stageEnt, Kind{Kind: KindStage})
	start, section := s.startAt(cfg.Section)
	s.c.Stage.Set(s.stageEnt, StageState{Section: uint8(section)})
	s.c.Position.Set(s.stageEnt, Position{X: start}) // X: the scroll, moved by sysMove
	s.c.Velocity.Set(s.stageEnt, Velocity{X: s.stage.ScrollSpeed})
	for slot := 0; slot < n; slot++ {
		e := w.Create()
		s.ships[slot] = e
		y := spawnY(slot, n)
		if start > 0 { // practice: inside the corridor there
			y = s.respawnY(slot)
		}
		s.c.Position.Set(e, Position{shipSpawnX, y})
		s.c.Velocity.Set(e, Velocity{})
		s.c.Kind.Set(e, Kind{Kind: KindPlayer, Variant: uint8(slot)})
		s.c.Player.Set(e, Player{Slot: uint8(slot), Lives: s.rules.Lives, Flags: PlayerInvulnerable})
		s.c.Size.Set(e, SizeOf(Kind{Kind: KindPlayer}))
		s.c.Ship.Set(e, Ship{Invuln: invulnTicks})
	}
	return s
}

// startAt returns the scroll a game starting at section i begins at, and the section it is in;
// the waves before it are skipped (spawnIdx).
func (s *Sim) startAt(i int) (scroll float32, section int) {
	secs := s.stage.Sections
	switch {
	case i <= 0 || i > len(secs):
		return 0, 0
	case i == len(secs): // the boss
		scroll = max(0, s.stage.Boss.At-practiceBossLead)
		for section = len(secs) - 1; section > 0 && secs[section].At > scroll; section-- {
		}
	default:
		scroll, section = secs[i].At, i
	}
	for s.spawnIdx < len(s.stage.spawns) && s.stage.spawns[s.spawnIdx].at < scroll {
		s.spawnIdx++
	}
	return scroll, section
}

func spawnY(slot, n int) float32 { return float32(Height * (slot + 1) / (n + 1)) }

// World returns the simulation's ecs world (for replication: read it, and
// drain its events with ClearEvents once per tick).
func (s *Sim) World() *ecs.World { return s.w }

// Components returns the typed stores of the simulation world.
func (s *Sim) Components() *Components { return s.c }

// Stage returns the stage being played (in an arcade run, the current one: RunIndex).
func (s *Sim) Stage() *Stage { return s.stage }

// Tick returns the tick of the current state (0 before the first Step).
func (s *Sim) Tick() ecs.Tick { return s.w.Tick() }

// SetInput sets the buttons slot holds from the next Step on (they stay
// held until the next SetInput). Invalid slots are ignored.
func (s *Sim) SetInput(slot int, in Input) {
	if slot < 0 || slot >= rules.MaxPlayers {
		return
	}
	b := in.Buttons & (BtnUp | BtnDown | BtnLeft | BtnRight | BtnFire | BtnForce)
	if b != s.inputs[slot] {
		s.inputs[slot] = b
		s.record(OpInput, slot, b)
	}
}

// PlayerEntity returns the ship of slot, or ecs.Nil if the slot is empty
// (never joined or removed). The ship entity stays the same across deaths.
func (s *Sim) PlayerEntity(slot int) ecs.Entity {
	if slot < 0 || slot >= rules.MaxPlayers {
		return ecs.Nil
	}
	return s.ships[slot]
}

// RemovePlayer destroys the ship of slot (and its Force and Bits); the game goes on
// with the others. When no ship is left, the next Step ends the game with
// ResultAborted.
func (s *Sim) RemovePlayer(slot int) {
	if slot < 0 || slot >= rules.MaxPlayers {
		return
	}
	if s.away[slot].valid { // suspended: its record goes
		s.record(OpRemove, slot, 0)
		s.removed[slot].Score = s.away[slot].player.Score
		s.away[slot] = awaySlot{}
		return
	}
	if s.ships[slot] == ecs.Nil {
		return
	}
	s.record(OpRemove, slot, 0)
	e := s.ships[slot]
	s.removed[slot].Score = s.c.Player.Get(e).Score
	if sh := s.c.Ship.Get(e); sh != nil {
		s.loseArsenal(sh)
	}
	s.w.Destroy(e)
	s.ships[slot] = ecs.Nil
	s.inputs[slot] = 0
}

// Over reports whether the game has ended and how.
func (s *Sim) Over() (bool, rules.Result) { return s.over, s.result }

// BossFight reports whether the stage's boss is out (the scroll has stopped for the fight).
func (s *Sim) BossFight() bool { return s.bossSpawned }

// Events returns the game events of the last Step. The slice is reused:
// it is valid until the next Step.
func (s *Sim) Events() []Event { return s.events }

// Step advances the simulation by one tick (see the package doc for the
// system order). It is a no-op once the game is over.
func (s *Sim) Step() {
	if s.over {
		s.events = s.events[:0]
		return
	}
	s.events = s.events[:0]
	s.w.Advance()
	s.sysInput()
	s.sysForce()
	s.sysBits()
	s.sysAI()
	s.flushPending()
	s.sysMove()
	s.sysWeapons()
	s.sysSpawn()
	s.sysCollide()
	s.sysDamage()
	s.sysTimers()
	s.sysScroll()
	s.sysCleanup()
	s.sysEnd()
	if s.rec != nil {
		s.rec.Stepped(s)
	}
}

func (s *Sim) emit(ev Event) { s.events = append(s.events, ev) }

// spawn creates a moving entity with Position, Velocity, Kind and its Size (SizeOf).
func (s *Sim) spawn(k EntityKind, variant uint8, x, y, vx, vy float32) ecs.Entity {
	e := s.w.Create()
	s.c.Position.Set(e, Position{x, y})
	s.c.Velocity.Set(e, Velocity{vx, vy})
	s.c.Kind.Set(e, Kind{Kind: k, Variant: variant})
	s.c.Size.Set(e, SizeOf(Kind{Kind: k, Variant: variant}))
	return e
}

// queue defers the creation of a bullet, beam or explosion until no query
// is being iterated.
func (s *Sim) queue(r bulletReq) { s.pending = append(s.pending, r) }

func (s *Sim) flushPending() {
	for i := range s.pending {
		r := &s.pending[i]
		if r.kind == KindEnemy {
			s.spawnMinion(r.x, r.y)
			continue
		}
		e := s.spawn(r.kind, r.variant, r.x, r.y, r.vx, r.vy)
		switch r.kind {
		case KindPlayerBullet, KindBeam:
			s.c.Shot.Set(e, Shot{Damage: r.damage, Slot: r.slot, Pierce: r.pierce})
			if int(r.slot) < rules.MaxPlayers {
				s.stats[r.slot].Shots++
			}
			if r.guide != 0 {
				s.c.Guide.Set(e, Guide{Mode: r.guide, Left: r.left, Speed: r.speed})
			}
			if r.life > 0 {
				s.c.Lifetime.Set(e, Lifetime{Ticks: r.life})
			}
		case KindExplosion:
			s.c.Lifetime.Set(e, Lifetime{Ticks: r.life})
		}
	}
	s.pending = s.pending[:0]
}

func (s *Sim) explosion(x, y float32, variant uint8) {
	vi, _ := KindExplosion.Info().Variant(variant)
	s.queue(bulletReq{kind: KindExplosion, variant: variant, x: x, y: y, life: vi.Life})
}

// setPos writes a Position and marks it changed only when it moved.
func (s *Sim) setPos(e ecs.Entity, p *Position, x, y float32) {
	if p.X != x || p.Y != y {
		p.X, p.Y = x, y
		s.c.Position.MarkChanged(e)
	}
}

func (s *Sim) setVel(e ecs.Entity, v *Velocity, vx, vy float32) {
	if v.X != vx || v.Y != vy {
		v.X, v.Y = vx, vy
		s.c.Velocity.MarkChanged(e)
	}
}

// liveShip reports whether e is a ship that is in play (not dead).
func (s *Sim) liveShip(slot int) (ecs.Entity, *Position, bool) {
	e := s.ships[slot]
	if e == ecs.Nil {
		return ecs.Nil, nil, false
	}
	p := s.c.Player.Get(e)
	if p == nil || p.Flags&PlayerDead != 0 {
		return ecs.Nil, nil, false
	}
	return e, s.c.Position.Get(e), true
}

// nearestShip returns the position of the live ship closest to (x, y).
func (s *Sim) nearestShip(x, y float32) (tx, ty float32, ok bool) {
	best := float32(0)
	for slot := 0; slot < rules.MaxPlayers; slot++ {
		_, p, live := s.liveShip(slot)
		if !live {
			continue
		}
		dx, dy := p.X-x, p.Y-y
		d := float32(dx*dx) + float32(dy*dy)
		if !ok || d < best {
			best, tx, ty, ok = d, p.X, p.Y, true
		}
	}
	return
}

// Difficulty returns the game's difficulty level.
func (s *Sim) Difficulty() rules.Difficulty { return s.diff }

// scaleBossHP scales the boss's weak point like scaleHP but closer to the players' firepower,
// x(3n+1)/4 (4 players x3.25), so a boss fight lasts about as long with four players as with one.
func (s *Sim) scaleBossHP(hp int) int {
	return min(65535, max(1, hp*(3*s.n+1)*s.rules.HPPct/400))
}

// scaleHP applies the player-count difficulty to hit points, x(n+1)/2, then the level's HPPct.
func (s *Sim) scaleHP(hp int) int {
	v := hp * (s.n + 1) * s.rules.HPPct / 200
	if v < 1 {
		v = 1
	}
	if v > 65535 {
		v = 65535
	}
	return v
}

// scaleFire applies the player-count difficulty to a fire interval, x12/(n+11) (4 players: 1.25
// times the shots, shared among four targets), then the level's FirePct.
func (s *Sim) scaleFire(ticks int) int {
	if ticks <= 0 {
		return 0
	}
	v := ticks * 12 * s.rules.FirePct / ((s.n + 11) * 100)
	if v < 1 {
		v = 1
	}
	return v
}

// bulletSpeed applies the level's BulletPct to an enemy bullet speed (px/s).
func (s *Sim) bulletSpeed(v float32) float32 { return v * float32(s.rules.BulletPct) / 100 }

// ---- systems 8..11 ----

// sysTimers: respawn, invulnerability, lifetimes.
func (s *Sim) sysTimers() {
	for slot := 0; slot < rules.MaxPlayers; slot++ {
		e := s.ships[slot]
		if e == ecs.Nil {
			continue
		}
		sh, pl := s.c.Ship.Get(e), s.c.Player.Get(e)
		if pl.Flags&PlayerContinue != 0 {
			s.continueTimer(slot, e, sh)
			continue
		}
		if pl.Flags&PlayerDead != 0 {
			if pl.Lives > 0 && sh.Respawn > 0 {
				sh.Respawn--
				if sh.Respawn == 0 {
					s.respawn(slot, e, sh)
				}
			}
			continue
		}
		// The grace is fixed (the arcade game's): moving or firing does not end it, and the ship
		// blinks (PlayerInvulnerable, the client's shipAlpha) for the whole of it.
		if sh.Invuln > 0 {
			sh.Invuln--
			if sh.Invuln == 0 {
				s.c.Player.Mut(e).Flags &^= PlayerInvulnerable
			}
		}
	}
	for it := s.qLife.Iter(); it.Next(); {
		l := it.Get()
		if l.Ticks <= 1 {
			s.doomed = append(s.doomed, it.Entity())
			continue
		}
		l.Ticks--
	}
	s.flushDoomed()
}

func (s *Sim) flushDoomed() {
	for _, e := range s.doomed {
		s.w.Destroy(e)
	}
	s.doomed = s.doomed[:0]
}

// sysScroll advances the stage scroll (stopped once the boss is out) and
// emits EventMusic on section changes.
func (s *Sim) sysScroll() {
	if !s.musicSent {
		s.musicSent = true
		sec := min(int(s.c.Stage.Get(s.stageEnt).Section), len(s.stage.Sections)-1) // the boss's is past the list
		s.emit(Event{Kind: EventMusic, Song: s.stage.Sections[sec].Song})
	}
	if s.bossSpawned {
		s.setVel(s.stageEnt, s.c.Velocity.Get(s.stageEnt), 0, 0) // the scroll stops
		return
	}
	st := s.c.Stage.Get(s.stageEnt)
	next := int(st.Section) + 1
	if next < len(s.stage.Sections) && s.Scroll() >= s.stage.Sections[next].At {
		s.c.Stage.Mut(s.stageEnt).Section = uint8(next)
		s.emit(Event{Kind: EventMusic, Song: s.stage.Sections[next].Song})
	}
}

// ExpiresOutsideField reports whether entities of kind k are destroyed as soon as their Position
// leaves the field (OutsideField): bullets, beams, enemies and power-ups (KindInfo.ExpiresOutside).
// Clients delete them alike, so the server sends no DEL_ENT for them (docs/PROTOCOL.md §5.6).
func ExpiresOutsideField(k EntityKind) bool { return k.Info().ExpiresOutside }

// ExpirySlack is how far (virtual px) past the field's edge a client deletes an entity that
// ExpiresOutsideField by itself (docs/PROTOCOL.md §5.6): more than the 0.5 px dead-reckoning bound,
// so a client never deletes what the server still has.
const ExpirySlack = 1

// OutsideField reports whether (x, y) virtual px is more than slack px outside the field: the
// 1920×1080 playfield with a margin of 300 px on every side.
func OutsideField(x, y, slack float32) bool {
	m := offscreenMargin + slack
	return x < -m || x > Width+m || y < -m || y > Height+m
}

// terrain returns the stage's terrain, or nil when the stage is open space.
func (s *Sim) terrain() *Terrain {
	if s.stage.Terrain.Empty() {
		return nil
	}
	return &s.stage.Terrain
}

// pushOut moves ship e vertically out of the ceiling or floor it overlaps (an invulnerable,
// just respawned ship is never destroyed by terrain: it is carried along instead).
func (s *Sim) pushOut(e ecs.Entity, t *Terrain) {
	p := s.c.Position.Get(e)
	scroll := s.Scroll()
	top, bottom := t.Span(p.X-shipW/2+scroll, p.X+shipW/2+scroll)
	y := clamp32(p.Y, top+shipH/2+shipInset, bottom-shipH/2-shipInset)
	s.setPos(e, p, p.X, y)
}

// respawnY is where the ship of slot reappears: its slot's height, moved into the corridor
// between ceiling and floor at the respawn x.
func (s *Sim) respawnY(slot int) float32 {
	y := spawnY(slot, s.n)
	t := s.terrain()
	if t == nil {
		return y
	}
	scroll := s.Scroll()
	x0, x1 := shipSpawnX-shipW+scroll, shipSpawnX+shipW+scroll
	top, bottom := t.Span(x0, x1)
	const margin = shipH
	if y < top+margin || y > bottom-margin {
		y = top + (bottom-top)*float32(slot+1)/float32(s.n+1)
	}
	// Avoid a structure at the spawn point: try the corridor's middle.
	if t.BlockAt(x0, y-shipH, x1, y+shipH) >= 0 {
		y = (top + bottom) / 2
	}
	return y
}

// Scroll is how far the stage has scrolled, in px: the X of the stage singleton's Position.
func (s *Sim) Scroll() float32 { return s.c.Position.Get(s.stageEnt).X }

// sysCleanup destroys bullets, enemies and power-ups that left the playfield.
func (s *Sim) sysCleanup() {
	for it := s.qPK.Iter(); it.Next(); {
		p, k := it.Get()
		if ExpiresOutsideField(k.Kind) && OutsideField(p.X, p.Y, 0) {
			s.doomed = append(s.doomed, it.Entity())
		}
	}
	s.flushDoomed()
}

// sysEnd checks victory (boss destroyed) and defeat (no lives left).
func (s *Sim) sysEnd() {
	s.sysTally()
	if s.bossDead && !s.stageCleared() {
		s.end(rules.ResultVictory)
		return
	}
	present, alive := 0, 0
	for slot := 0; slot < rules.MaxPlayers; slot++ {
		e := s.ships[slot]
		if e == ecs.Nil {
			if s.away[slot].valid { // suspended: may come back
				present++
				if pl := &s.away[slot].player; pl.Lives > 0 || pl.Flags&PlayerContinue != 0 {
					alive++
				}
			}
			continue
		}
		present++
		if p := s.c.Player.Get(e); p.Lives > 0 || p.Flags&PlayerContinue != 0 {
			alive++
		}
	}
	switch {
	case present == 0:
		s.end(rules.ResultAborted)
	case alive == 0:
		s.end(rules.ResultDefeat)
	}
}

func (s *Sim) end(r rules.Result) {
	s.over, s.result = true, r
	s.emit(Event{Kind: EventGameEnd, Result: r})
}

// sysMove integrates Velocity into Position for every entity but ships, Forces and Bits (moved
// by sysInput, sysForce and sysBits).
func (s *Sim) sysMove() {
	for it := s.qVel.Iter(); it.Next(); {
		v, p := it.Get()
		if v.X == 0 && v.Y == 0 {
			continue
		}
		e := it.Entity()
		if k := s.c.Kind.Get(e); k != nil && k.Kind.Info().selfMoved {
			continue
		}
		p.X += v.X / TickRate
		p.Y += v.Y / TickRate
		s.c.Position.MarkChanged(e)
	}
}

// InfiniteLives reports whether the game is a trainer practice where a lost ship costs no life
// (Config.InfiniteLives).
func (s *Sim) InfiniteLives() bool { return s.infinite }
