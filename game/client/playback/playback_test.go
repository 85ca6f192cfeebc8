package playback

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/replay"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/net/session"
)

// record plays ticks of a 2-player autopilot game on stage 1 and returns its replay bytes and
// the Sim's hash at every tick (index = tick; with the inputs held for the next step, as a
// replay.Player has them applied).
func record(t *testing.T, ticks int) ([]byte, []uint64) {
	t.Helper()
	f, err := stagefile.Embedded("stage1", game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	cfg := game.Config{Seed: 42, Players: 2, Stage: game.StageOf(f)}
	sim := game.NewSim(cfg)
	rec := replay.NewRecorder(replay.NewRunHeader(cfg, []string{"stage1"}, []string{"ann", "bob"}))
	sim.SetRecorder(rec)
	var hashes []uint64
	for i := 0; i < ticks; i++ {
		for slot := 0; slot < 2; slot++ {
			if e := sim.PlayerEntity(slot); e != 0 {
				sim.SetInput(slot, game.Autopilot(sim.World(), sim.Components(), &game.StageOf(f).Terrain, e, sim.Tick()))
			}
		}
		hashes = append(hashes, sim.Hash()) // the state at tick i with the inputs of the next step
		sim.Step()
		sim.World().ClearEvents()
	}
	hashes = append(hashes, sim.Hash())
	_, res := sim.Over()
	return rec.Encode(sim, res), hashes
}

// The viewer draws the recorded game: at every speed each frame advances the world by that many
// ticks and the world is the recording's (its hash matches the live game's at that tick);
// pause holds it; a seek back and forth lands on the same state as straight play.
func TestViewerPlaysSeeksAndPauses(t *testing.T) {
	b, hashes := record(t, 1200)
	r, err := replay.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	v, err := New(r)
	if err != nil {
		t.Fatal(err)
	}
	lw := v.World()
	check := func(what string) {
		t.Helper()
		tick, _ := v.Progress()
		if got := v.p.Sim().Hash(); got != hashes[tick] {
			t.Fatalf("%s: tick %d hash %x, the live game had %x", what, tick, got, hashes[tick])
		}
		if lw.W != v.p.Sim().World() || uint32(lw.W.Tick()) != uint32(tick) {
			t.Fatalf("%s: the drawn world is not the replay's Sim at tick %d", what, tick)
		}
	}
	for _, speed := range []int{1, 2, 4} {
		for v.Speed() < speed {
			v.Faster()
		}
		before, _ := v.Progress()
		v.Frame()
		after, _ := v.Progress()
		if int(after-before) != speed {
			t.Fatalf("speed %d: a frame moved %d ticks", speed, after-before)
		}
		check("play")
	}
	v.Faster() // stays at the fastest
	if v.Speed() != 4 {
		t.Fatalf("speed %d after Faster at 4", v.Speed())
	}
	v.TogglePause()
	before, _ := v.Progress()
	v.Frame()
	if after, _ := v.Progress(); after != before || !lw.Paused {
		t.Fatalf("paused: tick %d → %d (Paused %v)", before, after, lw.Paused)
	}
	v.TogglePause()
	v.Seek(SeekStep)
	check("seek forward")
	v.Seek(-SeekStep / 2)
	check("seek back")
	if v.Follow() != 0 || lw.Self != v.p.Sim().PlayerEntity(0) {
		t.Fatal("not following slot 0 after a seek back")
	}
	v.FollowNext()
	if v.Follow() != 1 || lw.Slot != 1 || lw.Self != v.p.Sim().PlayerEntity(1) {
		t.Fatalf("FollowNext: follow %d, world slot %d", v.Follow(), lw.Slot)
	}
	v.FollowNext()
	if v.Follow() != 0 {
		t.Fatalf("FollowNext wraps over the game's 2 players: follow %d", v.Follow())
	}
	v.Seek(1 << 20) // to the end
	for i := 0; i < 10 && !v.Ended(); i++ {
		v.Frame()
	}
	if !v.Ended() || v.Err() != nil {
		t.Fatalf("not at the end after seeking past it (err %v)", v.Err())
	}
	check("end")
	v.TogglePause() // at the end: from the start again
	if tick, _ := v.Progress(); tick != 0 || v.Ended() {
		t.Fatalf("play after the end: tick %d ended %v", tick, v.Ended())
	}
	check("restart")
	if names := v.Names(); len(names) != 2 || names[1] != "bob" {
		t.Fatalf("names %q", names)
	}
}

// A 4× burst of deaths never blocks a frame: events beyond the queue are dropped, not waited on.
func TestViewerEventsNeverBlock(t *testing.T) {
	b, _ := record(t, 60)
	r, _ := replay.Decode(b)
	v, err := New(r)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		v.send(session.Event{Kind: session.EventDeath})
	}
}

// Files that are not replays, or are cut short, get an error naming the file, never a crash.
func TestOpenBadFiles(t *testing.T) {
	dir := t.TempDir()
	b, _ := record(t, 120)
	cases := map[string][]byte{"empty.rtr": nil, "text.rtr": []byte("hello, this is not a replay"), "cut.rtr": b[:len(b)/2]}
	for name, data := range cases {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(p); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: err %v, want one naming the file", name, err)
		}
	}
	if _, err := Open(filepath.Join(dir, "missing.rtr")); err == nil {
		t.Error("a missing file opened")
	}
	good := filepath.Join(dir, "good.rtr")
	os.WriteFile(good, b, 0o644)
	if _, err := Open(good); err != nil {
		t.Errorf("a good replay: %v", err)
	}
}
