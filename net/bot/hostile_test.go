package bot

import (
	"context"
	"io"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rtype/rtype/net/session"
	"github.com/rtype/rtype/net/testsupport/hostileserver"
)

// A bot playing on a hostile server (a real lobby whose game is a UDP server in the test,
// net/testsupport/hostileserver) keeps its memory under 100 MB and its -timeout, whatever the server
// sends (issue 19): entities at huge indices, a header tick 2³¹−100 ahead, churn of entity
// generations; and it notices a killed server (lobby connection gone, game silent) within about
// a second. The peak heap of each case
// is logged (docs/BENCHMARKS.md).
func TestBotAgainstHostileServer(t *testing.T) {
	const bound = 100 << 20
	for _, tc := range hostileserver.Cases() {
		t.Run(tc.Name, func(t *testing.T) {
			srv, err := hostileserver.Start(tc)
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()

			base := heapNow()
			var peak atomic.Uint64
			stop := make(chan struct{})
			var mwg sync.WaitGroup
			mwg.Add(1)
			go func() {
				defer mwg.Done()
				var ms runtime.MemStats
				for {
					runtime.ReadMemStats(&ms)
					if ms.HeapAlloc > peak.Load() {
						peak.Store(ms.HeapAlloc)
					}
					select {
					case <-stop:
						return
					case <-time.After(20 * time.Millisecond):
					}
				}
			}()
			timeout := max(3*time.Second, tc.Lasts)
			// the wall-clock bounds end a bot that ignores its timeout or a dead server; they are
			// no measure of speed: 10 times the second in which it notices a dead server
			// (session.InterruptedAfter, the session core's, tested in virtual time)
			const slack = 10 * session.InterruptedAfter
			type outcome struct {
				res []Result
				err error
			}
			out := make(chan outcome, 1)
			started := time.Now()
			go func() {
				res, err := Run(context.Background(), Config{Server: srv.Addr(), Players: 1, Timeout: timeout,
					Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, nil)
				out <- outcome{res, err}
			}()
			var killedAt time.Time
			if tc.Kill {
				time.Sleep(time.Second)
				killedAt = time.Now()
				srv.Kill()
			}
			var o outcome
			select {
			case o = <-out:
			case <-time.After(timeout + slack):
				close(stop)
				t.Fatalf("the bot ignored its %v timeout (still running after %v)", timeout, time.Since(started))
			}
			close(stop)
			mwg.Wait()
			if d := time.Since(started); d > timeout+slack {
				t.Errorf("the bot returned %v after its start, past its %v timeout", d.Round(time.Millisecond), timeout)
			}
			grown := int64(peak.Load()) - int64(base)
			t.Logf("peak heap %.1f MB above the start (%.1f MB in all); result %+v after %v; %d datagrams from the server",
				float64(grown)/(1<<20), float64(peak.Load())/(1<<20), resultOf(o.res), time.Since(started).Round(time.Millisecond), srv.Sent())
			if grown > bound {
				t.Errorf("the bot's heap grew by %.0f MB, want under %d MB", float64(grown)/(1<<20), bound>>20)
			}
			if tc.Kill {
				if len(o.res) != 1 || o.res[0].Result != "disconnected" {
					t.Errorf("after the kill: %+v, want disconnected", resultOf(o.res))
				}
				if d := time.Since(killedAt); d > slack {
					t.Errorf("the bot took %v to notice the killed server, want about %v (session.InterruptedAfter)", d, session.InterruptedAfter)
				}
			}
		})
	}
}

func heapNow() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func resultOf(rs []Result) string {
	if len(rs) == 0 {
		return "none"
	}
	return rs[0].Result + " " + rs[0].Error
}
