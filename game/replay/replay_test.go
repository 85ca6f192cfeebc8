package replay

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"
	"strings"
	"testing"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/net/wire"
)

// reseal recomputes the checksum of a replay file whose content a test changed.
func reseal(b []byte) []byte {
	n := len(b) - 4
	if n < 0 {
		return b
	}
	binary.LittleEndian.PutUint32(b[n:], crc32.ChecksumIEEE(b[:n]))
	return b
}

// A recorded game decodes to what was recorded, encodes back to the same bytes and verifies;
// suspensions, resumptions, removals and pauses are in it and replay.
func TestRecordDecodeVerify(t *testing.T) {
	g := newBotGame(t, "stage1", 4, 5)
	g.run(400)
	g.sim.SuspendPlayer(3)
	g.run(200)
	g.rec.Pause(g.sim.Tick(), 0, true)
	g.rec.Pause(g.sim.Tick(), 0, false)
	g.sim.ResumePlayer(3)
	g.run(300)
	g.sim.RemovePlayer(1)
	g.sim.SuspendPlayer(2)
	g.run(150)
	g.sim.RemovePlayer(2) // a suspended slot whose rejoin window ended
	g.run(150)
	b := g.encode(t)
	r := mustDecode(t, b)
	if !bytes.Equal(encode(r), b) {
		t.Fatal("encode(Decode(b)) differs from b")
	}
	if r.SimVersion != game.SimVersion || r.Stage != "stage1" || r.StageData != nil || r.Players != 4 || r.Names[3] != "dee" ||
		r.Build != "test" || r.Protocol != wire.Version || r.Seed != 5 {
		t.Errorf("header %+v", r.Header)
	}
	end := r.End()
	if end.Tick != g.sim.Tick() || end.Hash != g.sim.Hash() || r.Checkpoints() != int(end.Tick)/CheckpointEvery+1 {
		t.Errorf("end %+v, %d checkpoints; the game is at tick %d hash %016x", end, r.Checkpoints(), g.sim.Tick(), g.sim.Hash())
	}
	kinds := map[EventKind]int{}
	for _, ev := range r.Events {
		kinds[ev.Kind]++
	}
	if kinds[EventSuspend] != 2 || kinds[EventResume] != 1 || kinds[EventRemove] != 2 || kinds[EventPause] != 1 || kinds[EventUnpause] != 1 {
		t.Errorf("events by kind %v", kinds)
	}
	if r.Stats[0] != g.sim.Stats(0) || r.Stats[1].Present {
		t.Errorf("stats %+v", r.Stats)
	}
	if err := Verify(r); err != nil {
		t.Fatal(err)
	}
}

// A replay that plays into another world names the first checkpoint that differs, with both
// hashes; a changed input (no checkpoint touched) is caught at the next checkpoint.
func TestVerifyNamesTheFirstDivergence(t *testing.T) {
	g := newBotGame(t, "stage1", 2, 9)
	g.run(1000)
	r := mustDecode(t, g.encode(t))

	// A checkpoint's hash changed: that checkpoint.
	bad := mustDecode(t, encode(r))
	var cp *Event
	for i := range bad.Events {
		if bad.Events[i].Kind == EventCheckpoint && bad.Events[i].Tick == 600 {
			cp = &bad.Events[i]
		}
	}
	want := cp.Hash
	cp.Hash ^= 1
	var de *DivergenceError
	if err := Verify(bad); !errors.As(err, &de) || de.Tick != 600 || de.Got != want || de.Final {
		t.Fatalf("Verify = %v, want a divergence at checkpoint 600", err)
	} else if !strings.Contains(err.Error(), "tick 600") {
		t.Errorf("error %q does not name the tick", err)
	}

	// An input changed at tick 310: the checkpoint at 600 is the first to differ.
	bad = mustDecode(t, encode(r))
	for i := range bad.Events {
		if ev := &bad.Events[i]; ev.Kind == EventInput && ev.Tick > 310 {
			ev.Buttons ^= game.BtnFire | game.BtnUp
			break
		}
	}
	if err := Verify(bad); !errors.As(err, &de) || de.Tick != 600 {
		t.Fatalf("Verify = %v, want a divergence at checkpoint 600", err)
	}

	// A result changed: the slot is named.
	bad = mustDecode(t, encode(r))
	bad.Stats[1].Score++
	if err := Verify(bad); err == nil || !strings.Contains(err.Error(), "slot 1") {
		t.Fatalf("Verify = %v, want a divergence in slot 1's results", err)
	}
}

// A replay of another simulation version is refused with both versions named; one whose stage
// this build has in another version names the stage and both hashes; a stage the replay carries
// is played from its copy.
func TestRefusals(t *testing.T) {
	g := newBotGame(t, "short", 1, 1)
	g.run(100)
	r := mustDecode(t, g.encode(t))

	old := *r
	old.SimVersion = game.SimVersion + 1
	var ve *VersionError
	err := Verify(&old)
	if !errors.As(err, &ve) || !strings.Contains(err.Error(), fmt.Sprintf("version %d", game.SimVersion+1)) || !strings.Contains(err.Error(), fmt.Sprintf("version %d", game.SimVersion)) {
		t.Errorf("Verify(other sim version) = %v", err)
	}

	moved := *r
	moved.StageHash = "0123456789abcdef"
	err = Verify(&moved)
	if !errors.Is(err, ErrStage) || !strings.Contains(err.Error(), `"short"`) || !strings.Contains(err.Error(), "0123456789abcdef") ||
		!strings.Contains(err.Error(), r.StageHash) {
		t.Errorf("Verify(other stage version) = %v", err)
	}

	gone := *r
	gone.Stage = "nosuch"
	if err := Verify(&gone); !errors.Is(err, ErrStage) || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("Verify(unknown stage) = %v", err)
	}

	// The same game with the stage carried in the file (a server's own stage).
	carried := *r
	f, _ := stagefile.Embedded("short", game.ParseScript)
	carried.Stage, carried.StageData = "mystage", f.Data
	c2 := mustDecode(t, encode(&carried))
	if err := Verify(c2); err != nil {
		t.Errorf("Verify(carried stage) = %v", err)
	}
	c2.StageData = append([]byte(nil), c2.StageData...)
	c2.StageData[10] ^= 1
	if err := Verify(c2); !errors.Is(err, ErrStage) || !strings.Contains(err.Error(), "mystage") {
		t.Errorf("Verify(damaged carried stage) = %v", err)
	}
}

// A stage that is not the embedded one of its name is carried in the replay (NewRunHeader).
func TestNewRunHeaderCarriesOwnStages(t *testing.T) {
	f, _ := stagefile.Embedded("short", game.ParseScript)
	own, err := game.ParseStage("x.json", append(bytes.Clone(f.Data), '\n'))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		st    *game.Stage
		carry bool
	}{{"short", game.StageOf(f), false}, {"short", own, true}, {"cave", own, true}, {"", game.StageOf(f), true}} {
		h := NewRunHeader(game.Config{Players: 1, Stage: c.st}, []string{c.name}, nil)
		if (h.StageData != nil) != c.carry || h.StageHash != c.st.Hash() {
			t.Errorf("NewRunHeader(%q): %d bytes of stage data, hash %s (want carried %v)", c.name, len(h.StageData), h.StageHash, c.carry)
		}
	}
}

// Bad files get a clear error, never a panic: every truncation, a damaged byte (checksum), a
// wrong magic, format version or mode, and bytes after the end.
func TestDecodeErrors(t *testing.T) {
	g := newBotGame(t, "short", 2, 3)
	g.run(400)
	b := g.encode(t)
	for n := 0; n < len(b); n++ {
		if _, err := Decode(b[:n]); err == nil {
			t.Fatalf("Decode of the first %d of %d bytes: no error", n, len(b))
		} else if n > 8 && !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("Decode of %d bytes: %v", n, err)
		}
	}
	for i := 5; i < len(b); i += 7 {
		c := bytes.Clone(b)
		c[i] ^= 0x10
		if _, err := Decode(c); err == nil {
			t.Fatalf("byte %d changed: no error", i)
		}
	}
	c := bytes.Clone(b)
	c[len(c)-10] ^= 1 // in the results: only the checksum says
	if _, err := Decode(c); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("damaged result: %v", err)
	}
	for _, c := range []struct {
		b    []byte
		want error
		text string
	}{
		{[]byte("PK\x03\x04 not a replay"), ErrNotReplay, "RTRP"},
		{append([]byte("RTRP\x02"), b[5:]...), ErrFormat, "version 2"},
		{append(bytes.Clone(b), 0), ErrCorrupt, "after the checksum"},
	} {
		if _, err := Decode(c.b); !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.text) {
			t.Errorf("Decode: %v, want %v mentioning %q", err, c.want, c.text)
		}
	}
	// An event for a slot the game does not have.
	r := mustDecode(t, b)
	r.Events[0].Slot = 3
	if _, err := Decode(encode(r)); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "slot 3 of a 2-player game") {
		t.Errorf("event for slot 3: %v", err)
	}
	// A tick past MaxTicks.
	r = mustDecode(t, b)
	r.Events[len(r.Events)-1].Tick = MaxTicks + 1
	if _, err := Decode(encode(r)); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "past the") {
		t.Errorf("tick past MaxTicks: %v", err)
	}
	if _, err := Read(bytes.NewReader(b)); err != nil {
		t.Errorf("Read: %v", err)
	}
}

// A replay whose game ends before its recorded end diverges ("the game ended").
func TestVerifyGameEndedEarly(t *testing.T) {
	g := newBotGame(t, "short", 1, 3)
	g.run(100)
	g.sim.RemovePlayer(0)
	g.run(10) // the game ends (aborted) at the next step
	r := mustDecode(t, g.encode(t))
	if over, _ := g.sim.Over(); !over || !r.SimOver || r.Result != rules.ResultAborted {
		t.Fatalf("the game is not over: %v %v", r.SimOver, r.Result)
	}
	if err := Verify(r); err != nil {
		t.Fatal(err)
	}
	r.Events[len(r.Events)-1].Tick += 50
	var de *DivergenceError
	if err := Verify(r); !errors.As(err, &de) || !de.Ended {
		t.Errorf("Verify = %v, want the game ended early", err)
	}
}

// Recording allocates nothing per tick (the buffer is grown in advance).
func TestRecorderAllocatesNothing(t *testing.T) {
	g := newBotGame(t, "stage1", 4, 2)
	g.run(300)
	if a := testing.AllocsPerRun(1000, g.tick); a != 0 {
		t.Errorf("a recorded tick allocates %v times, want 0", a)
	}
	if g.rec.Len() > RecorderBuffer {
		t.Fatalf("the test outgrew the buffer (%d bytes)", g.rec.Len())
	}
}

// SeekTo goes forwards and backwards to the same states as playing straight through.
func TestPlayerSeek(t *testing.T) {
	g := newBotGame(t, "short", 2, 8)
	g.run(900)
	r := mustDecode(t, g.encode(t))
	p, err := NewPlayer(r)
	if err != nil {
		t.Fatal(err)
	}
	hashes := map[uint32]uint64{}
	for !p.Done() {
		if err := p.Step(); err != nil {
			t.Fatal(err)
		}
		hashes[uint32(p.Tick())] = p.Sim().Hash()
	}
	if p.Tick() != p.End() || p.End() != g.sim.Tick() {
		t.Fatalf("done at tick %d, end %d", p.Tick(), p.End())
	}
	for _, tick := range []uint32{450, 100, 101, 899, 1, 700} {
		if err := p.SeekTo(ecsTick(tick)); err != nil {
			t.Fatal(err)
		}
		if uint32(p.Tick()) != tick || p.Sim().Hash() != hashes[tick] {
			t.Errorf("SeekTo(%d): at tick %d, hash differs %v", tick, p.Tick(), p.Sim().Hash() != hashes[tick])
		}
	}
	if err := p.SeekTo(100000); err != nil || !p.Done() {
		t.Errorf("SeekTo past the end: %v, done %v", err, p.Done())
	}
}

func FuzzDecode(f *testing.F) {
	g := newBotGame(f, "short", 2, 4)
	g.run(200)
	f.Add(g.encode(f))
	f.Add([]byte("RTRP\x01"))
	a := newRunGame(f, []string{"short", "stage1"}, 1, 2)
	a.run(50)
	f.Add(a.encode(f))
	f.Fuzz(func(t *testing.T, b []byte) {
		// As found, and with its checksum made right (so the fuzzer reaches past the CRC).
		for _, c := range [][]byte{b, reseal(bytes.Clone(b))} {
			r, err := Decode(c)
			if err != nil {
				continue
			}
			if !bytes.Equal(encode(r), c) {
				t.Fatalf("a decoded replay encodes to other bytes:\n% x\n% x", c, encode(r))
			}
			if p, err := NewPlayer(r); err == nil && r.End().Tick < 3000 {
				for !p.Done() && p.Step() == nil {
				}
			}
		}
	})
}

// Toggles are relative to the slot's last input event, not to the Sim's buttons: after a
// suspension zeroed them, the same buttons again are a full input event that replays right.
func TestInputAfterSuspension(t *testing.T) {
	g := newBotGame(t, "short", 1, 1)
	up := game.Input{Buttons: game.BtnUp}
	g.sim.SetInput(0, up)
	g.sim.Step()
	g.sim.SetInput(0, game.Input{Buttons: game.BtnUp | game.BtnFire}) // a toggle
	g.sim.Step()
	g.sim.SuspendPlayer(0)
	g.sim.Step()
	g.sim.ResumePlayer(0)
	g.sim.SetInput(0, game.Input{Buttons: game.BtnUp | game.BtnFire}) // the Sim held 0
	g.sim.Step()
	b := g.encode(t)
	r := mustDecode(t, b)
	var ins []game.Buttons
	for _, ev := range r.Events {
		if ev.Kind == EventInput {
			ins = append(ins, ev.Buttons)
		}
	}
	if want := []game.Buttons{game.BtnUp, game.BtnUp | game.BtnFire, game.BtnUp | game.BtnFire}; !slices.Equal(ins, want) {
		t.Fatalf("inputs %v, want %v", ins, want)
	}
	if err := Verify(r); err != nil {
		t.Fatal(err)
	}
}
