package transport

import (
	"testing"

	"github.com/rtype/rtype/net/wire"
)

// A client session delivers reliable commands once and in order: one that arrives ahead of a gap
// waits, a duplicate is dropped, REL itself is never delivered, and unreliable commands go
// through as they come.
func TestDeliveryOrdersReliableCommands(t *testing.T) {
	var ep Endpoint
	walk := func(payload []byte) (got []uint8) {
		for d := ep.Deliver(wire.NewReader(payload)); d.Next(); {
			switch d.ID() {
			case wire.CmdMusic:
				var m wire.Music
				if _, err := m.Parse(d.Cmd()); err != nil {
					t.Fatal(err)
				}
				got = append(got, m.Song)
			case wire.CmdPing:
				got = append(got, 0) // an unreliable command
			default:
				t.Fatalf("delivered command %d", d.ID())
			}
		}
		return got
	}
	rel := func(b []byte, id uint16, song uint8) []byte {
		return wire.Music{Song: song}.Append(wire.Rel{ID: id}.Append(b))
	}
	// reliable #2 arrives first: kept, nothing delivered; the PING goes through
	if got := walk(wire.Ping{Nonce: 1}.Append(rel(nil, 2, 20))); len(got) != 1 || got[0] != 0 {
		t.Fatalf("ahead of the gap: delivered %v, want only the PING", got)
	}
	// #1 fills the gap: #1 then the kept #2, then the PING after them in the datagram
	if got := walk(wire.Ping{Nonce: 2}.Append(rel(nil, 1, 10))); len(got) != 3 || got[0] != 10 || got[1] != 20 || got[2] != 0 {
		t.Fatalf("gap filled: delivered %v, want [10 20 0]", got)
	}
	// a resend of #2 and the new #3
	if got := walk(rel(rel(nil, 2, 20), 3, 30)); len(got) != 1 || got[0] != 30 {
		t.Fatalf("duplicate then next: delivered %v, want [30]", got)
	}
}
