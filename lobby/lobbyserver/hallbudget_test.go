package lobbyserver

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/scores"
)

// ask sends a hall-of-fame command on c: it returns the refusal (500 body), or "" when the Core
// left a Request for the runtime (no response yet).
func (c *vconn) ask(name string, args ...string) string {
	c.v.t.Helper()
	got := c.send(name + " " + c.user + ";" + strings.Join(args, ","))
	for _, l := range got {
		if strings.HasPrefix(l, "500 "+vSrv+" ") {
			return strings.TrimSuffix(strings.TrimPrefix(l, "500 "+vSrv+" "), "\r\n")
		}
		if lobby.IsResponse([]byte(l)) {
			c.v.t.Fatalf("%s: %q, want a Request or a 500", name, l)
		}
	}
	return ""
}

// TestCoreHallBudget: one address's 16 connections asking deep pages at once get HallPerAddr
// questions to the database and refusals at once for the others, while another player's
// question goes at once; closing the connections does not free the places before the runtime
// answers (nor after the Core gave the questions up, which does); GET_SCORES and GET_GAMES are
// rated per address (HallRate in bursts of HallBurst, in virtual time), GET_REPLAY is not.
func TestCoreHallBudget(t *testing.T) {
	v := newVLobby(t, ServerConfig{Hall: vhall{}, MaxConnsPerAddr: 100, CommandRate: 1000})
	const hostile = "198.51.100.9"
	atOnce := fmt.Sprintf("too many hall-of-fame requests from %s at once (max %d): ask again once one is answered", hostile, HallPerAddr)
	var hs []*vconn
	for i := range 16 {
		hs = append(hs, hallPlayer(v, hostile, fmt.Sprintf("h%d", i)))
	}
	for i, h := range hs {
		got := h.ask(lobby.CmdGetScores, "", "", "99")
		if i < HallPerAddr && got != "" || i >= HallPerAddr && got != atOnce {
			t.Fatalf("hostile question %d: %q", i, got)
		}
	}
	if len(v.reqs) != HallPerAddr {
		t.Fatalf("%d questions at the database from one address, want %d", len(v.reqs), HallPerAddr)
	}
	victim := hallPlayer(v, "192.0.2.50", "victim")
	if got := victim.ask(lobby.CmdGetScores, "stage1"); got != "" || len(v.reqs) != HallPerAddr+1 {
		t.Fatalf("another player's question: %q, %d at the database", got, len(v.reqs))
	}
	v.answer(v.reqs[HallPerAddr], Answer{})
	// Closing the connections whose questions run does not free their places.
	out := v.reqs[:HallPerAddr]
	v.reqs = nil
	for _, h := range hs[:HallPerAddr] {
		v.core.Closed(v.now, h.id)
		v.collect()
	}
	fresh := hallPlayer(v, hostile, "fresh")
	if got := fresh.ask(lobby.CmdGetGames); got != atOnce {
		t.Fatalf("a new connection while the closed ones' questions run: %q, want %q", got, atOnce)
	}
	v.answer(out[0], Answer{}) // the runtime answers a closed connection's question
	if got := fresh.ask(lobby.CmdGetGames); got != "" {
		t.Fatalf("once one is answered: %q", got)
	}
	// A question the runtime never answers is given up at askTimeout, its place with it.
	v.advance(askTimeout)
	if got := hs[5].ask(lobby.CmdGetGames); got != "" {
		t.Fatalf("after the Core gave the questions up: %q", got)
	}
	v.answer(v.reqs[len(v.reqs)-1], Answer{})
	v.answer(v.reqs[len(v.reqs)-2], Answer{}) // fresh's: its answer came after the Core's 500; ignored
	v.reqs = nil

	// The rate: the burst is used (the questions above counted), then HallRate a second.
	v.advance(time.Minute) // a full bucket
	rated := fmt.Sprintf("too many hall-of-fame requests from %s: at most %d per second", hostile, HallRate)
	h := hs[6]
	for i := range HallBurst {
		if got := h.ask(lobby.CmdGetScores); got != "" {
			t.Fatalf("question %d of the burst: %q", i, got)
		}
		v.answer(v.takeReq(), Answer{})
	}
	if got := h.ask(lobby.CmdGetScores); got != rated {
		t.Fatalf("question %d at once: %q, want %q", HallBurst+1, got, rated)
	}
	if got := hs[7].ask(lobby.CmdGetGames); got != rated {
		t.Fatalf("from another connection of the address: %q, want %q", got, rated)
	}
	if got := h.ask(lobby.CmdGetReplay, hallGame.ID.String(), "0"); got != "" {
		t.Fatalf("GET_REPLAY over the rate: %q, want it asked (not rated)", got)
	}
	v.answer(v.takeReq(), Answer{Err: scores.ErrNoReplay})
	v.advance(time.Second/HallRate - time.Nanosecond)
	if got := h.ask(lobby.CmdGetScores); got != rated {
		t.Fatalf("before 1/HallRate: %q", got)
	}
	v.advance(time.Nanosecond)
	if got := h.ask(lobby.CmdGetScores); got != "" {
		t.Fatalf("after 1/HallRate: %q", got)
	}
	v.answer(v.takeReq(), Answer{})
	if st := v.core.Stats(); st.LimitHits[LimitHallPerAddr] == 0 || st.LimitHits[LimitHallRate] == 0 {
		t.Fatalf("limit hits %v", st.LimitHits)
	}
}

// TestCoreReplayDownloadFast: a download's GET_REPLAYs are not held to the command rate while
// the address stays within its replay budget: ReplayBurst bytes of parts at once (far more than
// CommandBurstAt lines), then ReplayRate a second (virtual time); beyond it, they are rated
// like any line.
func TestCoreReplayDownloadFast(t *testing.T) {
	v := newVLobby(t, ServerConfig{Hall: vhall{}})
	a := hallPlayer(v, "192.0.2.60", "alice")
	part := 0
	get := func() string {
		got := a.ask(lobby.CmdGetReplay, hallGame.ID.String(), strconv.Itoa(part%scores.MaxReplayParts))
		part++
		if got == "" {
			v.answer(v.takeReq(), Answer{Parts: scores.MaxReplayParts, Data: make([]byte, scores.ReplayPartBytes)})
		}
		return got
	}
	burst := ReplayBurst / scores.ReplayPartBytes
	if burst <= CommandBurstAt(DefaultCommandRate) {
		t.Fatalf("the replay burst (%d parts) is no more than the command burst", burst)
	}
	for i := range burst {
		if got := get(); got != "" {
			t.Fatalf("part %d of the burst: %q", i, got)
		}
	}
	// Over the replay budget: the command rate's burst (less AUTHENTICATE's line), then its
	// refusal.
	for i := range CommandBurstAt(DefaultCommandRate) - 1 {
		if got := get(); got != "" {
			t.Fatalf("part %d past the replay budget, within the command burst: %q", i, got)
		}
	}
	if got := get(); got != lobby.RateRefusal(DefaultCommandRate) {
		t.Fatalf("past both: %q, want the command rate's refusal", got)
	}
	v.advance(time.Second) // ReplayRate bytes (and 10 lines) more
	for i := range ReplayRate / scores.ReplayPartBytes {
		if got := get(); got != "" {
			t.Fatalf("part %d of the next second: %q", i, got)
		}
	}
}
