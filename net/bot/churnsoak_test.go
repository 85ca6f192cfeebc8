package bot

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rtype/rtype/net/testsupport/hostileserver"
)

// soakMargin is what a hostile server's churn may add to the bot's resident memory above its
// RSS when the game starts (issue 31).
const soakMargin = 100 << 20

// TestBotChurnSoak is the long run of issue 31, opt-in (make soak-churn; RTYPE_CHURN_SOAK=5m):
// the real rtype-bot binary plays against the hostile server's churn case (16 000 entities
// replaced by newer generations without end, at twice a real server's rate) for
// RTYPE_CHURN_SOAK, on loopback. Its peak RSS (VmHWM) stays within soakMargin of its RSS when
// the game started; the RSS each minute is logged (docs/BENCHMARKS.md, "Memory under a hostile
// server's churn"). The bounded-heap check that runs in every make test is in virtual time
// (net/session TestHostileChurnHeapIsFlat). RTYPE_BOT_BIN runs a prebuilt binary instead of
// building this tree's.
func TestBotChurnSoak(t *testing.T) {
	soak := os.Getenv("RTYPE_CHURN_SOAK")
	if soak == "" {
		t.Skip("opt-in: RTYPE_CHURN_SOAK=5m (make soak-churn)")
	}
	d, err := time.ParseDuration(soak)
	if err != nil || d <= 0 || d > time.Hour {
		t.Fatalf("RTYPE_CHURN_SOAK=%q: want a duration up to 1h", soak)
	}
	bin := os.Getenv("RTYPE_BOT_BIN") // a prebuilt binary (e.g. one from before the fix)
	if bin == "" {
		bin = filepath.Join(t.TempDir(), "rtype-bot")
		build := exec.Command("go", "build", "-o", bin, "github.com/rtype/rtype/cmd/rtype-bot")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build rtype-bot: %v\n%s", err, out)
		}
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
	cmd := exec.Command(bin, "-server", srv.Addr(), "-timeout", (d + 30*time.Second).String())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Kill()
	}()
	pid := cmd.Process.Pid

	var base int64
	var startedAt time.Time
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	nextLog := time.Minute
	for {
		select {
		case err := <-exited:
			t.Fatalf("the bot exited after %v: %v\n%s", time.Since(startedAt).Round(time.Second), err, out.String())
		case <-tick.C:
		}
		rss, hwm := procMem(pid)
		if startedAt.IsZero() {
			if srv.Sent() == 0 {
				continue // not in the game yet
			}
			startedAt, base = time.Now(), rss
			t.Logf("game started: RSS %.1f MB", mb(base))
			continue
		}
		in := time.Since(startedAt)
		if in >= nextLog {
			t.Logf("%v in: RSS %.1f MB, peak %.1f MB; %d datagrams from the server", in.Round(time.Second), mb(rss), mb(hwm), srv.Sent())
			nextLog += time.Minute
		}
		if in >= d {
			break
		}
	}
	_, hwm := procMem(pid)
	in := time.Since(startedAt)
	t.Logf("churn soak: %v in game, %d datagrams (%d entities replaced); RSS %.1f MB at the start, peak %.1f MB (+%.1f MB)",
		in.Round(time.Second), srv.Sent(), srv.Sent()*hostileserver.ChurnPerDatagram, mb(base), mb(hwm), mb(hwm-base))
	if hwm-base > soakMargin {
		t.Errorf("the bot's peak RSS %.0f MB is %.0f MB above its %.0f MB at the start, want within %d MB", mb(hwm), mb(hwm-base), mb(base), soakMargin>>20)
	}
}

// procMem is process pid's resident memory now and at its peak (VmRSS, VmHWM), bytes.
func procMem(pid int) (rss, hwm int64) {
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(st), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		switch k {
		case "VmRSS":
			rss = kb << 10
		case "VmHWM":
			hwm = kb << 10
		}
	}
	return rss, hwm
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }
