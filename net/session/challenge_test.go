package session

import (
	"net/netip"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/net/wire"
)

// A CHALLENGE (docs/PROTOCOL.md §5.9) is answered by the next datagram the client sends with a
// RESPONSE that proves the session key; it is outside the sequence (not acknowledged, not a sign
// of life). Without a key the client ignores it.
func TestClientAnswersChallenge(t *testing.T) {
	server := netip.MustParseAddrPort("127.0.0.1:9")
	key := [16]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
	nonce := [16]byte{0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f}
	challenge := wire.Challenge{Nonce: nonce}.Append(wire.Header{Token: 0x12345678, Tick: 600}.Append(nil))
	for _, withKey := range []bool{true, false} {
		cfg := ClientConfig{Token: 0x12345678, Server: server, UUID: uuid.New()}
		if withKey {
			cfg.Key = key
		}
		c := NewClient(cfg, 0)
		c.Tick(time.Millisecond) // HERE
		c.out.Reset()
		c.Receive(2*time.Millisecond, challenge)
		if c.haveTick || c.ep.Received != 0 || c.ep.LastReceive != 0 {
			t.Errorf("key %v: the CHALLENGE datagram counted in the session (tick %v, received %d)", withKey, c.haveTick, c.ep.Received)
		}
		c.Tick(300 * time.Millisecond) // the next HERE
		var resp []wire.Response
		for i := 0; i < c.out.Len(); i++ {
			b, to := c.out.At(i)
			var h wire.Header
			r, err := wire.Open(b, &h)
			if err != nil || to != server {
				t.Fatalf("datagram % x to %v: %v", b, to, err)
			}
			for r.Next() {
				if r.ID() == wire.CmdResponse {
					var x wire.Response
					_, _ = x.Parse(r.Cmd())
					resp = append(resp, x)
				}
			}
		}
		if !withKey {
			if len(resp) != 0 || c.Stats().Challenges != 0 {
				t.Errorf("without a key: %d RESPONSEs sent", len(resp))
			}
			continue
		}
		// the proof of docs/PROTOCOL.md's response vector
		want := [16]byte{0xda, 0xe1, 0x0f, 0xfa, 0x90, 0x64, 0xeb, 0x43, 0xa5, 0xfc, 0x8d, 0xba, 0xda, 0xa1, 0x1c, 0xce}
		if len(resp) != 1 || resp[0].Nonce != nonce || resp[0].Proof != want {
			t.Errorf("RESPONSEs %+v, want one with the vector's nonce and proof", resp)
		}
		c.out.Reset()
		c.Tick(600 * time.Millisecond)
		for i := 0; i < c.out.Len(); i++ {
			b, _ := c.out.At(i)
			var h wire.Header
			r, _ := wire.Open(b, &h)
			for r.Next() {
				if r.ID() == wire.CmdResponse {
					t.Error("a CHALLENGE answered twice")
				}
			}
		}
	}
}
