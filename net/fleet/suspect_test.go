package fleet

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// silentHost is a host that authenticates, reports a large free capacity with heartbeats
// (the least loaded host, for Choose) and never answers a start (a wedged real host does the
// same); it counts the starts it got.
func silentHost(t *testing.T) (addr string, starts *atomic.Int32) {
	ln := netOf(t).listen()
	starts = new(atomic.Int32)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	t.Cleanup(func() { close(stop); ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer nc.Close()
				c, err := ServerHandshake(nc, testSecret, nil)
				if err != nil {
					return
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						b, err := c.Read(time.Now().Add(time.Minute))
						if err != nil {
							return
						}
						if m, err := decode(b); err == nil && m.Type == TypeStart {
							starts.Add(1)
						}
					}
				}()
				tk := time.NewTicker(10 * time.Millisecond)
				defer tk.Stop()
				for {
					if c.Write(encode(&Msg{Type: TypeLoad, Load: &Load{Capacity: 64}})) != nil {
						return
					}
					select {
					case <-stop:
						c.Close()
						return
					case <-tk.C:
					}
				}
			}()
		}
	}()
	return ln.Addr().String(), starts
}

// TestSilentHostSuspect: a host that takes the control connection and never answers a START
// is the least loaded and chosen first; the START waits for it HostTimeout only and goes to
// the healthy host; the silent one is then suspect and skipped, so the next STARTs go to the
// healthy host at once; once SuspectFor is over it is tried again, misses again and is suspect
// twice as long. Each change of its state is logged once.
func TestSilentHostSuspect(t *testing.T) { synctest.Test(t, testSilentHostSuspect) }

func testSilentHostSuspect(t *testing.T) {
	silent, starts := silentHost(t)
	healthy := startHost(t, 16, 5002, "")
	lines := &lineCounter{prefix: "game host suspect"}
	r := startRemoteWith(t, RemoteConfig{Hosts: []string{silent, healthy.addr}, Logger: slog.New(lines)}) // set before Run: the links read it
	eventually(t, "both hosts up, their capacity known", func() bool { return r.Up() == 2 && freeOf(r) == 64+16 })
	view := func() HostView { return r.Hosts()[0] }
	for i := range 6 {
		t0 := time.Now()
		g, err := r.StartGame(spec("ABCDE", 1))
		if err != nil || g.Port() != 5002 {
			t.Fatalf("START %d with a silent host: %v on port %d, want the healthy host (5002)", i+1, err, portOf(g))
		}
		want := time.Duration(0) // the suspect is skipped
		if i == 0 {
			want = DefaultHostTimeout // waited for the silent host once
		}
		if d := time.Since(t0); d != want {
			t.Fatalf("START %d took %v, want %v", i+1, d, want)
		}
	}
	if n := starts.Load(); n != 1 {
		t.Fatalf("the silent host got %d starts, want 1 (then suspect)", n)
	}
	if v := view(); !v.Suspect || v.Suspected != 1 || !v.Up {
		t.Fatalf("the silent host: %+v, want up, suspect, suspected once", v)
	}
	time.Sleep(SuspectFor - time.Nanosecond)
	if !view().Suspect {
		t.Fatalf("not suspect %v after its miss", SuspectFor-time.Nanosecond)
	}
	time.Sleep(time.Nanosecond) // SuspectFor after its miss
	if view().Suspect {
		t.Fatalf("still suspect %v after its miss", SuspectFor)
	}
	t0 := time.Now()
	if g, err := r.StartGame(spec("SLAB3", 1)); err != nil || g.Port() != 5002 {
		t.Fatalf("START after the suspicion: %v on port %d", err, portOf(g))
	}
	if d := time.Since(t0); d != DefaultHostTimeout || starts.Load() != 2 {
		t.Fatalf("START after the suspicion took %v with %d starts to the silent host, want it tried again (%v, 2)", d, starts.Load(), DefaultHostTimeout)
	}
	time.Sleep(2*SuspectFor - time.Nanosecond)
	if v := view(); !v.Suspect || v.Suspected != 2 {
		t.Fatalf("after a second miss: %+v, want suspect for 2×SuspectFor", v)
	}
	if n := lines.lines(); n != 2 {
		t.Fatalf("%d suspect log lines, want one per miss (2)", n)
	}
}

// TestSuspectOnlyHost: when every host with room is suspect, a START still tries one (better
// than refusing while it may have recovered), and its answer clears the suspicion.
func TestSuspectOnlyHost(t *testing.T) { synctest.Test(t, testSuspectOnlyHost) }

func testSuspectOnlyHost(t *testing.T) {
	h := startHost(t, 4, 5001, "")
	r := startRemote(t, h.addr)
	eventually(t, "host up", func() bool { return r.Up() == 1 && freeOf(r) == 4 })
	r.links[0].missed()
	if !r.Hosts()[0].Suspect {
		t.Fatal("not suspect after a miss")
	}
	if g, err := r.StartGame(spec("ABCDE", 1)); err != nil || g.Port() != 5001 {
		t.Fatalf("START with the only host suspect: %v", err)
	}
	if v := r.Hosts()[0]; v.Suspect {
		t.Fatalf("still suspect after it answered: %+v", v)
	}
}
