package serverlist

import (
	"errors"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"
)

const testSecret = "0123456789abcdef0123456789abcdef"

func testEntry(addr string, query int) Entry {
	return Entry{Name: "Bydo Hunters", MOTD: "co-op every night", Addr: addr, QueryPort: query, Version: "v1.0.0", Protocol: 4,
		Players: 3, Capacity: 32, Lobbies: 1, Stages: []string{"stage1", "stage2"}, Region: "eu"}
}

// prove registers e from src and echoes its token as the game server would.
func prove(t *testing.T, tb *Table, now time.Duration, src netip.Addr, secret string, e Entry) {
	t.Helper()
	st, out, err := tb.Register(now, src, secret, e)
	if err != nil || st != Pending || len(out) != 1 {
		t.Fatalf("register: %v %v %d datagrams", st, err, len(out))
	}
	tok, ok := ParseToken(out[0].B)
	if !ok {
		t.Fatalf("not a token datagram: % x", out[0].B)
	}
	echo := AppendEcho(nil, secret, tok)
	if len(echo) > len(out[0].B) {
		t.Fatalf("echo of %d bytes answers a token of %d", len(echo), len(out[0].B))
	}
	if !tb.Echo(now, out[0].To, echo) {
		t.Fatal("the echo did not list the entry")
	}
}

func TestRegisterProveList(t *testing.T) {
	tb := NewTable(TableConfig{})
	src := netip.MustParseAddr("198.51.100.7")
	st, out, err := tb.Register(0, src, testSecret, testEntry(":4242", 4243))
	if err != nil || st != Pending {
		t.Fatal(st, err)
	}
	if l, _ := tb.List(); len(l) != 0 {
		t.Fatalf("listed before its proof: %v", l)
	}
	if len(out) != 1 || out[0].To != netip.MustParseAddrPort("198.51.100.7:4243") || len(out[0].B) != TokenSize {
		t.Fatalf("token datagram %+v", out)
	}
	tok, _ := ParseToken(out[0].B)
	// an echo from another port, or under another secret, does not list it
	if tb.Echo(time.Second, netip.MustParseAddrPort("198.51.100.7:9999"), AppendEcho(nil, testSecret, tok)) {
		t.Fatal("an echo from another port listed the entry")
	}
	if tb.Echo(time.Second, out[0].To, AppendEcho(nil, "another-servers-secret-0000", tok)) {
		t.Fatal("an echo under another secret listed the entry")
	}
	// lost: the token is sent again
	if again := tb.Tick(TokenResend); len(again) != 1 || string(again[0].B) != string(out[0].B) {
		t.Fatalf("resend %+v", again)
	}
	if !tb.Echo(3*time.Second, out[0].To, AppendEcho(nil, testSecret, tok)) {
		t.Fatal("the right echo did not list the entry")
	}
	l, v := tb.List()
	if len(l) != 1 || l[0].Addr != "198.51.100.7:4242" || l[0].Name != "Bydo Hunters" {
		t.Fatalf("list %+v", l)
	}
	// a refresh with the secret updates it at once and changes the version
	e := testEntry("198.51.100.7:4242", 4243)
	e.Players = 4
	if st, out, err := tb.Register(4*time.Second, src, testSecret, e); st != Listed || len(out) != 0 || err != nil {
		t.Fatal(st, out, err)
	}
	if l, v2 := tb.List(); l[0].Players != 4 || v2 == v {
		t.Fatalf("refresh: %+v version %d→%d", l, v, v2)
	}
	// a delete without the secret is refused; with it the entry goes
	if err := tb.Delete(5*time.Second, src, "wrong-secret-wrong-secret", "198.51.100.7:4242"); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	if err := tb.Delete(5*time.Second, src, testSecret, ":4242"); err != nil {
		t.Fatal(err)
	}
	if l, _ := tb.List(); len(l) != 0 {
		t.Fatalf("after delete: %v", l)
	}
	if _, _, recs, nets := tb.Counts(); recs != 0 || nets != 0 {
		t.Fatalf("a deleted entry left %d records, %d networks", recs, nets)
	}
}

// TestOtherAddressNeverListed: a registration naming another host is refused, and one naming
// another server's port on the same host (which answers the token with its own secret) expires
// unlisted.
func TestOtherAddressNeverListed(t *testing.T) {
	tb := NewTable(TableConfig{})
	src := netip.MustParseAddr("198.51.100.7")
	if _, out, err := tb.Register(0, src, testSecret, testEntry("203.0.113.9:4242", 4242)); !errors.Is(err, ErrNotYours) || out != nil {
		t.Fatalf("naming another host: %v, %d datagrams sent", err, len(out))
	}
	_, out, err := tb.Register(0, src, testSecret, testEntry(":5000", 5000))
	if err != nil {
		t.Fatal(err)
	}
	// the real server at :5000 echoes every token under its own secret
	victimSecret := "the-victims-own-secret-0123456789"
	for now := time.Duration(0); now <= ProofTimeout+time.Second; now += time.Second {
		for _, d := range out {
			tok, _ := ParseToken(d.B)
			tb.Echo(now, d.To, AppendEcho(nil, victimSecret, tok))
		}
		out = tb.Tick(now)
		if l, _ := tb.List(); len(l) != 0 {
			t.Fatalf("listed at %v: %+v", now, l)
		}
	}
	if _, pending, recs, _ := tb.Counts(); pending != 0 || recs != 0 {
		t.Fatalf("after the proof timeout: %d pending, %d records", pending, recs)
	}
}

func TestExpiry(t *testing.T) {
	tb := NewTable(TableConfig{})
	a, b := netip.MustParseAddr("198.51.100.7"), netip.MustParseAddr("198.51.100.8")
	prove(t, tb, 0, a, testSecret, testEntry(":4242", 4242))
	prove(t, tb, 0, b, testSecret, testEntry(":4242", 4242))
	for now := time.Duration(0); now < 3*Expiry; now += time.Second {
		if now%RefreshInterval == 0 {
			if st, _, err := tb.Register(now, a, testSecret, testEntry(":4242", 4242)); st != Listed || err != nil {
				t.Fatal(now, st, err)
			}
		}
		tb.Tick(now)
		l, _ := tb.List()
		wantB := now <= Expiry
		if len(l) != 1+btoi(wantB) || l[0].Addr != "198.51.100.7:4242" {
			t.Fatalf("at %v: %+v", now, l)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestFloodBounded: 1 000 registrations from one address and 100 000 from as many addresses
// leave the table within its bounds; listed servers stay listed and refresh.
func TestFloodBounded(t *testing.T) {
	tb := NewTable(TableConfig{})
	real := netip.MustParseAddr("198.51.100.7")
	prove(t, tb, 0, real, testSecret, testEntry(":4242", 4242))
	flood := netip.MustParseAddr("203.0.113.66")
	var refused, sent int
	for i := range 1000 {
		_, out, err := tb.Register(time.Duration(i)*time.Millisecond, flood, testSecret, testEntry(":"+itoa(1000+i), 1000+i))
		if err != nil {
			refused++
		}
		sent += len(out)
	}
	if _, _, recs, _ := tb.Counts(); recs > 1+DefaultMaxPerNetwork || sent > DefaultMaxPerNetwork || refused < 1000-DefaultMaxPerNetwork {
		t.Fatalf("one address: %d records, %d tokens sent, %d refused", recs, sent, refused)
	}
	// many addresses (an IPv6 network each)
	for i := range 100000 {
		src := netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, byte(i >> 16), byte(i >> 8), byte(i), 15: 1})
		tb.Register(time.Second+time.Duration(i)*time.Microsecond, src, testSecret, testEntry(":4242", 4242))
	}
	listed, pending, recs, nets := tb.Counts()
	if recs > DefaultMaxEntries || pending > DefaultMaxPending || nets > recs || listed != 1 {
		t.Fatalf("many addresses: %d listed, %d pending, %d records, %d networks", listed, pending, recs, nets)
	}
	if st, _, err := tb.Register(2*time.Second, real, testSecret, testEntry(":4242", 4242)); st != Listed || err != nil {
		t.Fatalf("the real server's refresh during the flood: %v %v", st, err)
	}
	// the proofs never come: the flood is forgotten, the real server stays
	tb.Tick(2*time.Second + ProofTimeout + time.Second)
	if listed, pending, recs, _ := tb.Counts(); listed != 1 || pending != 0 || recs != 1 {
		t.Fatalf("after the flood: %d listed, %d pending, %d records", listed, pending, recs)
	}
}

func TestReadRate(t *testing.T) {
	tb := NewTable(TableConfig{})
	a := netip.MustParseAddr("203.0.113.66")
	n := 0
	for i := range 10000 { // 10 000 reads in one second
		if tb.AllowRead(time.Duration(i)*100*time.Microsecond, a) {
			n++
		}
	}
	if n > DefaultReadBurst+DefaultReadRate+1 {
		t.Fatalf("%d of 10000 reads in a second allowed", n)
	}
	if !tb.AllowRead(time.Second, netip.MustParseAddr("198.51.100.7")) {
		t.Fatal("another address's read refused")
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestValidate(t *testing.T) {
	ok := testEntry(":4242", 4242)
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func(e *Entry){
		"empty name":      func(e *Entry) { e.Name = "" },
		"long name":       func(e *Entry) { e.Name = strings.Repeat("x", MaxName+1) },
		"control":         func(e *Entry) { e.Name = "a\x1b[31mred" },
		"newline motd":    func(e *Entry) { e.MOTD = "line\nline" },
		"bidi override":   func(e *Entry) { e.Name = "abc\u202edcba" },
		"bidi isolate":    func(e *Entry) { e.MOTD = "\u2067x" },
		"not utf-8":       func(e *Entry) { e.Name = "\xff" },
		"long motd":       func(e *Entry) { e.MOTD = strings.Repeat("m", MaxMOTD+1) },
		"long region":     func(e *Entry) { e.Region = strings.Repeat("r", MaxRegion+1) },
		"dns host":        func(e *Entry) { e.Addr = "rtype.example.org:4242" },
		"no port":         func(e *Entry) { e.Addr = "198.51.100.7" },
		"port 0":          func(e *Entry) { e.Addr = ":0" },
		"query port":      func(e *Entry) { e.QueryPort = 70000 },
		"players":         func(e *Entry) { e.Players = -1 },
		"too many stages": func(e *Entry) { e.Stages = make([]string, MaxStages+1) },
		"empty stage":     func(e *Entry) { e.Stages = []string{""} },
	} {
		e := ok
		f(&e)
		if err := e.Validate(); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v", name, err)
		}
	}
	e := ok
	e.Name = "Café ☕ R-9"
	e.Addr = "[2001:db8::1]:4242"
	if err := e.Validate(); err != nil {
		t.Errorf("unicode name, IPv6: %v", err)
	}
}
