package server

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/rtype/rtype/game/replay"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/lobby/scores"
)

// goldenRecord is the record a truthful host would report for testdata/replay/golden.rtr (25 s
// of four autopilot players on stage 1): its own figures.
func goldenRecord(t *testing.T) (scores.Record, []byte) {
	t.Helper()
	data, err := os.ReadFile("../../testdata/replay/golden.rtr")
	if err != nil {
		t.Fatal(err)
	}
	r, err := replay.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	rec := scores.Record{Stage: r.Stage, Difficulty: r.Difficulty, Result: r.Result, Ticks: uint32(r.End().Tick)}
	for i, st := range r.Stats {
		rec.Slots = append(rec.Slots, scores.Slot{Name: r.Names[i], Score: st.Score, Kills: st.Kills, Deaths: st.Deaths,
			Continued: st.Continues > 0, Left: !st.Present})
	}
	return rec, data
}

// TestVerifyGame: the hall of fame keeps a game only when its replay reproduces what was
// reported: the truthful record passes; an impossible score (2³²−1), a longer or shorter game,
// another result, another player count, a flipped byte in the replay, random bytes (8 MiB as a
// hostile host would send) and no replay at all are refused — but a lost host's aborted game
// that claims nothing is kept without one.
func TestVerifyGame(t *testing.T) {
	t.Parallel()
	rec, data := goldenRecord(t)
	if err := VerifyGame(&rec, data); err != nil {
		t.Fatalf("the truthful record: %v", err)
	}
	forge := func(f func(r *scores.Record)) *scores.Record {
		r := rec
		r.Slots = append([]scores.Slot(nil), rec.Slots...)
		f(&r)
		return &r
	}
	flipped := append([]byte(nil), data...)
	flipped[len(flipped)/2] ^= 0x40
	random := make([]byte, 8<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	for _, tc := range []struct {
		what string
		rec  *scores.Record
		data []byte
	}{
		{"score 2^32-1", forge(func(r *scores.Record) { r.Slots[0].Score = math.MaxUint32 }), data},
		{"one more kill", forge(func(r *scores.Record) { r.Slots[2].Kills++ }), data},
		{"one more death", forge(func(r *scores.Record) { r.Slots[1].Deaths++ }), data},
		{"a game of 0 s", forge(func(r *scores.Record) { r.Ticks = 0 }), data},
		{"a cleared stage", forge(func(r *scores.Record) { r.Result = rules.ResultVictory }), data},
		{"three players", forge(func(r *scores.Record) { r.Slots = r.Slots[:3] }), data},
		{"a flipped byte", &rec, flipped},
		{"8 MiB of random bytes", &rec, random},
		{"no replay", &rec, nil},
	} {
		if tc.what == "a cleared stage" && rec.Result == rules.ResultVictory {
			tc.rec = forge(func(r *scores.Record) { r.Result = rules.ResultDefeat })
		}
		if err := VerifyGame(tc.rec, tc.data); err == nil {
			t.Errorf("%s: verified", tc.what)
		}
	}
	if err := VerifyGame(&rec, nil); !errors.Is(err, ErrNoReplay) {
		t.Errorf("no replay: %v, want ErrNoReplay", err)
	}
	lost := scores.Record{Stage: "stage1", Result: rules.ResultAborted, Slots: []scores.Slot{{Name: "a"}, {Name: "b"}}}
	if err := VerifyGame(&lost, nil); err != nil {
		t.Errorf("a lost host's aborted game claiming nothing: %v", err)
	}
	lost.Slots[0].Score = 100
	if err := VerifyGame(&lost, nil); err == nil || !strings.Contains(err.Error(), "no replay") {
		t.Errorf("an aborted game claiming a score without a replay: %v", err)
	}
}

// BenchmarkVerifyGame is what verification costs: the golden game (25 s, 1 500 ticks of four
// players on stage 1) replayed to its end and checked. ns/op ÷ 25 s ≈ the cost per game-second.
func BenchmarkVerifyGame(b *testing.B) {
	data, err := os.ReadFile("../../testdata/replay/golden.rtr")
	if err != nil {
		b.Fatal(err)
	}
	r, _ := replay.Decode(data)
	rec := scores.Record{Stage: r.Stage, Difficulty: r.Difficulty, Result: r.Result, Ticks: uint32(r.End().Tick)}
	for i, st := range r.Stats {
		rec.Slots = append(rec.Slots, scores.Slot{Name: r.Names[i], Score: st.Score, Kills: st.Kills, Deaths: st.Deaths, Continued: st.Continues > 0, Left: !st.Present})
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := VerifyGame(&rec, data); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6/(float64(rec.Ticks)/60/60), "ms/game-minute")
}
