package scores

import (
	"testing"

	"github.com/rtype/rtype/game/replay"
)

// The hall keeps replay files: its bound is the replay format's, or this does not compile.
const _ = uint(MaxReplayBytes-replay.MaxBytes) + uint(replay.MaxBytes-MaxReplayBytes)

// The hall's replay files carry the replay format's extension (clients and tools find them by it).
func TestReplayFacts(t *testing.T) {
	if ReplayExt != replay.FileExt {
		t.Errorf("ReplayExt %q, the replay format's extension is %q", ReplayExt, replay.FileExt)
	}
}
