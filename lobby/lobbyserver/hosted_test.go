package lobbyserver

import (
	"bytes"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/handoff"
)

// hostedGame is a vgame on another host (HostedGame), as net/fleet's games are.
type hostedGame struct {
	vgame
	host string
}

func (g *hostedGame) Host() string { return g.host }

type hostedStarter struct {
	host  string
	games []*hostedGame
	specs []handoff.GameSpec
}

func (s *hostedStarter) StartGame(spec handoff.GameSpec) (handoff.Game, error) {
	g := &hostedGame{vgame: vgame{port: fakePort}, host: s.host}
	s.games = append(s.games, g)
	s.specs = append(s.specs, spec)
	return g, nil
}

// TestCoreStartNamesTheHost: a game on another host (HostedGame) makes START, SPECTATE and a
// rejoin's START carry its host as a fourth field (docs/PROTOCOL.md §2.5.1); a Game without
// a host — the all-in-one server's — keeps three (the other Core tests pin those lines), and
// so does one whose Host is not a valid host field.
func TestCoreStartNamesTheHost(t *testing.T) {
	for _, tc := range []struct{ host, tail string }{
		{"games-2.example.org", ",games-2.example.org"},
		{"203.0.113.7", ",203.0.113.7"},
		{"2001:db8::7", ",2001:db8::7"},
		{"", ""},
		{"bad host,with comma", ""},
	} {
		st := &hostedStarter{host: tc.host}
		v := newVLobby(t, ServerConfig{Starter: st, MaxConnsPerAddr: 100})
		a, b := v.player("192.0.2.1", "alice"), v.player("192.0.2.2", "bob")
		code := a.ok(lobby.CmdJoinLobby)
		b.ok(lobby.CmdJoinLobby, code)
		a.take()
		b.take()
		a.ok(lobby.CmdStart)
		g := st.games[0]
		for i, c := range []*vconn{a, b} {
			got := c.pushes(lobby.PushStart)
			if len(got) != 1 || !strings.HasPrefix(got[0], strconv.Itoa(fakePort)+",") || !strings.HasSuffix(got[0], tc.tail) ||
				strings.Count(got[0], ",") != 2+strings.Count(tc.tail, ",") {
				t.Fatalf("host %q: START to player %d: %q, want the host field %q", tc.host, i, got, tc.tail)
			}
		}
		s := v.player("192.0.2.3", "sam")
		s.ok(lobby.CmdJoinLobby, code)
		m := g.spectates[0]
		if got := s.pushes(lobby.PushSpectate); len(got) != 1 || got[0] != strconv.Itoa(fakePort)+","+strconv.FormatUint(uint64(m.Token), 10)+","+hexKey(m.Key)+tc.tail {
			t.Fatalf("host %q: SPECTATE %q", tc.host, got)
		}
		key := st.specs[0].Members[1].Key
		v.core.Closed(v.now, b.id)
		b2 := v.player("192.0.2.2", "bob")
		b2.ok(lobby.CmdRejoin, code, "1", lobby.RejoinProof(key, code, 1, uuid.MustParse(b2.user)))
		rm := g.rejoins[0]
		if got := b2.pushes(lobby.PushStart); len(got) != 1 || got[0] != strconv.Itoa(fakePort)+","+strconv.FormatUint(uint64(rm.Token), 10)+","+hexKey(rm.Key)+tc.tail {
			t.Fatalf("host %q: rejoin START %q", tc.host, got)
		}
	}
}

// TestClientStartPushHost: the reference client reads the host field of the vectors in
// testdata/lobby/start_host.txt (shown in docs/PROTOCOL.md §2.5.1) and keeps "" without one.
func TestClientStartPushHost(t *testing.T) {
	vec, err := os.ReadFile("../../testdata/lobby/start_host.txt")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../../docs/PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(vec), "\r\n"), "\r\n")
	if len(lines) != 2 {
		t.Fatalf("%d vectors, want 2", len(lines))
	}
	for _, l := range lines {
		l = strings.TrimSuffix(l, "\r\n") + "\r\n"
		if !bytes.Contains(doc, []byte(strings.ReplaceAll(l, "\r\n", `\r\n`))) {
			t.Errorf("docs/PROTOCOL.md does not show the vector %q", l)
		}
	}
	for i, want := range []lobby.StartInfo{
		{Port: 7777, Token: 305419896, Key: [16]byte{0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff}, Host: "games-2.example.org"},
		{Port: 7777, Token: 2864434397, Key: [16]byte{0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x00}, Host: "203.0.113.7", Spectator: true},
	} {
		line := strings.TrimSuffix(lines[i], "\r\n") + "\r\n"
		addr, wait := fakeServer(t, func(nc net.Conn, lr *lobby.LineReader) {
			nc.Write([]byte(line))
			lr.ReadLine()
		})
		c, err := lobby.Dial(waitCtx(t), addr)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Authenticate("a"); err != nil {
			t.Fatal(err)
		}
		got, err := c.WaitStart(waitCtx(t))
		if err != nil || got != want {
			t.Errorf("vector %d: %+v, %v; want %+v", i, got, err, want)
		}
		c.Close()
		wait()
	}
}

// TestValidHost: the host field's grammar (§2.5.1).
func TestValidHost(t *testing.T) {
	for _, h := range []string{"203.0.113.7", "2001:db8::7", "::1", "localhost", "games-2.example.org", "a.b.c.", "x1", strings.Repeat("a", 63) + ".org"} {
		if !lobby.ValidHost(h) {
			t.Errorf("ValidHost(%q) = false, want true", h)
		}
	}
	for _, h := range []string{"", "1", "10.0.0", "fe80::1%eth0", "[::1]", "-a.org", "a-.org", "a..org", "a,b", "a b", "é.org", strings.Repeat("a", 64) + ".org", strings.Repeat("a.", 127) + "ab"} {
		if lobby.ValidHost(h) {
			t.Errorf("ValidHost(%q) = true, want false", h)
		}
	}
}
