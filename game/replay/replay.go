// Package replay records, stores and plays back games of the deterministic simulation
// (game.Sim): a replay is the game's configuration (seed, stage, players, difficulty, section)
// and the tick-stamped calls into the Sim that decided it (each slot's button changes, removals,
// suspensions and resumptions), with a hash checkpoint every CheckpointEvery ticks, the final
// hash and the results. Playing it back runs the same Sim and must reach the same hashes; a
// replay from another simulation version (game.SimVersion) is refused, never played into a
// silent desync. The file format is documented byte for byte in docs/REPLAY.md.
//
// A Recorder (game.Recorder, set with Sim.SetRecorder) records; Encode and Decode convert a
// Replay to and from its bytes; a Player steps a replay's Sim tick by tick (the client's
// playback: Step, SeekTo); Verify re-simulates a replay headless and checks every checkpoint.
//
// The package imports game and ecs only: the protocol and build versions are header fields its
// caller fills in (net/instance).
package replay

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/bits"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/game/stagefile"
)

// Format constants (docs/REPLAY.md).
const (
	// Magic starts every replay file.
	Magic = "RTRP"
	// FormatVersion is the version of the file layout (the byte after Magic).
	FormatVersion = 1
	// CheckpointEvery is the number of ticks between two hash checkpoints (5 s at 60 Hz).
	CheckpointEvery = 300
	// MaxTicks bounds a replay's final tick (4 hours at 60 Hz): playing a replay costs CPU in
	// proportion to its ticks, so a few bytes cannot ask for more.
	MaxTicks = 4 * 3600 * game.TickRate
	// MaxBytes bounds a replay file (Read, the server's Hall, GET_REPLAY's 4096 parts of 2048
	// bytes): 8 MiB, far above a MaxTicks game (a minute of 4 players is ~6 KB).
	MaxBytes = 8 << 20
	// MaxNameBytes bounds a player name and the build string (lobby names have 16 characters).
	MaxNameBytes = 64
)

// infiniteLivesBit is the difficulty byte's bit of Header.InfiniteLives (docs/REPLAY.md).
const infiniteLivesBit = 0x80

// Mode says what a replay's game is made of.
type Mode uint8

// Modes.
const (
	ModeStage  Mode = 0 // one stage (Header.Stage)
	ModeArcade Mode = 1 // an arcade run: Header.Stage then the stages of Header.Next, in order (game.Config.Run)
)

// RunStage names one stage of an arcade run after the first (Header.Next), as Header's Stage,
// StageHash and StageData name the first.
type RunStage struct {
	Name string
	Hash string
	Data []byte // nil: the build's embedded stage of that name, checked against Hash
}

// Header is everything that decides a replay's game, and what it is (informational fields).
type Header struct {
	SimVersion uint32 // game.SimVersion of the recording build
	Protocol   uint32 // the UDP protocol version of the recording server (informational)
	Build      string // the recording server's build version (informational, buildinfo)
	Time       int64  // Unix seconds when the game started (informational; 0: unknown)
	Mode       Mode
	// Stage is the stage's name ("stage1"); StageHash its stagefile.Hash (16 hex digits, "" when
	// unknown); StageData its file when the stage is not one embedded in the game (nil: the
	// build's embedded stage of that name, checked against StageHash).
	Stage     string
	StageHash string
	StageData []byte
	// Next are the stages after the first of an arcade run (Mode ModeArcade: 1..stagefile.MaxRun-1
	// of them; nil in ModeStage).
	Next       []RunStage
	Seed       uint64
	Players    int // 1..rules.MaxPlayers
	Difficulty rules.Difficulty
	Section    int // game.Config.Section (practice)
	// InfiniteLives is game.Config.InfiniteLives (the practice trainer): bit 7 of the
	// difficulty byte (infiniteLivesBit), so that other replays keep their bytes.
	InfiniteLives bool
	Names         []string // the players' names by slot (len Players)
}

// Board is the name players and the hall of fame know the game by (docs/PROTOCOL.md §2.4.12):
// stagefile.Arcade for an arcade run, else its stage.
func (h *Header) Board() string {
	if h.Mode == ModeArcade {
		return stagefile.Arcade
	}
	return h.Stage
}

// EventKind is the kind of a replay event.
type EventKind uint8

// Event kinds (docs/REPLAY.md). The first four are game.OpKind's calls; pauses are informational
// (a paused game does not Step); a checkpoint is the Sim's hash after the step that produced its
// tick; the end event is the last: the final tick and hash.
const (
	EventInput      EventKind = iota // SetInput: Slot holds Buttons from the next Step on
	EventRemove                      // RemovePlayer(Slot)
	EventSuspend                     // SuspendPlayer(Slot): its connection was lost
	EventResume                      // ResumePlayer(Slot): it rejoined
	EventPause                       // Slot paused the game (informational)
	EventUnpause                     // Slot resumed the paused game (informational)
	EventCheckpoint                  // Hash and Entities of the Sim at Tick
	EventEnd                         // the final tick, Hash and Entities
)

var eventNames = [...]string{"input", "remove", "suspend", "resume", "pause", "unpause", "checkpoint", "end"}

// String returns the kind's name ("input", "checkpoint", ...).
func (k EventKind) String() string {
	if int(k) < len(eventNames) {
		return eventNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Event is one tick-stamped event. Only the fields of its Kind are set.
type Event struct {
	Tick     ecs.Tick
	Kind     EventKind
	Slot     uint8
	Buttons  game.Buttons // EventInput
	Hash     uint64       // EventCheckpoint, EventEnd: game.Sim.Hash
	Entities uint32       // EventCheckpoint, EventEnd: live entities (ecs.World.Len)
}

// Replay is a decoded replay: its header, its events (the last one EventEnd) and the results.
type Replay struct {
	Header
	Events []Event
	// Result is how the game ended as its players were told (a game its server stopped ended
	// as aborted while its Sim was still running: SimOver false).
	Result  rules.Result
	SimOver bool
	Stats   []game.PlayerStats // by slot (len Players): game.Sim.Stats at the end
}

// End returns the final event (EventEnd): the final tick and hash.
func (r *Replay) End() Event {
	if n := len(r.Events); n > 0 && r.Events[n-1].Kind == EventEnd {
		return r.Events[n-1]
	}
	return Event{Kind: EventEnd}
}

// Checkpoints counts the replay's hash checkpoints, the final one included.
func (r *Replay) Checkpoints() int {
	n := 0
	for i := range r.Events {
		if k := r.Events[i].Kind; k == EventCheckpoint || k == EventEnd {
			n++
		}
	}
	return n
}

// Errors of Decode and Read (wrapped with where and what).
var (
	ErrNotReplay = errors.New("replay: not a replay file")
	ErrFormat    = errors.New("replay: unsupported replay format version")
	ErrTruncated = errors.New("replay: truncated")
	ErrCorrupt   = errors.New("replay: corrupt")
	ErrTooLarge  = fmt.Errorf("replay: larger than %d bytes", MaxBytes)
)

// appendHeader appends the header's bytes (magic to names) to b.
func appendHeader(b []byte, h *Header) []byte {
	b = append(b, Magic...)
	b = append(b, FormatVersion)
	b = binary.AppendUvarint(b, uint64(h.SimVersion))
	b = binary.AppendUvarint(b, uint64(h.Protocol))
	b = appendString(b, h.Build)
	b = binary.AppendUvarint(b, uint64(max(h.Time, 0)))
	b = append(b, byte(h.Mode))
	b = appendString(b, h.Stage)
	b = appendString(b, h.StageHash)
	b = appendString(b, string(h.StageData))
	if h.Mode == ModeArcade {
		b = append(b, byte(len(h.Next)))
		for i := range h.Next {
			b = appendString(b, h.Next[i].Name)
			b = appendString(b, h.Next[i].Hash)
			b = appendString(b, string(h.Next[i].Data))
		}
	}
	b = binary.LittleEndian.AppendUint64(b, h.Seed)
	diff := byte(h.Difficulty)
	if h.InfiniteLives {
		diff |= infiniteLivesBit
	}
	b = append(b, byte(h.Players), diff)
	b = binary.AppendUvarint(b, uint64(max(h.Section, 0)))
	for i := 0; i < h.Players; i++ {
		name := ""
		if i < len(h.Names) {
			name = h.Names[i]
		}
		b = appendString(b, name)
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// stream is the state events are encoded against: the previous event's tick and, per slot, the
// buttons of its last input event (both zero at the start).
type stream struct {
	last ecs.Tick
	held [rules.MaxPlayers]game.Buttons
}

// Event head bytes (docs/REPLAY.md): a toggle is 0 | bit<<4 | slot<<2 | d, any other event
// 1<<7 | kind<<4 | slot<<2 | d, where d 0..2 is the tick delta from the previous event and 3 says a
// uvarint delta-3 follows.
const (
	headOther  = 0x80
	deltaBits  = 3 // d == deltaBits: a uvarint follows
	maxToggled = 5 // button bits 0..5
)

// appendEvent appends ev, whose tick is at least st.last: an input that flips one button of its
// slot's last input is a toggle (one byte), any other event its head byte then its payload.
func (st *stream) appendEvent(b []byte, ev *Event) []byte {
	d := uint32(ev.Tick - st.last)
	st.last = ev.Tick
	slot := ev.Slot & 3
	var head byte
	toggle := false
	if ev.Kind == EventInput {
		x := ev.Buttons ^ st.held[slot]
		st.held[slot] = ev.Buttons
		if x != 0 && x&(x-1) == 0 {
			head, toggle = byte(bits.TrailingZeros8(uint8(x)))<<4|slot<<2, true
		}
	}
	if !toggle {
		head = headOther | byte(ev.Kind)<<4 | slot<<2
	}
	if d < deltaBits {
		b = append(b, head|byte(d))
	} else {
		b = append(b, head|deltaBits)
		b = binary.AppendUvarint(b, uint64(d-deltaBits))
	}
	switch {
	case toggle:
	case ev.Kind == EventInput:
		b = append(b, byte(ev.Buttons))
	case ev.Kind == EventCheckpoint || ev.Kind == EventEnd:
		b = binary.LittleEndian.AppendUint64(b, ev.Hash)
		b = binary.AppendUvarint(b, uint64(ev.Entities))
	}
	return b
}

// appendTrailer appends the results and the CRC-32 of everything before it.
func appendTrailer(b []byte, res rules.Result, over bool, stats []game.PlayerStats) []byte {
	b = append(b, byte(res), boolByte(over))
	for i := range stats {
		st := &stats[i]
		for _, v := range [...]uint32{st.Score, uint32(st.Kills), uint32(st.Deaths), uint32(st.BeamHits), st.Shots, st.Hits,
			uint32(st.Lives), uint32(st.Continues), uint32(st.ExtraLives)} {
			b = binary.AppendUvarint(b, uint64(v))
		}
		b = append(b, boolByte(st.Present))
	}
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// Read reads a whole replay file from r (at most MaxBytes) and decodes it.
func Read(r io.Reader) (*Replay, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	if len(b) > MaxBytes {
		return nil, ErrTooLarge
	}
	return Decode(b)
}

// Decode parses a replay file. Truncated, corrupt or unsupported data gets an error wrapping
// ErrNotReplay, ErrFormat, ErrTruncated or ErrCorrupt that says where and what; it never
// panics, and what it keeps is bounded by len(b). A replay of another simulation version
// decodes (its header can be shown) but NewPlayer and Verify refuse it.
func Decode(b []byte) (*Replay, error) {
	if len(b) > MaxBytes {
		return nil, ErrTooLarge
	}
	d := decoder{b: b}
	r := &Replay{}
	if err := d.header(&r.Header); err != nil {
		return nil, err
	}
	var st stream
	var tick uint64
	for {
		ev, err := d.event(&r.Header, &st, &tick)
		if err != nil {
			return nil, err
		}
		r.Events = append(r.Events, ev)
		if ev.Kind == EventEnd {
			break
		}
	}
	res, over := d.byte("result"), d.byte("sim over flag")
	if d.err == nil && (res > byte(rules.ResultAborted) || over > 1) {
		d.fail(ErrCorrupt, "result %d / sim over %d", res, over)
	}
	r.Result, r.SimOver = rules.Result(res), over == 1
	r.Stats = make([]game.PlayerStats, r.Players)
	for i := range r.Stats {
		st := &r.Stats[i]
		st.Score = d.u32("score")
		st.Kills = uint16(d.uvarint("kills", 0xffff))
		st.Deaths = uint8(d.uvarint("deaths", 0xff))
		st.BeamHits = uint16(d.uvarint("beam hits", 0xffff))
		st.Shots = d.u32("shots")
		st.Hits = d.u32("hits")
		st.Lives = uint8(d.uvarint("lives", 0xff))
		st.Continues = uint8(d.uvarint("continues", 0xff))
		st.ExtraLives = uint8(d.uvarint("extra lives", 0xff))
		st.Present = d.uvarint("present flag", 1) == 1
	}
	if d.err != nil {
		return nil, d.err
	}
	end := d.off
	sum := d.fixed(4, "checksum")
	if d.err != nil {
		return nil, d.err
	}
	if got := crc32.ChecksumIEEE(b[:end]); got != binary.LittleEndian.Uint32(sum) {
		return nil, fmt.Errorf("%w: checksum %08x, the content's is %08x (the file was damaged)", ErrCorrupt, binary.LittleEndian.Uint32(sum), got)
	}
	if d.off != len(b) {
		return nil, fmt.Errorf("%w: %d bytes after the checksum", ErrCorrupt, len(b)-d.off)
	}
	return r, nil
}

// decoder reads b from off; the first error sticks (later reads return zero values).
type decoder struct {
	b   []byte
	off int
	err error
}

func (d *decoder) fail(kind error, format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w at byte %d: %s", kind, d.off, fmt.Sprintf(format, args...))
	}
}

func (d *decoder) fixed(n int, what string) []byte {
	if d.err != nil {
		return nil
	}
	if len(d.b)-d.off < n {
		d.fail(ErrTruncated, "reading %s", what)
		return nil
	}
	v := d.b[d.off : d.off+n]
	d.off += n
	return v
}

func (d *decoder) byte(what string) byte {
	if v := d.fixed(1, what); v != nil {
		return v[0]
	}
	return 0
}

// uvarint reads a uvarint of at most maxV.
func (d *decoder) uvarint(what string, maxV uint64) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b[d.off:])
	switch {
	case n == 0:
		d.fail(ErrTruncated, "reading %s", what)
		return 0
	case n < 0:
		d.fail(ErrCorrupt, "%s: varint overflows 64 bits", what)
		return 0
	case n > 1 && d.b[d.off+n-1] == 0:
		d.fail(ErrCorrupt, "%s: varint not in its shortest form", what)
		return 0
	case v > maxV:
		d.fail(ErrCorrupt, "%s %d: more than %d", what, v, maxV)
		return 0
	}
	d.off += n
	return v
}

func (d *decoder) u32(what string) uint32 { return uint32(d.uvarint(what, 0xffffffff)) }

func (d *decoder) str(what string, maxLen int) string {
	n := d.uvarint(what+" length", uint64(maxLen))
	return string(d.fixed(int(n), what))
}

func (d *decoder) header(h *Header) error {
	if len(d.b) < len(Magic) || string(d.b[:len(Magic)]) != Magic {
		return fmt.Errorf("%w (it does not start with %q)", ErrNotReplay, Magic)
	}
	d.off = len(Magic)
	if v := d.byte("format version"); d.err == nil && v != FormatVersion {
		return fmt.Errorf("%w %d: this build reads version %d", ErrFormat, v, FormatVersion)
	}
	h.SimVersion = d.u32("simulation version")
	h.Protocol = d.u32("protocol version")
	h.Build = d.str("build", MaxNameBytes)
	h.Time = int64(d.uvarint("time", 1<<62))
	m := Mode(d.byte("mode"))
	if d.err == nil && m != ModeStage && m != ModeArcade {
		d.fail(ErrFormat, "mode %d (this build plays mode 0, one stage, and 1, an arcade run)", m)
	}
	h.Mode = m
	h.Stage = d.str("stage name", stagefile.MaxNameLen)
	h.StageHash = d.str("stage hash", stagefile.HashLen)
	if data := d.str("stage data", stagefile.MaxBytes); data != "" {
		h.StageData = []byte(data)
	}
	if m == ModeArcade && d.err == nil {
		n := d.byte("run stages")
		if d.err == nil && (n < 1 || n > stagefile.MaxRun-1) {
			d.fail(ErrCorrupt, "an arcade run of %d more stages (want 1..%d)", n, stagefile.MaxRun-1)
		}
		for i := 0; i < int(n) && d.err == nil; i++ {
			rs := RunStage{Name: d.str("run stage name", stagefile.MaxNameLen), Hash: d.str("run stage hash", stagefile.HashLen)}
			if data := d.str("run stage data", stagefile.MaxBytes); data != "" {
				rs.Data = []byte(data)
			}
			h.Next = append(h.Next, rs)
		}
	}
	if s := d.fixed(8, "seed"); s != nil {
		h.Seed = binary.LittleEndian.Uint64(s)
	}
	players, diff := d.byte("players"), d.byte("difficulty")
	if d.err == nil && (players < 1 || players > rules.MaxPlayers) {
		d.fail(ErrCorrupt, "%d players (want 1..%d)", players, rules.MaxPlayers)
	}
	h.InfiniteLives, diff = diff&infiniteLivesBit != 0, diff&^infiniteLivesBit
	if d.err == nil && rules.Difficulty(diff) >= rules.NumDifficulties {
		d.fail(ErrCorrupt, "difficulty %d (this build has %d levels)", diff, rules.NumDifficulties)
	}
	h.Players, h.Difficulty = int(players), rules.Difficulty(diff)
	h.Section = int(d.uvarint("section", 255))
	if d.err != nil {
		return d.err
	}
	h.Names = make([]string, h.Players)
	for i := range h.Names {
		h.Names[i] = d.str("player name", MaxNameBytes)
	}
	return d.err
}

// event reads one event; *tick is the previous event's tick, st the slots' last inputs.
func (d *decoder) event(h *Header, st *stream, tick *uint64) (Event, error) {
	start := d.off
	head := d.byte("event")
	if d.err != nil {
		return Event{}, d.err
	}
	toggle := head&headOther == 0
	ev := Event{Kind: EventKind(head >> 4 & 7), Slot: head >> 2 & 3}
	if toggle {
		ev.Kind = EventInput
	}
	delta := uint64(head & deltaBits)
	if delta == deltaBits {
		delta += d.uvarint("tick delta", MaxTicks)
	}
	*tick += delta
	if d.err == nil && *tick > MaxTicks {
		d.off = start
		d.fail(ErrCorrupt, "%s event at tick %d, past the %d ticks a replay may last", ev.Kind, *tick, MaxTicks)
	}
	ev.Tick = ecs.Tick(*tick)
	switch ev.Kind {
	case EventInput, EventRemove, EventSuspend, EventResume, EventPause, EventUnpause:
		if d.err == nil && int(ev.Slot) >= h.Players {
			d.off = start
			d.fail(ErrCorrupt, "%s event for slot %d of a %d-player game", ev.Kind, ev.Slot, h.Players)
		}
	default:
		if d.err == nil && ev.Slot != 0 {
			d.off = start
			d.fail(ErrCorrupt, "%s event with slot bits %d", ev.Kind, ev.Slot)
		}
	}
	if d.err != nil {
		return ev, d.err
	}
	switch {
	case toggle:
		bit := head >> 4 & 7
		if bit > maxToggled {
			d.off = start
			d.fail(ErrCorrupt, "toggle of button bit %d (buttons have bits 0..%d)", bit, maxToggled)
		}
		ev.Buttons = st.held[ev.Slot] ^ 1<<bit
		st.held[ev.Slot] = ev.Buttons
	case ev.Kind == EventInput:
		ev.Buttons = game.Buttons(d.byte("buttons"))
		x := ev.Buttons ^ st.held[ev.Slot]
		switch {
		case d.err != nil:
		case ev.Buttons&0xc0 != 0:
			d.fail(ErrCorrupt, "buttons %#x use the unused bits 6-7", ev.Buttons)
		case x != 0 && x&(x-1) == 0:
			d.fail(ErrCorrupt, "input event that changes one button (a toggle, in the shortest form)")
		}
		st.held[ev.Slot] = ev.Buttons
	case ev.Kind == EventCheckpoint || ev.Kind == EventEnd:
		if s := d.fixed(8, "hash"); s != nil {
			ev.Hash = binary.LittleEndian.Uint64(s)
		}
		ev.Entities = d.u32("entity count")
	}
	return ev, d.err
}
