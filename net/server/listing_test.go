package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rtype/rtype/net/serverlist"
	"github.com/rtype/rtype/net/serverlist/listserver"
)

// startListServer runs a list server (listserver.Run, as rtype-list does) on 127.0.0.1 with a
// short expiry; stop kills it.
func startListServer(t *testing.T, expiry time.Duration) (url string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	errc := make(chan error, 1)
	go func() {
		errc <- listserver.Run(ctx, listserver.RunConfig{Addr: "127.0.0.1:0", ServerConfig: listserver.ServerConfig{
			Table: listserver.TableConfig{ReadRate: -1, Expiry: expiry, ProofTimeout: 2 * time.Second, TokenResend: 200 * time.Millisecond}, CacheFor: 100 * time.Millisecond, Logger: quietLog()},
			Ready: func(h, _ net.Addr) { ready <- "http://" + h.String() }})
	}()
	select {
	case url = <-ready:
	case err := <-errc:
		t.Fatal(err)
	}
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			cancel()
			if err := <-errc; err != nil {
				t.Errorf("list server: %v", err)
			}
		}
	}
	t.Cleanup(stop)
	return url, stop
}

// cuttable is a transport that can be cut, as if the process had died: no refresh, no DELETE.
type cuttable struct{ cut atomic.Bool }

func (c *cuttable) RoundTrip(r *http.Request) (*http.Response, error) {
	if c.cut.Load() {
		return nil, errors.New("cut")
	}
	return boundTransport("127.0.0.3").RoundTrip(r)
}

func boundTransport(ip string) http.RoundTripper {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = d.DialContext
	return tr
}

func metric(t *testing.T, base, name string) int {
	t.Helper()
	r, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	sc := bufio.NewScanner(r.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			n, _ := strconv.ParseFloat(v, 64)
			return int(n)
		}
	}
	t.Fatalf("no %s in /metrics", name)
	return 0
}

// TestListEndToEnd (real sockets, real time): three game servers, one of them a split lobby
// with its host, register with two list servers; every list shows all three once their game
// (or query) sockets echoed the token; with one list killed Fetch still has all three; a
// registration naming another server's address is never listed; a server that stops leaves at
// once, and one that dies (no DELETE) drops off within the expiry.
func TestListEndToEnd(t *testing.T) {
	t.Parallel()
	const expiry = 3 * time.Second // refreshes every 100 ms: 30 a expiry
	list1, kill1 := startListServer(t, expiry)
	list2, _ := startListServer(t, expiry)
	lists := []string{list1, list2}
	cut := &cuttable{}
	common := func(cfg Config, name string) Config {
		cfg.Lists, cfg.Name, cfg.MOTD, cfg.Region, cfg.ListInterval = lists, name, "motd of "+name, "test", 100*time.Millisecond
		cfg.Stage, cfg.Logger = "short", quietLog()
		return cfg
	}
	addrA, mgrA, stopA := startServerTB(t, common(Config{Addr: "127.0.0.2:0", UDPHost: "127.0.0.2"}, "alpha"))
	defer stopA()
	addrB, _, stopB := startServerTB(t, common(Config{Addr: "127.0.0.3:0", UDPHost: "127.0.0.3", ListClient: &http.Client{Transport: cut}}, "bravo"))
	defer stopB()
	host := startSplitHost(t, "127.0.0.5", 2)
	addrC, _, stopC := startServerTB(t, common(Config{Addr: "127.0.0.4:0", QueryAddr: "127.0.0.4:0",
		Fleet: FleetConfig{Role: RoleLobby, Secret: testControlSecret, Hosts: []string{host.control}}}, "charlie"))
	defer stopC()

	fetch := func(urls []string) (map[string]serverlist.Entry, []error) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		l, errs := serverlist.Fetch(ctx, nil, urls)
		m := map[string]serverlist.Entry{}
		for _, e := range l {
			m[e.Addr] = e
		}
		return m, errs
	}
	var got map[string]serverlist.Entry
	for _, u := range lists {
		if !waitFor(20*time.Second, func() bool { got, _ = fetch([]string{u}); return len(got) == 3 }) {
			t.Fatalf("%s lists %v, want the three servers", u, got)
		}
	}
	a, b, c := got[addrA], got[addrB], got[addrC]
	if a.Name != "alpha" || a.QueryPort != mgrA.PublicPort() || a.Fleet || a.MOTD != "motd of alpha" || a.Region != "test" || a.Capacity == 0 || len(a.Stages) == 0 {
		t.Errorf("alpha: %+v", a)
	}
	if b.Name != "bravo" || c.Name != "charlie" || !c.Fleet {
		t.Errorf("bravo %+v, charlie %+v", b, c)
	}

	// a registration from alpha's address naming alpha's lobby and game ports, with another
	// secret: alpha's game socket echoes the token under its own secret, so it never lists
	lobbyPort := addrA[strings.LastIndexByte(addrA, ':')+1:]
	imp := serverlist.Entry{Name: "impostor", Addr: ":" + lobbyPort, QueryPort: mgrA.PublicPort(), Version: "x", Protocol: 4}
	body, _ := json.Marshal(imp)
	req, _ := http.NewRequest("POST", list2+serverlist.PathServers, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer impostor-secret-impostor-secret")
	resp, err := (&http.Client{Transport: boundTransport("127.0.0.2")}).Do(req)
	if err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("impostor: %v %v", err, resp)
	}
	resp.Body.Close()
	// and one from the test's address naming alpha's: refused outright
	imp.Addr = addrA
	body, _ = json.Marshal(imp)
	req, _ = http.NewRequest("POST", list2+serverlist.PathServers, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer impostor-secret-impostor-secret")
	if resp, err = http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("naming another address: %v %v", err, resp)
	}
	resp.Body.Close()
	if !waitFor(20*time.Second, func() bool { return metric(t, list2, "rtype_list_pending") == 0 }) {
		t.Fatal("the impostor's registration is still pending after its proof timeout")
	}
	if got, _ = fetch([]string{list2}); got[addrA].Name != "alpha" {
		t.Fatalf("after the impostor: %+v", got[addrA])
	}

	// one list dies: the merged list still has all three, and says which list failed
	kill1()
	got, errs := fetch(lists)
	if len(got) != 3 || len(errs) != 1 {
		t.Fatalf("with list 1 down: %d entries, errors %v", len(got), errs)
	}

	// alpha stops: it leaves at once (DELETE)
	stopA()
	if !waitFor(20*time.Second, func() bool { got, errs = fetch([]string{list2}); _, ok := got[addrA]; return len(errs) == 0 && !ok }) {
		t.Fatal("alpha still listed after it stopped")
	}
	if n := metric(t, list2, `rtype_list_requests_total{code="204",op="leave"}`); n != 1 {
		t.Fatalf("%d leaves (DELETE) after alpha stopped, want 1", n)
	}
	// bravo dies without a word: it drops off within its expiry (and the list's tick)
	cut.cut.Store(true)
	stopB()
	start := time.Now()
	if !waitFor(20*time.Second+expiry, func() bool { got, errs = fetch([]string{list2}); _, ok := got[addrB]; return len(errs) == 0 && !ok }) {
		t.Fatal("bravo still listed long after its expiry")
	}
	if d := time.Since(start); d < expiry-time.Second {
		t.Errorf("bravo dropped off %v after it died, before its expiry %v: it was not the expiry", d, expiry)
	}
	if _, ok := got[addrC]; !ok || len(got) != 1 {
		t.Fatalf("charlie should be the one left: %v", got)
	}
}

// TestCheckListing: the list settings are checked at start with the flag's name in the error,
// and a private server (no -list) has no secret: its game socket answers queries and LAN probes
// but no token.
func TestCheckListing(t *testing.T) {
	q, err := checkListing(Config{})
	if err != nil || q.secret != "" || len(answerers(q)) != 1 {
		t.Fatalf("private server: %v %+v", err, q)
	}
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Lists: []string{"list.example.org"}, Name: "x"}, "-list"},
		{Config{Lists: []string{"https://list.example.org"}}, "-name"},
		{Config{Lists: []string{"https://list.example.org"}, Name: "evil\u202ename"}, "-name"},
		{Config{Lists: []string{"https://list.example.org"}, Name: "x", MOTD: "two\nlines"}, "-motd"},
		{Config{Lists: []string{"https://list.example.org"}, Name: "x", Region: strings.Repeat("r", 33)}, "-region"},
	} {
		if _, err := checkListing(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error naming %s", c.cfg, err, c.want)
		}
	}
	q, err = checkListing(Config{Lists: []string{"https://list.example.org"}, Name: "Bydo Hunters"})
	if err != nil || listserver.CheckSecret(q.secret) != nil || len(answerers(q)) != 2 {
		t.Fatalf("listed server: %v %+v", err, q)
	}
}
