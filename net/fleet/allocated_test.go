package fleet

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rtype/rtype/lobby/handoff"
)

// allocatorOf is an Allocate that always answers addr, counting its calls.
func allocatorOf(addr string, calls *atomic.Int32) func(context.Context) (string, error) {
	return func(context.Context) (string, error) {
		calls.Add(1)
		return addr, nil
	}
}

// runAllocLobby is runLobbyWith for a lobby with an allocator (no -hosts) and its
// AllocatedFile; it waits until Run has begun.
func runAllocLobby(t *testing.T, id, file string, alloc func(context.Context) (string, error)) *lobbyRun {
	lr := runLobbyWith(t, id, func(rc *RemoteConfig) { rc.Allocate, rc.AllocatedFile = alloc, file })
	eventually(t, "Run started", func() bool { lr.r.mu.Lock(); defer lr.r.mu.Unlock(); return lr.r.ctx != nil })
	return lr
}

func savedHosts(t *testing.T, file string) []string {
	t.Helper()
	hosts, err := readAllocatedHosts(file)
	if err != nil {
		t.Fatal(err)
	}
	return hosts
}

// TestAllocatorLobbyRestartKeepsGames is TestLobbyRestartKeepsGames for a lobby on Agones
// (-allocator): it has no -hosts. It starts two games on an allocated host, which it keeps in
// its AllocatedFile before the start is sent, and crashes; one game ends while no lobby is
// there. A new lobby on the same data directory attaches to that host without allocating
// (Attached waits for it: OnAdopt has the running game when it closes), keeps the held end
// (the first run's game id, record and replay) and then the running game's end; once the host
// holds nothing of the lobby it is forgotten (the file lists no host).
func TestAllocatorLobbyRestartKeepsGames(t *testing.T) {
	synctest.Test(t, testAllocatorLobbyRestartKeepsGames)
}

func testAllocatorLobbyRestartKeepsGames(t *testing.T) {
	h, rec, file := restartHost(t)
	path := filepath.Join(t.TempDir(), AllocatedHostsFile)
	var calls1, calls2 atomic.Int32
	first := runAllocLobby(t, "lobby-k", path, allocatorOf(h.addr, &calls1))
	s1, s2 := restartSpec("AAAAA"), restartSpec("BBBBB")
	for _, sp := range []handoff.GameSpec{s1, s2} {
		if _, err := first.r.StartGame(sp); err != nil {
			t.Fatal(err)
		}
	}
	if got := savedHosts(t, path); !slices.Equal(got, []string{h.addr}) || calls1.Load() != 2 {
		t.Fatalf("file %v after %d allocations, want the allocated host", got, calls1.Load())
	}
	first.crash()
	time.Sleep(time.Second)
	if got := savedHosts(t, path); !slices.Equal(got, []string{h.addr}) {
		t.Fatalf("file %v after the crash, want the host kept", got)
	}
	gs := h.st.games()
	gs[0].end(1) // held by the host
	eventually(t, "the host counts the end", func() bool { return h.Load().Games == 1 })

	second := runAllocLobby(t, "lobby-k", path, allocatorOf(h.addr, &calls2))
	select {
	case <-second.r.Attached():
	case <-time.After(5 * time.Second):
		t.Fatal("Attached not closed")
	}
	if len(second.adopts) != 1 {
		t.Fatalf("%d games adopted when Attached closed, want the running one", len(second.adopts))
	}
	if got := <-second.adopts; got.ID != s2.ID || got.Code != s2.Code || !reflect.DeepEqual(got.Members, s2.Members) {
		t.Fatalf("OnAdopt %+v, want the running game %+v", got, s2)
	}
	eventually(t, "the held end kept by the new lobby", func() bool { return len(second.ends.get()) == 1 })
	got := second.ends.get()[0]
	if got.spec.ID != s1.ID || got.end.Lost || got.end.Result != 1 || !reflect.DeepEqual(got.end.Record, rec) || !bytes.Equal(got.end.Replay, file) {
		t.Fatalf("held end: spec %+v end %+v, want game %v with its record and replay", got.spec, got.end, s1.ID)
	}
	if got := savedHosts(t, path); !slices.Equal(got, []string{h.addr}) {
		t.Fatalf("file %v while the host runs the adopted game, want it", got)
	}
	gs[1].end(0)
	eventually(t, "the running game's end kept by the new lobby", func() bool { return len(second.ends.get()) == 2 })
	if got := second.ends.get()[1]; got.spec.ID != s2.ID || got.end.Result != 0 || got.end.Lost || !bytes.Equal(got.end.Replay, file) {
		t.Fatalf("second end: spec %+v end %+v", got.spec, got.end)
	}
	eventually(t, "the host forgotten", func() bool { return len(savedHosts(t, path)) == 0 })
	if n := calls2.Load(); n != 0 {
		t.Fatalf("the new lobby allocated %d times, want none (it attached from its file)", n)
	}
	// The new run allocates as before: the host is in the file again while it runs the game.
	g3, err := second.r.StartGame(restartSpec("CCCCC"))
	if err != nil {
		t.Fatal(err)
	}
	if got := savedHosts(t, path); !slices.Equal(got, []string{h.addr}) || calls2.Load() != 1 {
		t.Fatalf("file %v after an allocation of the new run", got)
	}
	h.st.games()[2].end(1)
	waitDone(t, g3)
	eventually(t, "the host forgotten again", func() bool { return len(savedHosts(t, path)) == 0 })
}

// TestAllocatedHostNothingHeldForgotten: a host of the file that holds nothing of the lobby
// (its games ended and were kept before the restart, or it restarted) is attached, then
// forgotten; a host of the file that cannot be reached does not keep the lobby from serving
// (Attached closes on its failed dial) and is forgotten after DynamicGiveUp.
func TestAllocatedHostNothingHeldForgotten(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, _, _ := restartHost(t)
		gone := netOf(t).listen()
		goneAddr := gone.Addr().String()
		gone.Close() // refused
		path := filepath.Join(t.TempDir(), AllocatedHostsFile)
		if err := writeAllocatedHosts(path, []string{goneAddr, h.addr}); err != nil {
			t.Fatal(err)
		}
		var calls atomic.Int32
		lr := runAllocLobby(t, "lobby-l", path, allocatorOf(h.addr, &calls))
		select {
		case <-lr.r.Attached():
		case <-time.After(5 * time.Second):
			t.Fatal("Attached not closed")
		}
		eventually(t, "the empty host forgotten", func() bool { return slices.Equal(savedHosts(t, path), []string{goneAddr}) })
		time.Sleep(DynamicGiveUp + 5*time.Second)
		if got := savedHosts(t, path); len(got) != 0 {
			t.Fatalf("file %v, want the unreachable host forgotten", got)
		}
		if len(lr.adopts) != 0 || calls.Load() != 0 {
			t.Fatalf("%d adopted, %d allocations", len(lr.adopts), calls.Load())
		}
	})
}

// TestAllocatedHostsFileBounded: the file keeps at most MaxAllocatedHosts hosts, the most
// recently allocated, and a lobby restores at most that many.
func TestAllocatedHostsFileBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), AllocatedHostsFile)
	var hosts []string
	for i := range MaxAllocatedHosts + 40 {
		hosts = append(hosts, fmt.Sprintf("10.1.%d.%d:7000", i/250, i%250))
	}
	if err := writeAllocatedHosts(path, hosts); err != nil {
		t.Fatal(err)
	}
	got := savedHosts(t, path)
	if len(got) != MaxAllocatedHosts || got[0] != hosts[40] || got[len(got)-1] != hosts[len(hosts)-1] {
		t.Fatalf("%d hosts kept from %s, want the last %d", len(got), got[0], MaxAllocatedHosts)
	}
	r := NewRemote(RemoteConfig{ID: "lobby-m", Logger: quiet(), Allocate: allocatorOf("x:1", new(atomic.Int32)), AllocatedFile: path})
	if n := len(r.Hosts()); n != MaxAllocatedHosts {
		t.Fatalf("%d hosts restored, want %d", n, MaxAllocatedHosts)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Fatalf("%d files in the data directory, want the hosts file alone (no temporary left)", len(entries))
	}
}

// TestAllocatedHostsFileCorrupt: a file that is not the lobby's list (garbage, an address
// that is not host:port, too big) is logged and ignored: the lobby starts, attaches to no host,
// allocates as usual, and the next allocation replaces the file.
func TestAllocatedHostsFileCorrupt(t *testing.T) {
	for name, content := range map[string][]byte{
		"garbage":  []byte("{\"hosts\": [\"10.0.0.1:7000\""),
		"not addr": []byte(`{"hosts": ["10.0.0.1"]}`),
		"too big":  bytes.Repeat([]byte(" "), maxAllocatedFileBytes+1),
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := startHost(t, 4, 5001, "")
				path := filepath.Join(t.TempDir(), AllocatedHostsFile)
				if err := os.WriteFile(path, content, 0o640); err != nil {
					t.Fatal(err)
				}
				var logs syncBuf
				var calls atomic.Int32
				r := startRemoteWith(t, RemoteConfig{ID: "lobby-n", Logger: slog.New(slog.NewTextHandler(&logs, nil)),
					Allocate: allocatorOf(h.addr, &calls), AllocatedFile: path})
				if !strings.Contains(logs.String(), "file is ignored") {
					t.Fatalf("no warning for a corrupt file: %q", logs.String())
				}
				select {
				case <-r.Attached():
				case <-time.After(time.Second):
					t.Fatal("Attached not closed")
				}
				eventually(t, "Run started", func() bool { r.mu.Lock(); defer r.mu.Unlock(); return r.ctx != nil })
				if _, err := r.StartGame(spec("ABCDE", 1)); err != nil {
					t.Fatalf("a start with a corrupt file: %v", err)
				}
				if got := savedHosts(t, path); !slices.Equal(got, []string{h.addr}) {
					t.Fatalf("file %v after an allocation, want it replaced", got)
				}
			})
		})
	}
}

// syncBuf is a bytes.Buffer safe for a logger's concurrent writes.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
