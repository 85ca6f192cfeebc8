package fleet

import (
	"bytes"
	"context"
	"os"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/stagefile"
)

// mibStage is testdata/lobby/tiny.json padded with spaces to stagefile.MaxBytes − i bytes: a
// stage file of the largest size a lobby may send, a different one for each i.
func mibStage(t *testing.T, i int) *stagefile.File {
	t.Helper()
	b, err := os.ReadFile("../../testdata/lobby/tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.TrimRight(b, "}\n")
	b = append(b, bytes.Repeat([]byte(" "), stagefile.MaxBytes-i-len(b)-2)...)
	b = append(b, '}', '}')
	f, err := stagefile.New("mib", "mib.json", b, game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// lobbyConn is a lobby's control connection to h, driven by hand, and the host's replies on it
// (closed with the connection).
func lobbyConn(t *testing.T, h *testHost) (*Conn, <-chan *Msg) {
	t.Helper()
	nc, err := netOf(t).dial(context.Background(), h.addr)
	if err != nil {
		t.Fatal(err)
	}
	c, err := ClientHandshake(nc, testSecret, nil)
	if err != nil {
		nc.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	replies := make(chan *Msg, 16)
	go func() {
		defer close(replies)
		for {
			b, err := c.Read(time.Now().Add(time.Minute))
			if err != nil {
				return
			}
			if m, err := decode(b); err == nil && m.Type == TypeReply {
				replies <- m
			}
		}
	}()
	return c, replies
}

// slowPing gives a host the heartbeat of 1 s (the lobby silent for 5 s is gone) instead of the
// tests' 20 ms: 1 MiB files take a while on a loaded machine under -race.
func slowPing(hc *HostConfig) { hc.Ping = time.Second }

// slowPingRemote is startRemote with a heartbeat of 1 s (slowPing) and no START budget.
func slowPingRemote(t *testing.T, hosts ...string) *Remote {
	t.Helper()
	r := NewRemote(RemoteConfig{Hosts: hosts, Secret: testSecret, Logger: quiet(), Ping: time.Second, Redial: 10 * time.Millisecond, Dial: netOf(t).dial,
		StartTimeout: time.Hour}) // 1 MiB files take a while under -race
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); r.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return r
}

func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// A lobby connection's stage cache costs about the bytes of its files (issue 31: 3.7 MB per
// 1 MiB file, 240 MB per connection): 12 files of 1 MiB hold about 12 MiB, released when the
// connection closes.
func TestStageCacheMemoryNearFileSize(t *testing.T) {
	synctest.Test(t, testStageCacheMemoryNearFileSize)
}

func testStageCacheMemoryNearFileSize(t *testing.T) {
	h := startHostWith(t, &fakeStarter{port: 5001}, 4, "", slowPing)
	before := liveHeap()
	c, _ := lobbyConn(t, h)
	const n = 12
	size := 0
	for i := 0; i < n; i++ {
		f := mibStage(t, i)
		size += len(f.Data)
		sendStage(t, c, stageMsgs(f))
	}
	eventually(t, "files received", func() bool { return received(h.Host) == n })
	held := int64(liveHeap()) - int64(before)
	t.Logf("%d stage files of %d bytes: %.2f MB live, %.2f times their size", n, size/n, float64(held)/(1<<20), float64(held)/float64(size))
	if float64(held) > 1.15*float64(size) {
		t.Errorf("%d stage files of 1 MiB take %.1f MB of the host's memory, want about their size (%.1f MB)",
			n, float64(held)/(1<<20), float64(size)/(1<<20))
	}
	c.Close()
	eventually(t, "session gone", func() bool { h.mu.Lock(); defer h.mu.Unlock(); return len(h.sessions) == 0 })
	if after := int64(liveHeap()) - int64(before); after > 1<<20 {
		t.Errorf("%.1f MB still held after the connection closed, want the cache released", float64(after)/(1<<20))
	}
}

// The cache is bounded in bytes as well as in files (HostConfig.StageCacheBytes): a file that
// would take it past the bound is refused, with the reason the start naming it gives; the
// files kept still play.
func TestStageCacheBytesBound(t *testing.T) { synctest.Test(t, testStageCacheBytesBound) }

func testStageCacheBytesBound(t *testing.T) {
	h := startHostWith(t, &fakeStarter{port: 5001}, 8, "", slowPing, func(hc *HostConfig) { hc.StageCacheBytes = 3 << 20 })
	r := slowPingRemote(t, h.addr)
	eventually(t, "host up", func() bool { return r.Up() == 1 && freeOf(r) == 8 })
	var fs []*stagefile.File
	for i := range 4 {
		fs = append(fs, mibStage(t, i))
		sp := spec("ABCD"+string(rune('E'+i)), 1)
		sp.Stage, sp.Files = "mib", fs[i:]
		_, err := r.StartGame(sp)
		if i < 3 && err != nil {
			t.Fatalf("start on the stage file %d (%d MiB in all): %v", i, i+1, err)
		}
		if i == 3 && (err == nil || !strings.Contains(err.Error(), "bytes of stages sent on this connection")) {
			t.Fatalf("start on a 4th file of 1 MiB with a cache of 3 MiB: %v, want refused for the bound", err)
		}
	}
	sp := spec("FGHJK", 1)
	sp.Stage, sp.Files = "mib", fs[:1]
	if _, err := r.StartGame(sp); err != nil {
		t.Fatalf("a file kept no longer plays: %v", err)
	}
}

// An unfinished transfer does not wedge the connection (issue 31): a new file's part 0
// abandons it, the new file is kept and plays, and a start naming the abandoned file is
// refused saying so; the abandoned file sent again whole is kept.
func TestStageTransferAbandoned(t *testing.T) { synctest.Test(t, testStageTransferAbandoned) }

func testStageTransferAbandoned(t *testing.T) {
	h := startHostWith(t, &fakeStarter{port: 5001}, 4, "", slowPing)
	c, replies := lobbyConn(t, h)
	big := bigStage(t, "big")
	tiny, err := os.ReadFile("../../testdata/lobby/tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	small, err := stagefile.New("tiny", "tiny.json", tiny, game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	sendStage(t, c, stageMsgs(big)[:1]) // 1 of its 3 parts, and never the rest
	sendStage(t, c, stageMsgs(small))
	start := func(id uint64, f *stagefile.File) string {
		sp := spec("ABCDE", 1)
		sp.Stage, sp.Files = f.Name, []*stagefile.File{f}
		if err := c.Write(encode(&Msg{Type: TypeStart, ID: id, Spec: specOf(sp)})); err != nil {
			t.Fatal(err)
		}
		for m := range replies {
			if m.ID == id {
				return m.Error
			}
		}
		t.Fatal("connection closed before the reply")
		return ""
	}
	if why := start(1, small); why != "" {
		t.Fatalf("a stage file sent after an unfinished transfer: start refused (%s), want it played", why)
	}
	if why := start(2, big); !strings.Contains(why, "abandoned after 1 of 3 parts") {
		t.Fatalf("start on the abandoned file: %q, want refused as abandoned", why)
	}
	sendStage(t, c, stageMsgs(big))
	if why := start(3, big); why != "" {
		t.Fatalf("the abandoned file sent again whole: start refused (%s)", why)
	}
}

func sendStage(t *testing.T, c *Conn, ms []*Msg) {
	t.Helper()
	for _, m := range ms {
		if err := c.Write(encode(m)); err != nil {
			t.Fatal(err)
		}
	}
}
