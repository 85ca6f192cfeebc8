package server

import (
	"errors"
	"fmt"

	"github.com/rtype/rtype/game/replay"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/lobby/scores"
)

// ErrNoReplay is VerifyGame's error for a game that comes without a replay: nothing shows its
// score was played.
var ErrNoReplay = errors.New("no replay to verify the game with")

// VerifyGame is the hall of fame's check of a finished game before it is stored
// (scores.Config.Verify): its replay, played headless to its end by this build's simulation,
// must pass every hash checkpoint and the final hash (replay.Verify), be the game the record
// names (id-less, so: its players, level and length), and give each slot exactly the score,
// kills, deaths, continue and presence the record reports, and the record's result. A host
// (or a bug in this server) that reports what its replay does not reproduce — a forged score,
// a replay of another game, random bytes — is kept out.
func VerifyGame(rec *scores.Record, data []byte) error {
	if len(data) == 0 {
		if rec.Result == rules.ResultAborted && rec.Score() == 0 && rec.Kills() == 0 {
			return nil // claims nothing: a game its host lost before it sent figures (splitRecord)
		}
		return ErrNoReplay
	}
	r, err := replay.Decode(data)
	if err != nil {
		return err
	}
	switch {
	case r.Players != len(rec.Slots):
		return fmt.Errorf("the replay has %d players, the record %d", r.Players, len(rec.Slots))
	case r.Difficulty != rec.Difficulty:
		return fmt.Errorf("the replay is at level %s, the record at %s", r.Difficulty, rec.Difficulty)
	case uint32(r.End().Tick) != rec.Ticks:
		return fmt.Errorf("the replay ends at tick %d, the record at %d", r.End().Tick, rec.Ticks)
	case r.Result != rec.Result:
		return fmt.Errorf("the replay's result is %s, the record's %s", r.Result, rec.Result)
	}
	if err := replay.Verify(r); err != nil {
		return err
	}
	for i, s := range rec.Slots {
		st := r.Stats[i]
		if st.Score != s.Score || st.Kills != s.Kills || st.Deaths != s.Deaths || (st.Continues > 0) != s.Continued || !st.Present != s.Left {
			return fmt.Errorf("slot %d: the record says score %d, %d kills, %d deaths, continued %v, left %v; the replay plays score %d, %d kills, %d deaths, %d continues, present %v",
				i, s.Score, s.Kills, s.Deaths, s.Continued, s.Left, st.Score, st.Kills, st.Deaths, st.Continues, st.Present)
		}
	}
	return nil
}
