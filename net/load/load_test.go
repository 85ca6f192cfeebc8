package load

import (
	"context"
	"log/slog"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/net/instance"
	"github.com/rtype/rtype/net/metrics/hist"
	"github.com/rtype/rtype/net/server"
	"github.com/rtype/rtype/net/session"
	"github.com/rtype/rtype/net/transport"
	"github.com/rtype/rtype/net/wire"
)

// Two games against a real server on loopback: both are played through the lobby, every client
// is in game for the whole window, sends INPUT every tick and gets 30 snapshots a second, and the
// server answers PINGs.
func TestRunAgainstServer(t *testing.T) {
	if testing.Short() {
		t.Skip("real-time")
	}
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- server.Run(ctx, server.Config{Addr: "127.0.0.1:0", UDPHost: "127.0.0.1", Stage: "short",
			Logger: slog.New(slog.DiscardHandler),
			Ready:  func(a net.Addr, _ *instance.Manager) { addr <- a.String() }})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server: %v", err)
		}
	}()
	rep, err := Run(context.Background(), Config{Server: <-addr, Games: 2, Duration: 1500 * time.Millisecond,
		Warmup: 500 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Games != 2 || rep.Playing != 2 || rep.Abnormal != 0 {
		t.Fatalf("games %d, playing %d, abnormal %d (%v), want 2, 2, 0", rep.Games, rep.Playing, rep.Abnormal, rep.Errors)
	}
	// Rates on the wall clock, as the tool reports them: at most the nominal ones (a busy
	// machine only lowers them: INPUT every tick, a snapshot every second tick, not every
	// tick), and at least a tenth of them (a machine 10 times slower still measures).
	clients := 8.0
	if up := rep.UpDatagramsPerSec / clients; up < 6 || up > 66 {
		t.Errorf("%.1f datagrams up per client per second, want at most about 60 (INPUT every tick)", up)
	}
	if rep.SnapshotsPerSecMin < 3 || rep.SnapshotsPerSec > 35 {
		t.Errorf("snapshots/s per client %.1f (slowest %.1f), want at most about 30", rep.SnapshotsPerSec, rep.SnapshotsPerSecMin)
	}
	if rep.RTTP50 <= 0 || rep.RTTMax < rep.RTTP50 {
		t.Errorf("RTT p50 %.2f ms, max %.2f ms: no PING answered?", rep.RTTP50, rep.RTTMax)
	}
	if rep.DownBytesPerSec <= 0 || rep.UpBytesPerSec <= 0 {
		t.Errorf("bytes/s down %.0f up %.0f", rep.DownBytesPerSec, rep.UpBytesPerSec)
	}
}

// The floor server sends each client its DownRate datagrams a second, with the client's token.
func TestFloor(t *testing.T) {
	if testing.Short() {
		t.Skip("real-time")
	}
	l, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := l.LocalAddr().String()
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- FloorServe(ctx, FloorConfig{Listen: a, Batch: true, DownRate: 30, DownSize: 100, Logger: slog.New(slog.DiscardHandler)})
	}()
	defer func() { cancel(); <-done }()
	time.Sleep(100 * time.Millisecond)
	rep, err := Run(context.Background(), Config{Server: a, Games: 1, Floor: true, Duration: time.Second,
		Warmup: 300 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if dg := rep.DownDatagramsPerSec / 4; dg < 3 || dg > 35 { // at most the rate, a tenth of it on a slow machine
		t.Errorf("%.1f datagrams down per client per second, want at most about 30", dg)
	}
	if sz := rep.DownBytesPerSec / rep.DownDatagramsPerSec; sz < 99.99 || sz > 100.01 {
		t.Errorf("down datagrams of %.1f bytes, want 100", sz)
	}
}

// A floor client goes on sending as long as the floor server sends to it: the floor speaks no
// protocol beyond the header, so any datagram from it counts as the server being there (it
// used to stop ServerTimeout after its start, in the middle of a measured window).
func TestFloorSeatKeepsSending(t *testing.T) {
	var out transport.Outbox
	s := &seat{floor: true, rtt: hist.New(rttBucket, rttBuckets)}
	s.begin(0, 7, uuid.New(), netip.MustParseAddrPort("127.0.0.1:1"))
	b := wire.Header{Token: 7, Tick: 1}.Append(nil)
	for now := time.Duration(0); now < 3*session.ServerTimeout; now += game.TickPeriod {
		if now%(33*time.Millisecond) < game.TickPeriod {
			s.receive(now, b, false)
			b = wire.Header{Token: 7, Tick: uint32(now/game.TickPeriod) + 2}.Append(b[:0])
		}
		s.tick(now, &out)
		if s.state != seatPlaying || out.Len() != 1 {
			t.Fatalf("at %v: state %d, %d datagrams sent, want still playing and one INPUT", now, s.state, out.Len())
		}
		out.Reset()
	}
}
