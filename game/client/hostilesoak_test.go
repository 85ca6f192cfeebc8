//go:build display

package client

import (
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/net/instance"
	"github.com/rtype/rtype/net/server"
	"github.com/rtype/rtype/net/testsupport/hostileserver"
)

// TestRealClientChurnSoak is the long run of issue 31, opt-in (make soak-churn;
// RTYPE_CHURN_SOAK=5m): the real rtype-client binary, under its own Xvfb, plays a normal game
// against a real server for a minute (the baseline), then the hostile server's churn case (16 000
// entities replaced by newer generations without end) for RTYPE_CHURN_SOAK. Its peak RSS stays
// within hostileMargin of the baseline's and the window keeps drawing, as in
// TestRealClientAgainstHostileServer (whose churn lasts seconds). Figures: docs/BENCHMARKS.md,
// "Memory under a hostile server's churn". RTYPE_CLIENT_BIN runs a prebuilt binary.
func TestRealClientChurnSoak(t *testing.T) {
	soak := os.Getenv("RTYPE_CHURN_SOAK")
	if soak == "" {
		t.Skip("opt-in: RTYPE_CHURN_SOAK=5m (make soak-churn)")
	}
	d, err := time.ParseDuration(soak)
	if err != nil || d <= 0 || d > time.Hour {
		t.Fatalf("RTYPE_CHURN_SOAK=%q: want a duration up to 1h", soak)
	}
	if os.Getenv("DISPLAY") == "" {
		t.Skip("needs a display (run it under xvfb-run)")
	}
	if _, err := exec.LookPath("Xvfb"); err != nil {
		t.Skip("needs Xvfb (make deps installs it)")
	}
	dir := t.TempDir()
	bin := os.Getenv("RTYPE_CLIENT_BIN")
	if bin == "" {
		bin = filepath.Join(dir, "rtype-client")
		build := exec.Command("go", "build", "-o", bin, "github.com/rtype/rtype/cmd/rtype-client")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build rtype-client: %v\n%s", err, out)
		}
	}
	display, fb := startXvfb(t, dir)

	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	errc := make(chan error, 1)
	go func() {
		errc <- server.Run(ctx, server.Config{Addr: "127.0.0.1:0", UDPHost: "127.0.0.1", Stage: stagefile.Default,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
			Ready:  func(a net.Addr, _ *instance.Manager) { ready <- a.String() }})
	}()
	var addr string
	select {
	case addr = <-ready:
	case err := <-errc:
		t.Fatalf("server: %v", err)
	}
	base := runHostileClient(t, bin, display, fb, filepath.Join(dir, "baseline"), addr, time.Minute, nil, hostileserver.Case{})
	cancel()
	<-errc
	t.Logf("baseline: %v", base)
	if base.failed != "" {
		t.Fatalf("baseline: %s", base.failed)
	}

	var churn hostileserver.Case
	for _, c := range hostileserver.Cases() {
		if c.Name == "churn" {
			churn = c
		}
	}
	srv, err := hostileserver.Start(churn)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	r := runHostileClient(t, bin, display, fb, filepath.Join(dir, "churn"), srv.Addr(), d, srv, churn)
	t.Logf("churn soak: %v", r)
	t.Logf("peak RSS %.1f MB against the churn for %v, %.1f MB in the baseline's normal game (%+.1f MB)",
		mb(r.hwm), r.hold.Round(time.Second), mb(base.hwm), mb(r.hwm-base.hwm))
	if r.failed != "" {
		t.Fatal(r.failed)
	}
	if r.hwm > base.hwm+hostileMargin {
		t.Errorf("peak RSS %.0f MB, want under %.0f MB (the baseline's %.0f MB + %d MB)",
			mb(r.hwm), mb(base.hwm+hostileMargin), mb(base.hwm), hostileMargin>>20)
	}
	if r.stuck >= hostileStill {
		t.Errorf("the window showed the same frame for %v (frozen)", r.stuck.Round(10*time.Millisecond))
	}
}
