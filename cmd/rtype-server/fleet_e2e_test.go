package main

import (
	"context"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rtype/rtype/net/agones"
	"github.com/rtype/rtype/net/bot"
	"github.com/rtype/rtype/net/server"
)

// proc is one rtype-server process of the fleet test.
type proc struct {
	cmd    *exec.Cmd
	stderr syncBuf
	done   chan struct{}
	err    error
}

func startProc(t *testing.T, env []string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(binary(t), args...), done: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stderr = &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("%v stderr:\n%s", args, p.stderr.String())
		}
	})
	return p
}

func until(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(d); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// TestFleetProcesses is issue 23's end-to-end test: one lobby and three hosts as real
// processes, the hosts Agones GameServers of fake sidecars and the lobby allocating through a
// fake allocator (net/agones, written from the Agones swagger documents). Twelve one-bot
// games fill the hosts by capacity (5, 5, 2: games are packed on Allocated hosts first); one
// host is killed with SIGKILL mid-game (its players get a clear end, its fake sees health
// stop), another drained with SIGTERM (it takes no new game, its running games finish, it calls
// Shutdown and exits 0); a new game goes to the third.
func TestFleetProcesses(t *testing.T) {
	t.Parallel()
	const secret = "RTYPE_CONTROL_SECRET=fleet-e2e-test-secret-0123"
	type hostProc struct {
		name         string
		fake         *agones.FakeSDK
		udp, control int
		p            *proc
	}
	var hosts []*hostProc
	var sdks []*agones.FakeSDK
	for _, name := range []string{"a", "b", "c"} {
		h := &hostProc{name: name, udp: freePort(t), control: freePort(t)}
		h.fake = agones.NewFakeSDK("rtype-hosts-"+name, "rtype-hosts", "127.0.0.1",
			[]agones.Port{{Name: server.AgonesGamePort, Port: h.udp}, {Name: "control", Port: h.control}},
			map[string]agones.CounterStatus{agones.CounterGames: {Capacity: 1000}})
		srv := httptest.NewServer(h.fake)
		t.Cleanup(srv.Close)
		sdkPort := srv.Listener.Addr().(*net.TCPAddr).Port
		h.p = startProc(t, []string{secret, "AGONES_SDK_HTTP_PORT=" + strconv.Itoa(sdkPort), "RTYPE_UDP_ADDR=127.0.0.1"},
			"-role", "host", "-agones", "-control", "127.0.0.1:"+strconv.Itoa(h.control), "-udp-port", strconv.Itoa(h.udp),
			"-capacity", "5", "-drain-timeout", "2m", "-log-format", "json")
		hosts = append(hosts, h)
		sdks = append(sdks, h.fake)
	}
	for _, h := range hosts {
		until(t, "host "+h.name+" Ready", 30*time.Second, func() bool { return h.fake.GameServer().Status.State == "Ready" })
	}
	alloc := httptest.NewServer(agones.NewFakeAllocator(sdks...))
	t.Cleanup(alloc.Close)
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	lob := startProc(t, []string{secret}, "-role", "lobby", "-addr", addr, "-stage", "short", "-max-lobbies-per-addr", "32", "-max-conns-per-addr", "64", "-allocator", alloc.URL, "-log-format", "json")
	until(t, "the lobby", 30*time.Second, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	})

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var mu sync.Mutex
	var results []bot.Result
	var wg sync.WaitGroup
	play := func(i int) {
		defer wg.Done()
		res, err := bot.Run(ctx, bot.Config{Server: addr, Players: 1, Name: "g" + strconv.Itoa(i) + "-"}, nil)
		if err != nil {
			t.Errorf("game %d: %v", i, err)
		}
		mu.Lock()
		results = append(results, res...)
		mu.Unlock()
	}
	for i := range 12 {
		wg.Add(1)
		go play(i)
	}
	count := func(h *hostProc) int64 { return int64(h.fake.GameServer().Status.Counters[agones.CounterGames].Count) }
	until(t, "12 games on the hosts", 60*time.Second, func() bool { return count(hosts[0])+count(hosts[1])+count(hosts[2]) == 12 })
	if a, b, c := count(hosts[0]), count(hosts[1]), count(hosts[2]); a != 5 || b != 5 || c != 2 {
		t.Fatalf("games per host %d, %d, %d; want 5, 5, 2 (packed by capacity)", a, b, c)
	}
	time.Sleep(time.Second) // mid-game: the games have run a second
	if err := hosts[0].p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	if err := hosts[1].p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	until(t, "host b draining", 10*time.Second, func() bool {
		return hosts[1].fake.GameServer().ObjectMeta.Labels[agones.SDKLabelPrefix+agones.LabelAccepting] == "false"
	})
	wg.Add(1)
	play(12) // a new game: a full, a dead, b draining: c
	wg.Wait()

	aborted, ended := 0, 0
	for _, r := range results {
		switch {
		case r.Result == "aborted" && strings.Contains(r.Error, "game host stopped answering"):
			aborted++
		case r.Result == "victory" || r.Result == "defeat":
			ended++
		default:
			t.Errorf("bot %s: %s (%s)", r.Bot, r.Result, r.Error)
		}
	}
	if aborted != 5 || ended != 8 {
		t.Errorf("%d games ended by the lost host, %d played to their end; want 5 and 8", aborted, ended)
	}
	if c := count(hosts[2]); c != 0 || hosts[2].fake.CallsTo("PATCH", "/v1beta1/counters/games") < 4 {
		t.Errorf("host c: count %d at the end", c)
	}
	// The killed host's sidecar heard no health ping after the kill (one in flight at most).
	late := 0
	for _, at := range hosts[0].fake.Healths() {
		if at.After(killed.Add(100 * time.Millisecond)) {
			late++
		}
	}
	if late > 0 {
		t.Errorf("%d health pings from the killed host", late)
	}
	// The drained host called Shutdown and exited 0.
	select {
	case <-hosts[1].p.done:
		if hosts[1].p.err != nil {
			t.Errorf("drained host: %v, want exit 0", hosts[1].p.err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the drained host did not exit")
	}
	if hosts[1].fake.GameServer().Status.State != "Shutdown" {
		t.Errorf("drained host: state %s, want Shutdown", hosts[1].fake.GameServer().Status.State)
	}
	select {
	case <-lob.done:
		t.Fatalf("the lobby exited: %v", lob.err)
	default:
	}
	if err := lob.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-lob.done
	if lob.err != nil {
		t.Errorf("lobby exit: %v", lob.err)
	}
}
