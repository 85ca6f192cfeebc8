package lobbyserver

import (
	"strconv"
	"testing"
	"time"

	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/handoff"
)

// spectatorsOf counts the spectators of the lobby code from address addr.
func (v *vlobby) spectatorsOf(code, addr string) (from, all int) {
	for _, cs := range v.core.lobbies[code].spectators {
		all++
		if cs.addr == addr {
			from++
		}
	}
	return from, all
}

// TestCoreSpectatorsPerAddr: one address holds at most MaxSpectatorsPerAddr spectators in all
// lobbies: its 16 connections get 2 places of a game's 8, none of a second game's, and
// leaving and joining again, over and over, from connections old and new, gets it no more;
// other addresses take the other places.
func TestCoreSpectatorsPerAddr(t *testing.T) {
	v := newVLobby(t, ServerConfig{MaxConnsPerAddr: 100})
	const hostile = "198.51.100.9"
	owner := v.player("192.0.2.1", "owner")
	code := owner.ok(lobby.CmdJoinLobby)
	owner.ok(lobby.CmdStart)
	owner2 := v.player("192.0.2.2", "owner2")
	code2 := owner2.ok(lobby.CmdJoinLobby)
	owner2.ok(lobby.CmdStart)
	var hs []*vconn
	for i := range 16 {
		hs = append(hs, v.player(hostile, "h"+strconv.Itoa(i)))
	}
	tooMany := "too many spectators from " + hostile + " (max " + strconv.Itoa(DefaultMaxSpectatorsPerAddr) + ")"
	for i, h := range hs {
		if i < DefaultMaxSpectatorsPerAddr {
			h.ok(lobby.CmdJoinLobby, code)
			continue
		}
		for _, c := range []string{code, code2} {
			if got := h.fail(lobby.CmdJoinLobby, c); got != tooMany {
				t.Fatalf("hostile spectator %d of %s: %q, want %q", i, c, got, tooMany)
			}
		}
	}
	// Leave and join again, over and over: the places freed go to another of the address's
	// connections at most, never more at once.
	for round := range 50 {
		v.advance(time.Second) // within the command rate
		h := hs[round%DefaultMaxSpectatorsPerAddr]
		h.ok(lobby.CmdLeave)
		other := hs[DefaultMaxSpectatorsPerAddr+round%(len(hs)-DefaultMaxSpectatorsPerAddr)]
		other.ok(lobby.CmdJoinLobby, code) // takes the freed place
		if got := h.fail(lobby.CmdJoinLobby, code); got != tooMany {
			t.Fatalf("round %d: joining again: %q, want %q", round, got, tooMany)
		}
		other.ok(lobby.CmdJoinLobby, code) // joining the lobby it watches again keeps its place
		other.ok(lobby.CmdLeave)
		h.ok(lobby.CmdJoinLobby, code)
		if from, _ := v.spectatorsOf(code, hostile); from != DefaultMaxSpectatorsPerAddr {
			t.Fatalf("round %d: %d spectators from one address, want %d", round, from, DefaultMaxSpectatorsPerAddr)
		}
	}
	for i := range handoff.MaxSpectators - DefaultMaxSpectatorsPerAddr {
		v.player("192.0.2."+strconv.Itoa(10+i), "s"+strconv.Itoa(i)).ok(lobby.CmdJoinLobby, code)
	}
	if from, all := v.spectatorsOf(code, hostile); from != DefaultMaxSpectatorsPerAddr || all != handoff.MaxSpectators {
		t.Fatalf("%d spectators, %d from one address; want %d, %d", all, from, handoff.MaxSpectators, DefaultMaxSpectatorsPerAddr)
	}
	if n := v.core.Stats().LimitHits[LimitSpectatorsPerAddr]; n == 0 {
		t.Fatal("no spectators_per_addr limit hit counted")
	}
}

// TestCoreAsyncSpectatorsPerAddr: with AsyncStart the spectate calls in flight count: 16
// JOIN_LOBBYs at once from one address leave 2 calls.
func TestCoreAsyncSpectatorsPerAddr(t *testing.T) {
	v := newVLobby(t, ServerConfig{AsyncStart: true, MaxConnsPerAddr: 100})
	_, code, _, _ := runningLost(t, v)
	for i := range 16 {
		h := v.player("198.51.100.9", "h"+strconv.Itoa(i))
		h.send(lobby.CmdJoinLobby + " " + h.user + ";" + code)
	}
	if len(v.callQ) != DefaultMaxSpectatorsPerAddr {
		t.Fatalf("%d spectate calls from one address, want %d", len(v.callQ), DefaultMaxSpectatorsPerAddr)
	}
}
