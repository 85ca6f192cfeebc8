package netflow

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/netip"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/net/query"
	"github.com/rtype/rtype/net/serverlist"
	"github.com/rtype/rtype/net/wire"
)

// fakeSource is a ServerSource whose lists, LAN and servers the test sets: a server absent from
// answers never answers its query (it waits for the query's deadline).
type fakeSource struct {
	entries []serverlist.Entry
	errs    []error
	lists   int
	lan     []query.Info
	answers map[netip.AddrPort]time.Duration
	asked   chan netip.AddrPort
}

func (f *fakeSource) Lists(context.Context) ([]serverlist.Entry, []error, int) {
	return f.entries, f.errs, f.lists
}

func (f *fakeSource) LAN(ctx context.Context) ([]query.Info, error) {
	<-ctx.Done() // answers are collected until the probe's time is up
	return f.lan, ctx.Err()
}

func (f *fakeSource) Ping(ctx context.Context, ap netip.AddrPort) (query.Info, time.Duration, error) {
	f.asked <- ap
	rtt, ok := f.answers[ap]
	if !ok {
		<-ctx.Done()
		return query.Info{}, 0, ctx.Err()
	}
	time.Sleep(rtt) // virtual time: the round trip
	return query.Info{Name: "answered " + ap.String(), Players: 1, MaxPlayers: 4, Protocol: wire.Version}, rtt, nil
}

// next returns the runner's next reply (virtual time passes while it waits).
func next(t *testing.T, n *Runner) scene.Event {
	t.Helper()
	select {
	case r := <-n.Events():
		return r.Ev
	case <-time.After(time.Minute):
		t.Fatal("no reply in a minute of virtual time")
		return scene.Event{}
	}
}

// TestListServersAndPing: the Internet tab lists the entries of the lists that answered and says
// which did not; each server is queried at its query port, its round trip the client's own; a
// silent server's query ends at PingTimeout with an error; the LAN tab lists the probe's
// answers.
func TestListServersAndPing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &fakeSource{
			entries: []serverlist.Entry{
				{Name: "A", Addr: "127.0.0.1:4242", QueryPort: 4242, Protocol: wire.Version, Capacity: 4},
				{Name: "B", Addr: "127.0.0.2:4242", QueryPort: 5000, Protocol: wire.Version, Capacity: 4},
			},
			errs: []error{errors.New("list https://down.example: 503")}, lists: 2,
			lan:     []query.Info{{Name: "LAN", Addr: "192.168.1.9:4242", MaxPlayers: 4}},
			answers: map[netip.AddrPort]time.Duration{netip.MustParseAddrPort("127.0.0.2:5000"): 30 * time.Millisecond},
			asked:   make(chan netip.AddrPort, 8),
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		n := NewRunner(ctx, slog.New(slog.NewTextHandler(io.Discard, nil)), "p", "")
		defer n.Close()
		n.SetServerSource(src)

		n.Exec(scene.Cmd{Kind: scene.CmdListServers, View: scene.ServerView{Tab: scene.TabInternet}})
		ev := next(t, n)
		if ev.Kind != scene.EvServerList || len(ev.Servers) != 2 || ev.Err == nil || ev.Reason == "" {
			t.Fatalf("list: %+v", ev)
		}
		if ev.Servers[0].QueryAddr() != "127.0.0.1:4242" || ev.Servers[1].QueryAddr() != "127.0.0.2:5000" {
			t.Fatalf("query addresses %q %q", ev.Servers[0].QueryAddr(), ev.Servers[1].QueryAddr())
		}

		start := time.Now()
		n.Exec(scene.Cmd{Kind: scene.CmdPingServers, Servers: ev.Servers})
		got := map[string]scene.Event{}
		for range 2 {
			ev := next(t, n)
			got[ev.Servers[0].Addr] = ev
		}
		b := got["127.0.0.2:4242"]
		if b.Err != nil || b.Servers[0].Ping != 30*time.Millisecond || b.Servers[0].Name != "answered 127.0.0.2:5000" {
			t.Errorf("B's answer: %+v", b)
		}
		a := got["127.0.0.1:4242"]
		if a.Err == nil {
			t.Errorf("A never answers, yet: %+v", a)
		}
		if d := time.Since(start); d != scene.PingTimeout {
			t.Errorf("the silent server's query ended after %v, want PingTimeout %v", d, scene.PingTimeout)
		}
		asked := []netip.AddrPort{<-src.asked, <-src.asked}
		slices.SortFunc(asked, netip.AddrPort.Compare)
		if asked[0].String() != "127.0.0.1:4242" || asked[1].String() != "127.0.0.2:5000" {
			t.Errorf("queried %v", asked)
		}

		n.Exec(scene.Cmd{Kind: scene.CmdListServers, View: scene.ServerView{Tab: scene.TabLAN}})
		ev = next(t, n)
		if ev.View.Tab != scene.TabLAN || len(ev.Servers) != 1 || ev.Servers[0].Addr != "192.168.1.9:4242" || ev.Err != nil {
			t.Fatalf("LAN: %+v", ev)
		}

		src.lists, src.entries, src.errs = 0, nil, nil
		n.Exec(scene.Cmd{Kind: scene.CmdListServers})
		if ev := next(t, n); ev.Reason == "" || len(ev.Servers) != 0 {
			t.Fatalf("no list set, said: %+v", ev)
		}
	})
}

// TestNewPingsStopOld: queries under way stop when new ones start (a refresh), so a long list
// refreshed twice does not query every server twice at once.
func TestNewPingsStopOld(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &fakeSource{asked: make(chan netip.AddrPort, 64)}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		n := NewRunner(ctx, slog.New(slog.NewTextHandler(io.Discard, nil)), "p", "")
		defer n.Close()
		n.SetServerSource(src)
		var many []scene.Server
		for i := range MaxPings + 10 {
			many = append(many, scene.Server{Addr: netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), uint16(1000+i)).String()})
		}
		n.Exec(scene.Cmd{Kind: scene.CmdPingServers, Servers: many})
		synctest.Wait()
		if len(src.asked) != MaxPings {
			t.Fatalf("%d queries at once, want MaxPings %d", len(src.asked), MaxPings)
		}
		n.Exec(scene.Cmd{Kind: scene.CmdPingServers, Servers: many[:1]})
		ev := next(t, n)
		if ev.Servers[0].Addr != many[0].Addr {
			t.Fatalf("a stopped query answered: %+v", ev)
		}
		synctest.Wait()
		select {
		case r := <-n.Events():
			t.Fatalf("a stopped query answered: %+v", r.Ev)
		default:
		}
		if len(src.asked) != MaxPings+1 {
			t.Errorf("%d queries asked, want %d: the stopped ones' rest never started", len(src.asked), MaxPings+1)
		}
	})
}

// oneAnswer is a ServerSource whose every query answers in.
type oneAnswer struct{ in query.Info }

func (o oneAnswer) Lists(context.Context) ([]serverlist.Entry, []error, int) { return nil, nil, 0 }
func (o oneAnswer) LAN(context.Context) ([]query.Info, error)                { return nil, nil }
func (o oneAnswer) Ping(context.Context, netip.AddrPort) (query.Info, time.Duration, error) {
	return o.in, time.Millisecond, nil
}

// A query's counts are one byte: a server of 256 places answers 255, and the row keeps the
// list's 256; a count the byte holds is the query's (fresher than the list's).
func TestPingKeepsTheListsLargerCounts(t *testing.T) {
	listed := scene.Server{Addr: "192.0.2.1:4242", Players: 300, Capacity: 256}
	r, err := pingOne(context.Background(), oneAnswer{query.Info{Players: query.MaxCount, MaxPlayers: query.MaxCount}}, listed)
	if err != nil || r.Players != 300 || r.Capacity != 256 {
		t.Fatalf("saturated answer: %d/%d, %v; want the list's 300/256", r.Players, r.Capacity, err)
	}
	r, _ = pingOne(context.Background(), oneAnswer{query.Info{Players: 3, MaxPlayers: 16}}, listed)
	if r.Players != 3 || r.Capacity != 16 {
		t.Fatalf("answer 3/16 shown as %d/%d", r.Players, r.Capacity)
	}
}
