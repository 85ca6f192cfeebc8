package serverlist

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"
)

// gameSocket is a game server's UDP socket on loopback that answers the token as AnswerToken
// does.
func gameSocket(t *testing.T, secret string) *net.UDPConn {
	t.Helper()
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	answer := AnswerToken(secret)
	go func() {
		buf := make([]byte, 2048)
		for {
			n, from, err := c.ReadFromUDPAddrPort(buf)
			if err != nil {
				return
			}
			answer(buf[:n], from, func(b []byte, to netip.AddrPort) error { _, err := c.WriteToUDPAddrPort(b, to); return err })
		}
	}()
	return c
}

func startList(t *testing.T, tc TableConfig) (*Server, string) {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(ServerConfig{Conn: pc, Table: tc, CacheFor: 50 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.Run(ctx) }()
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() { hs.Close(); cancel(); <-done; pc.Close() })
	return s, hs.URL
}

func doJSON(t *testing.T, method, u, secret string, body any) (*http.Response, Registration) {
	t.Helper()
	var b []byte
	if body != nil {
		b, _ = json.Marshal(body)
	}
	req, _ := http.NewRequest(method, u, bytes.NewReader(b))
	if secret != "" {
		req.Header.Set("Authorization", "Bearer "+secret)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r Registration
	json.NewDecoder(resp.Body).Decode(&r)
	return resp, r
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	end := time.Now().Add(20 * time.Second) // a generous deadline, not a speed
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestHTTPAPI: a registration over HTTP is pending until the game socket echoes the token, then
// GET lists it with an ETag (If-None-Match: 304); a refresh that changes it changes the ETag; a
// registration naming another host is 403; DELETE with the secret removes it.
func TestHTTPAPI(t *testing.T) {
	s, base := startList(t, TableConfig{})
	game := gameSocket(t, testSecret)
	e := testEntry(":4242", game.LocalAddr().(*net.UDPAddr).Port)
	resp, reg := doJSON(t, "POST", base+PathServers, testSecret, e)
	if resp.StatusCode != http.StatusAccepted && resp.StatusCode != http.StatusOK {
		t.Fatalf("register: %s %+v", resp.Status, reg)
	}
	if reg.Addr != "127.0.0.1:4242" || reg.ExpiresIn != int(Expiry/time.Second) {
		t.Fatalf("registration %+v", reg)
	}
	var etag string
	waitUntil(t, "the entry listed", func() bool {
		l, errs := Fetch(context.Background(), nil, []string{base})
		return len(errs) == 0 && len(l) == 1 && l[0].Name == e.Name && l[0].Addr == "127.0.0.1:4242"
	})
	get := func(inm string) *http.Response {
		req, _ := http.NewRequest("GET", base+PathServers, nil)
		if inm != "" {
			req.Header.Set("If-None-Match", inm)
		}
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		return r
	}
	etag = get("").Header.Get("ETag")
	if r := get(etag); r.StatusCode != http.StatusNotModified {
		t.Fatalf("If-None-Match %s: %s", etag, r.Status)
	}
	e.Players = 7
	if resp, reg := doJSON(t, "POST", base+PathServers, testSecret, e); resp.StatusCode != http.StatusOK || reg.Status != Listed {
		t.Fatalf("refresh: %s %+v", resp.Status, reg)
	}
	waitUntil(t, "a new ETag", func() bool { return get(etag).StatusCode == http.StatusOK })
	// another host's address
	other := e
	other.Addr = "127.0.0.2:4242"
	if resp, reg := doJSON(t, "POST", base+PathServers, testSecret, other); resp.StatusCode != http.StatusForbidden || !strings.Contains(reg.Error, "not the address") {
		t.Fatalf("naming another host: %s %+v", resp.Status, reg)
	}
	bad := e
	bad.Name = "evil\u202e"
	if resp, reg := doJSON(t, "POST", base+PathServers, testSecret, bad); resp.StatusCode != http.StatusBadRequest || !strings.Contains(reg.Error, "U+202E") {
		t.Fatalf("bidi name: %s %+v", resp.Status, reg)
	}
	if resp, _ := doJSON(t, "POST", base+PathServers, "short", e); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("short secret: %s", resp.Status)
	}
	if resp, _ := doJSON(t, "DELETE", base+PathServers+"/127.0.0.1:4242", "not-the-secret-not-the-secret", nil); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("delete without the secret: %s", resp.Status)
	}
	if resp, _ := doJSON(t, "DELETE", base+PathServers+"/127.0.0.1:4242", testSecret, nil); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("delete: %s", resp.Status)
	}
	s.mu.Lock()
	l, _ := s.t.List()
	s.mu.Unlock()
	if len(l) != 0 {
		t.Fatalf("after delete: %+v", l)
	}
	// /metrics and /healthz
	for _, p := range []string{"/metrics", "/healthz"} {
		r, err := http.Get(base + p)
		if err != nil || r.StatusCode != http.StatusOK {
			t.Fatalf("%s: %v %v", p, err, r)
		}
		r.Body.Close()
	}
}

// TestReadFlood: reads past an address's rate get 429 (cheap), and other addresses still read.
func TestReadFlood(t *testing.T) {
	_, base := startList(t, TableConfig{})
	n429 := 0
	for range 200 {
		r, err := http.Get(base + PathServers)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode == http.StatusTooManyRequests {
			n429++
		}
	}
	if n429 < 200-DefaultReadBurst-DefaultReadRate*20 { // 200 reads take well under 20 s
		t.Fatalf("%d of 200 reads refused", n429)
	}
}

func TestFetchMerges(t *testing.T) {
	a := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(List{Servers: []Entry{testEntry("198.51.100.1:4242", 4242), testEntry("198.51.100.2:4242", 4242)}})
	}))
	defer a.Close()
	bad := testEntry("198.51.100.9:4242", 4242)
	bad.Name = "\x1b[2J"
	b := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(List{Servers: []Entry{testEntry("198.51.100.2:4242", 4242), testEntry("198.51.100.3:4242", 4242), bad, testEntry(":4242", 4242)}})
	}))
	defer b.Close()
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	l, errs := Fetch(context.Background(), nil, []string{a.URL, b.URL + "/servers", down.URL})
	var addrs []string
	for _, e := range l {
		addrs = append(addrs, e.Addr)
	}
	if strings.Join(addrs, " ") != "198.51.100.1:4242 198.51.100.2:4242 198.51.100.3:4242" {
		t.Fatalf("merged %v", addrs)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), strconv.Quote(down.URL)[1:len(down.URL)]) {
		t.Fatalf("errors %v", errs)
	}
}
