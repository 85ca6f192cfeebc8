package wire

import "testing"

// Every command's Length is the number of bytes its Append appends.
func TestLengthIsAppended(t *testing.T) {
	in := Input{Count: 3}
	over := Input{Count: MaxInputs + 5}
	for _, c := range []interface {
		Append([]byte) []byte
		Length() int
	}{DelEnt{Entity: 7}, DelComp{Entity: 7, Component: uint32(CompHealth)}, Music{Song: 2}, GameEnd{Result: 1},
		Death{Entity: 3, Slot: 1, Lives: 2}, Here{}, GetEnt{Entity: 9}, ActShoot{}, ActMove{Dir: 1}, Ping{Nonce: 5},
		Rel{ID: 4}, Welcome{Tick: 1, TickRate: 60}, Bye{Reason: 1}, Challenge{}, Response{}, Pause{Paused: 1},
		in, over, Results{Count: 2}, Results{}} {
		if got := len(c.Append(nil)); got != c.Length() {
			t.Errorf("%T: Append wrote %d bytes, Length says %d", c, got, c.Length())
		}
	}
}
