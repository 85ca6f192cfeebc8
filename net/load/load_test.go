package load

import (
	"context"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/rtype/rtype/net/instance"
	"github.com/rtype/rtype/net/server"
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
	clients := 8.0
	if up := rep.UpDatagramsPerSec / clients; up < 50 || up > 65 {
		t.Errorf("%.1f datagrams up per client per second, want about 60 (INPUT every tick)", up)
	}
	if rep.SnapshotsPerSecMin < 25 || rep.SnapshotsPerSec > 31 {
		t.Errorf("snapshots/s per client %.1f (slowest %.1f), want about 30", rep.SnapshotsPerSec, rep.SnapshotsPerSecMin)
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
	if dg := rep.DownDatagramsPerSec / 4; dg < 25 || dg > 35 {
		t.Errorf("%.1f datagrams down per client per second, want 30", dg)
	}
	if sz := rep.DownBytesPerSec / rep.DownDatagramsPerSec; sz < 99.99 || sz > 100.01 {
		t.Errorf("down datagrams of %.1f bytes, want 100", sz)
	}
}
