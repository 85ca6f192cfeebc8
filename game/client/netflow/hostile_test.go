package netflow

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/net/session"
	"github.com/rtype/rtype/net/wire"
)

// fakeInstance is a game instance in the test: it welcomes the first HERE and sends a snapshot
// every 1/60 s until it is killed (then it is silent, as a server killed with kill -9).
type fakeInstance struct {
	conn   *net.UDPConn
	killed atomic.Bool
	wg     sync.WaitGroup
}

func startFakeInstance(t *testing.T) *fakeInstance {
	t.Helper()
	conn, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.MustParseAddrPort("127.0.0.1:0")))
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeInstance{conn: conn}
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		var buf [2048]byte
		n, from, err := conn.ReadFromUDPAddrPort(buf[:])
		if err != nil {
			return
		}
		var h wire.Header
		if _, err := wire.Open(buf[:n], &h); err != nil {
			return
		}
		seq, tick := uint16(1), uint32(100)
		b := wire.Header{Token: h.Token, Tick: tick, Seq: seq}.Append(nil)
		b = wire.Rel{ID: 1}.Append(b)
		b = wire.Welcome{Entity: 1<<32 | 1, Slot: 0, Tick: tick, TickRate: game.TickRate}.Append(b)
		for !f.killed.Load() {
			_, _ = conn.WriteToUDPAddrPort(b, from)
			time.Sleep(time.Second / game.TickRate)
			seq, tick = seq+1, tick+1
			b = wire.Header{Token: h.Token, Tick: tick, Seq: seq, RelAck: 1}.Append(b[:0])
		}
	}()
	t.Cleanup(func() { f.killed.Store(true); conn.Close(); f.wg.Wait() })
	return f
}

// A server killed with kill -9: its lobby connection resets at once and its game goes silent.
// The client leaves the game within about a second (the lobby's reset shortens the session's
// 10 s timeout), on real sockets end to end.
func TestKilledServerNoticedSoon(t *testing.T) {
	addr, cancel := startKillableLobby(t)
	inst := startFakeInstance(t)

	n := NewRunner(context.Background(), slog.New(slog.NewTextHandler(io.Discard, nil)), "tester", "")
	var link Link
	n.dialSession = func(ctx context.Context, cfg session.Config, stage *game.Stage) (Link, error) {
		cfg.Addr = inst.conn.LocalAddr().String()
		s, err := session.Dial(ctx, cfg)
		if err != nil {
			return nil, err
		}
		link = NewSessionLink(s, stage)
		return link, nil
	}
	defer n.Close()
	m := scene.New(addr, scene.Auto{On: true, Start: true})
	for _, c := range m.Begin() {
		n.Exec(c)
	}
	drive(t, m, n, scene.Playing)
	time.Sleep(200 * time.Millisecond)

	killed := time.Now()
	inst.killed.Store(true) // the game goes silent...
	cancel()                // ...and the lobby's connections end
	select {
	case <-link.Done():
	case <-time.After(5 * time.Second):
		t.Fatalf("the session still runs %v after the server was killed (want about %v)", time.Since(killed), session.InterruptedAfter)
	}
	t.Logf("session ended %v after the kill", time.Since(killed).Round(time.Millisecond))
}
