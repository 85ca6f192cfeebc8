package scoredb

import (
	"errors"
	"testing"

	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/lobby/scores"
)

// TestHallVerify: with Config.Verify, a game it refuses is never stored (no row, no replay
// file) and counted as unverified, while the games around it are stored in order.
func TestHallVerify(t *testing.T) {
	eachBackend(t, func(t *testing.T, d Dialect, dsn string) { testHallVerify(t, d, dsn) })
}

func testHallVerify(t *testing.T, d Dialect, dsn string) {
	forged := rec("stage1", 0, rules.ResultVictory, 1<<32-1)
	h, logs := openHall(t, Config{Dialect: d, DSN: dsn, Verify: func(r *scores.Record, _ []byte) error {
		if r.ID == forged.ID {
			return errors.New("the replay plays another score")
		}
		return nil
	}})
	before, after := rec("stage1", 0, rules.ResultDefeat, 10), rec("stage1", 0, rules.ResultDefeat, 20)
	for _, r := range []scores.Record{before, forged, after} {
		h.Record(r, replayFor(r.ID, 100))
	}
	waitFor(t, "two games stored", recorded(h, 2))
	if _, ok, err := h.Store().Game(ctx(t), forged.ID); ok || err != nil {
		t.Fatalf("the refused game is in the database (%v)", err)
	}
	if _, err := h.Replay(forged.ID); err == nil {
		t.Fatal("the refused game's replay was kept")
	}
	if st := h.Stats(); st.Unverified != 1 || st.Verified != 2 || st.Dropped != 0 {
		t.Fatalf("stats %+v: want 1 unverified, 2 verified", st)
	}
	if logs.count("does not verify") != 1 {
		t.Fatalf("log: %s", logs)
	}
}
