package lobbyserver

import (
	"net/netip"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rtype/rtype/lobby"
)

var wall0 = time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)

// TestCoreKick: a kicked player is told why in a 500 line, then closed; it leaves its running
// game for good (no rejoin); the other players stay. Kick finds a player by name (any case)
// or by user UUID; nobody of that name: 0.
func TestCoreKick(t *testing.T) {
	v := newVLobby(t, ServerConfig{})
	a, b := v.player("192.0.2.1", "alice"), v.player("192.0.2.2", "bob")
	code := a.ok(lobby.CmdJoinLobby)
	b.ok(lobby.CmdJoinLobby, code)
	a.ok(lobby.CmdStart)
	a.take()
	b.take()
	if n := v.core.Kick(v.now, "ALICE", "spawn camping"); n != 1 {
		t.Fatalf("Kick(ALICE): %d, want 1", n)
	}
	v.collect()
	got := a.take()
	if len(got) != 1 || got[0] != "500 "+vSrv+" kicked by the operator: spawn camping, closing connection\r\n" || !a.closed {
		t.Fatalf("kicked player got %q, closed %v", got, a.closed)
	}
	g := v.games[0].(*vgame)
	if len(g.drops) != 1 || g.drops[0].id.String() != a.user || !g.drops[0].left {
		t.Fatalf("game drops %+v: want alice dropped for good (left)", g.drops)
	}
	if b.closed || len(v.core.Players()) != 1 {
		t.Fatalf("bob closed %v, players %+v", b.closed, v.core.Players())
	}
	if n := v.core.Kick(v.now, b.user, ""); n != 1 {
		t.Fatalf("Kick by UUID: %d", n)
	}
	v.collect()
	if got := b.take(); len(got) == 0 || got[len(got)-1] != "500 "+vSrv+" kicked by the operator, closing connection\r\n" {
		t.Fatalf("kick without reason: %q", got)
	}
	if n := v.core.Kick(v.now, "nobody", "x"); n != 0 {
		t.Fatalf("Kick(nobody): %d", n)
	}
}

// TestCoreBans: a ban by name expels the connected player at once and refuses its next
// AUTHENTICATE, a ban by CIDR refuses connections from the network before any line (and
// expels those open); each is told the reason and the expiry; an expired ban no longer holds,
// to the nanosecond of virtual time.
func TestCoreBans(t *testing.T) {
	v := newVLobby(t, ServerConfig{})
	g := v.player("192.0.2.1", "griefer")
	other := v.player("198.51.100.7", "calm")
	g.take()
	n := v.core.SetBans(v.now, wall0, []Ban{{ID: "1", Name: "Griefer", Reason: "team killing", Expires: wall0.Add(time.Hour)}})
	v.collect()
	if n != 1 || !g.closed || other.closed {
		t.Fatalf("SetBans expelled %d; griefer closed %v, calm closed %v", n, g.closed, other.closed)
	}
	want := "500 " + vSrv + " banned from this server: team killing (until 2026-12-03T13:00:00Z), closing connection\r\n"
	if got := g.take(); len(got) != 1 || got[0] != want {
		t.Fatalf("banned player got %q, want %q", got, want)
	}
	c := v.open("192.0.2.1")
	if got := c.send("AUTHENTICATE ;griefer"); len(got) != 1 || got[0] != want || !c.closed {
		t.Fatalf("AUTHENTICATE of a banned name: %q, closed %v", got, c.closed)
	}
	v.open("192.0.2.1").auth("griefer2") // another name from that address: fine

	v.core.SetBans(v.now, wall0, []Ban{{ID: "1", Name: "griefer", Reason: "team killing", Expires: wall0.Add(time.Hour)},
		{ID: "2", Network: netip.MustParsePrefix("198.51.100.0/24"), Reason: "flood"}})
	v.collect()
	if !other.closed {
		t.Fatal("a connection of a banned network stays open")
	}
	if _, r := v.dial("198.51.100.9"); r != "500 "+vSrv+" banned from this server: flood, closing connection\r\n" {
		t.Fatalf("connection from a banned network: %q", r)
	}
	if _, r := v.dial("::ffff:198.51.100.9"); r == "" {
		t.Fatal("an IPv4-mapped address of a banned network was let in")
	}
	v.open("198.51.101.1")
	if bans := v.core.Bans(v.now); len(bans) != 2 {
		t.Fatalf("Bans: %+v", bans)
	}
	v.advance(time.Hour - 1)
	if c, _ := v.dial("192.0.2.1"); c.send("AUTHENTICATE ;griefer")[0] != want {
		t.Fatal("the ban ended before its expiry")
	}
	v.advance(1)
	v.open("192.0.2.1").auth("griefer")
	if bans := v.core.Bans(v.now); len(bans) != 1 || bans[0].ID != "2" {
		t.Fatalf("Bans after the name's expired: %+v", bans)
	}
	// An already expired ban is not put in force.
	v.core.SetBans(v.now, wall0.Add(2*time.Hour), []Ban{{ID: "3", Name: "late", Expires: wall0.Add(time.Hour)}})
	v.open("192.0.2.3").auth("late")
}

// TestCoreMute: a muted player's CHAT gets 500 and reaches nobody, also after it reconnects;
// unmuted, its chat is relayed again; the others' chat is untouched.
func TestCoreMute(t *testing.T) {
	v := newVLobby(t, ServerConfig{})
	a, b := v.player("192.0.2.1", "loud"), v.player("192.0.2.2", "bob")
	code := a.ok(lobby.CmdJoinLobby)
	b.ok(lobby.CmdJoinLobby, code)
	a.take()
	b.take()
	if n := v.core.Mute("LOUD", true); n != 1 {
		t.Fatalf("Mute: %d connections, want 1", n)
	}
	if got := a.fail(lobby.CmdChat, "hi"); got != MutedChat {
		t.Fatalf("muted CHAT: %q", got)
	}
	if got := b.pushes(lobby.PushChat); len(got) != 0 {
		t.Fatalf("a muted line reached bob: %q", got)
	}
	b.ok(lobby.CmdChat, "hello")
	if got := a.pushes(lobby.PushChat); len(got) != 1 || got[0] != "bob,hello" {
		t.Fatalf("bob's chat to the muted player: %q", got)
	}
	b.take()
	if p := v.core.Players(); !p[0].Muted || p[1].Muted {
		t.Fatalf("Players: %+v", p)
	}
	v.core.Closed(v.now, a.id)
	a2 := v.player("192.0.2.1", "loud")
	a2.ok(lobby.CmdJoinLobby, code)
	if got := a2.fail(lobby.CmdChat, "again"); got != MutedChat {
		t.Fatalf("muted after reconnecting: %q", got)
	}
	v.core.Mute("loud", false)
	a2.ok(lobby.CmdChat, "sorry")
	if got := b.pushes(lobby.PushChat); len(got) != 1 || got[0] != "loud,sorry" {
		t.Fatalf("unmuted chat: %q", got)
	}
}

// TestCorePlayersAndGames: the operator's lists name each connection's player, lobby and
// game.
func TestCorePlayersAndGames(t *testing.T) {
	v := newVLobby(t, ServerConfig{})
	a := v.player("192.0.2.1", "alice")
	v.open("192.0.2.2") // not authenticated
	code := a.ok(lobby.CmdJoinLobby)
	a.ok(lobby.CmdStart)
	p := v.core.Players()
	if len(p) != 2 || p[0].Name != "alice" || p[0].Lobby != code || !p[0].InGame || p[0].Addr != "192.0.2.1" || p[1].User != "" {
		t.Fatalf("Players: %+v", p)
	}
	g := v.core.Games()
	if len(g) != 1 || g[0].Lobby != code || len(g[0].Players) != 1 || g[0].Players[0] != "alice" {
		t.Fatalf("Games: %+v", g)
	}
}

// TestCoreSetLimits: new limits apply at once to new connections, lobbies and open
// connections' command rate, and no open connection or lobby is closed by them.
func TestCoreSetLimits(t *testing.T) {
	v := newVLobby(t, ServerConfig{MaxConns: 3, MaxConnsPerAddr: 3, CommandRate: 2})
	a, b := v.player("192.0.2.1", "a"), v.player("192.0.2.1", "b")
	a.ok(lobby.CmdJoinLobby)
	v.core.SetLimits(v.now, LiveLimits{MaxConns: 1, MaxConnsPerAddr: 1, CommandRate: 100, MaxLobbies: 1})
	if a.closed || b.closed || len(v.core.Lobbies()) != 1 {
		t.Fatal("lower limits closed a connection or a lobby")
	}
	if _, r := v.dial("192.0.2.9"); !strings.Contains(r, "server full: too many connections (max 1)") {
		t.Fatalf("a connection over the new MaxConns: %q", r)
	}
	if got := b.fail(lobby.CmdJoinLobby); got != "too many lobbies (max 1)" {
		t.Fatalf("a lobby over the new MaxLobbies: %q", got)
	}
	for b.do(lobby.CmdGetLobbies)[:3] == "200" { // spend what is left of the old budget
	}
	v.advance(time.Second) // one second at the new rate: 100 lines (at the old, 2)
	for range 100 {
		b.ok(lobby.CmdGetLobbies)
	}
	b.fail(lobby.CmdGetLobbies)
	if l := v.core.LiveLimits(); l.CommandRate != 100 || l.MaxConnsPerAddr != 1 || l.IdleTimeout != DefaultIdleTimeout {
		t.Fatalf("LiveLimits: %+v (zero fields get the defaults)", l)
	}
	v.core.SetLimits(v.now, LiveLimits{MaxConns: 10, MaxConnsPerAddr: 10, CommandRate: 100})
	v.open("192.0.2.9")
}

// The operator's actions of docs/PROTOCOL.md's examples (§2.3 "Decision (moderation)").
var (
	kicksRE        = regexp.MustCompile(`^the operator kicks ([A-Za-z0-9_-]+) "(.*)"$`)
	bansRE         = regexp.MustCompile(`^the operator bans ([A-Za-z0-9_-]+) "(.*)"$`)
	mutesRE        = regexp.MustCompile(`^the operator mutes ([A-Za-z0-9_-]+)$`)
	serverClosesRE = regexp.MustCompile(`^the server closes ([A-Z])'s connection$`)
)

// moderationAction carries out an operator's action of an example; false: s is none.
func (r *replayer) moderationAction(s exchangeStep) bool {
	t := r.t
	switch {
	case kicksRE.MatchString(s.text):
		m := kicksRE.FindStringSubmatch(s.text)
		if n := r.srv.Kick(m[1], m[2]); n == 0 {
			t.Fatalf("%s: nobody named %s to kick", r.where(s), m[1])
		}
	case bansRE.MatchString(s.text):
		m := bansRE.FindStringSubmatch(s.text)
		r.srv.SetBans(append(r.srv.Bans(), Ban{ID: m[1], Name: m[1], Reason: m[2]}))
	case mutesRE.MatchString(s.text):
		r.srv.Mute(mutesRE.FindStringSubmatch(s.text)[1], true)
	case serverClosesRE.MatchString(s.text):
		id := serverClosesRE.FindStringSubmatch(s.text)[1][0]
		r.conn(id).expectClosed(waitTime)
		r.closed[id] = true
	default:
		return false
	}
	return true
}
