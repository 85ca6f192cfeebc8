package lobbyserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/scores"
)

// vhall is the Hall of a virtual lobby: the Core never calls it (the test answers the Requests
// the Core leaves, as its runtime would).
type vhall struct{}

func (vhall) Games(context.Context, scores.Query) ([]scores.Record, error) {
	panic("the Core called its Hall")
}
func (vhall) ReplayPart(context.Context, uuid.UUID, int) (int, []byte, error) {
	panic("the Core called its Hall")
}

// hallPlayer is an authenticated connection with its lines taken.
func hallPlayer(v *vlobby, addr, name string) *vconn {
	c := v.player(addr, name)
	c.take()
	return c
}

// takeReq returns the only Request the Core left since the last call.
func (v *vlobby) takeReq() Out {
	v.t.Helper()
	if len(v.reqs) != 1 {
		v.t.Fatalf("%d hall-of-fame requests, want 1", len(v.reqs))
	}
	o := v.reqs[0]
	v.reqs = nil
	return o
}

func (v *vlobby) answer(o Out, a Answer) {
	v.core.Answered(v.now, o.Conn, o.Request.ID, a)
	v.collect()
}

var hallGame = scores.Record{ID: uuid.MustParse("0b7e1c6a-5a38-4a7e-9c1e-3d1f2a4b5c6d"), Stage: "stage1",
	Difficulty: rules.DifficultyNormal, Result: rules.ResultVictory, Ticks: 5400,
	Ended: time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC), ReplayBytes: 4100,
	Slots: []scores.Slot{{Name: "alice", Score: 12000, Kills: 80, Deaths: 1}, {Name: "bob", Score: 9000, Kills: 61, Deaths: 3, Continued: true}}}

// TestCoreHallOff: a server without a hall of fame refuses the three commands with one clear
// reason (after the arguments are checked), and pushes no GAME_ID.
func TestCoreHallOff(t *testing.T) {
	v := newVLobby(t, ServerConfig{})
	a := hallPlayer(v, "10.0.0.1", "alice")
	for _, cmd := range [][]string{{lobby.CmdGetScores}, {lobby.CmdGetScores, "stage1", "2", "1", "today", "alice"}, {lobby.CmdGetGames}, {lobby.CmdGetReplay, hallGame.ID.String(), "0"}} {
		if got := a.fail(cmd[0], cmd[1:]...); got != errHallOff {
			t.Errorf("%v: %q, want %q", cmd, got, errHallOff)
		}
	}
	if len(v.reqs) != 0 {
		t.Fatalf("requests left with no hall: %v", v.reqs)
	}
	a.ok(lobby.CmdJoinLobby)
	a.ok(lobby.CmdStart)
	a.take()
	v.core.GameEnded(v.now, v.games[0], 1)
	v.collect()
	if ids := a.pushes(lobby.PushGameID); len(ids) != 0 {
		t.Fatalf("GAME_ID from a server that keeps no games: %q", ids)
	}
}

func TestCoreScoresArguments(t *testing.T) {
	v := newVLobby(t, ServerConfig{Hall: vhall{}, CommandRate: 1000})
	a := hallPlayer(v, "10.0.0.1", "alice")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"stage1", "5"}, `player count "5": want 1..4, or nothing for every count`},
		{[]string{"stage1", "0"}, `player count "0": want 1..4, or nothing for every count`},
		{[]string{"stage1", "1", "-1"}, `page "-1": want 0..99`},
		{[]string{"stage1", "1", "01"}, `page "01": want 0..99`},
		{[]string{"stage1", "1", "10000"}, `page "10000": want 0..99`},
		{[]string{"stage1", "1", "100"}, `page "100": want 0..99`}, // scores.MaxPage
		{[]string{"", "", "9999"}, `page "9999": want 0..99`},
		{[]string{"stage1", "1", "0", "week"}, `period "week": want all or today`},
		{[]string{"stage1", "1", "0", "all", "bad name"}, `player name "bad name": 1 to 16 characters of A-Z a-z 0-9 _ -`},
		{[]string{"bad stage!"}, `invalid stage name "bad stage!": 1 to 32 characters of A-Z a-z 0-9 _ -`},
		{[]string{"a", "1", "0", "all", "x", "y"}, scoresUsage},
	} {
		if got := a.fail(lobby.CmdGetScores, c.args...); got != c.want {
			t.Errorf("GET_SCORES %v: %q, want %q", c.args, got, c.want)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"x"}, `page "x": want 0..99`},
		{[]string{"100"}, `page "100": want 0..99`},
		{[]string{"0", "a b"}, `player name "a b": 1 to 16 characters of A-Z a-z 0-9 _ -`},
		{[]string{"0", "a", "b"}, gamesUsage},
	} {
		if got := a.fail(lobby.CmdGetGames, c.args...); got != c.want {
			t.Errorf("GET_GAMES %v: %q, want %q", c.args, got, c.want)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{hallGame.ID.String()}, "GET_REPLAY takes two arguments, the game id and the part number"},
		{[]string{strings.ToUpper(hallGame.ID.String()), "0"}, fmt.Sprintf("game id %q: want a 36-character lowercase uuid", strings.ToUpper(hallGame.ID.String()))},
		{[]string{hallGame.ID.String(), "4096"}, `part "4096": want 0..4095`},
		{[]string{hallGame.ID.String(), "+1"}, `part "+1": want 0..4095`},
	} {
		if got := a.fail(lobby.CmdGetReplay, c.args...); got != c.want {
			t.Errorf("GET_REPLAY %v: %q, want %q", c.args, got, c.want)
		}
	}
	if len(v.reqs) != 0 {
		t.Fatalf("requests left for refused commands: %v", v.reqs)
	}
	a.take()
	// Valid arguments become the Query the runtime runs.
	for _, c := range []struct {
		cmd   string
		args  []string
		q     scores.Query
		today bool
	}{
		{lobby.CmdGetScores, nil, scores.Query{Order: scores.Best}, false},
		{lobby.CmdGetScores, []string{"stage1"}, scores.Query{Order: scores.Best, Stage: "stage1"}, false},
		{lobby.CmdGetScores, []string{"", "4", "", "today"}, scores.Query{Order: scores.Best, Players: 4}, true},
		{lobby.CmdGetScores, []string{"short", "2", "3", "all", "bob"}, scores.Query{Order: scores.Best, Stage: "short", Players: 2, Page: 3, Name: "bob"}, false},
		{lobby.CmdGetScores, []string{"", "", "", "", "bob"}, scores.Query{Order: scores.Best, Name: "bob"}, false},
		{lobby.CmdGetGames, nil, scores.Query{Order: scores.Recent}, false},
		{lobby.CmdGetGames, []string{"2", "alice"}, scores.Query{Order: scores.Recent, Page: 2, Name: "alice"}, false},
	} {
		a.send(c.cmd + " " + a.user + ";" + strings.Join(c.args, ","))
		o := v.takeReq()
		if o.Conn != a.id || o.Request.Games == nil || *o.Request.Games != c.q || o.Request.Today != c.today {
			t.Errorf("%s %v: request %+v (games %+v), want %+v today=%v", c.cmd, c.args, o.Request, o.Request.Games, c.q, c.today)
		}
		v.answer(o, Answer{})
		if got := a.take(); len(got) != 1 || got[0] != "200 "+vSrv+" \r\n" {
			t.Fatalf("%s: empty page answered %q", c.cmd, got)
		}
	}
	a.send(lobby.CmdGetReplay + " " + a.user + ";" + hallGame.ID.String() + ",7")
	if o := v.takeReq(); o.Request.Games != nil || o.Request.Replay != hallGame.ID || o.Request.Part != 7 {
		t.Fatalf("GET_REPLAY request %+v", o.Request)
	}
}

// TestCoreHallAnswers: the answers' lines, ranks by page, and the errors' reasons.
func TestCoreHallAnswers(t *testing.T) {
	v := newVLobby(t, ServerConfig{Hall: vhall{}})
	a := hallPlayer(v, "10.0.0.1", "alice")
	ask := func(cmd string, args ...string) Out {
		a.send(cmd + " " + a.user + ";" + strings.Join(args, ","))
		return v.takeReq()
	}
	v.answer(ask(lobby.CmdGetScores, "stage1", "", "2"), Answer{Games: []scores.Record{hallGame}})
	want := "200 " + vSrv + " (21,0b7e1c6a-5a38-4a7e-9c1e-3d1f2a4b5c6d,stage1,normal,victory,21000,5400,2026-03-14T09:26:53Z,4100,alice:12000:80:1:-,bob:9000:61:3:c);\r\n"
	if got := a.take(); len(got) != 1 || got[0] != want {
		t.Fatalf("page 2: %q\nwant %q", got, want)
	}
	id := hallGame.ID.String()
	for _, c := range []struct {
		err  error
		want string
	}{
		{scores.ErrNoReplay, "500 " + vSrv + " no replay of game " + id + "\r\n"},
		{scores.ErrPending, "500 " + vSrv + " the replay of game " + id + " is being stored: ask again in a moment\r\n"},
		{&scores.PartRangeError{Parts: 3}, "500 " + vSrv + " part \"5\" out of range: replay " + id + " has parts 0..2\r\n"},
		{errors.New("connection refused"), "500 " + vSrv + " the hall of fame is unavailable: try again later\r\n"},
		{nil, "200 " + vSrv + " 3,AAEC\r\n"},
	} {
		v.answer(ask(lobby.CmdGetReplay, id, "5"), Answer{Parts: 3, Data: []byte{0, 1, 2}, Err: c.err})
		if got := a.take(); len(got) != 1 || got[0] != c.want {
			t.Errorf("answer %v: %q, want %q", c.err, got, c.want)
		}
	}
	v.answer(ask(lobby.CmdGetScores), Answer{Err: context.DeadlineExceeded})
	if got := a.take(); len(got) != 1 || !strings.Contains(got[0], "unavailable") {
		t.Fatalf("a timed-out query: %q", got)
	}
}

// TestCoreHallOrder: lines sent while a request waits are answered after it, in order; a
// late or foreign answer changes nothing.
func TestCoreHallOrder(t *testing.T) {
	v := newVLobby(t, ServerConfig{Hall: vhall{}})
	a := hallPlayer(v, "10.0.0.1", "alice")
	b := hallPlayer(v, "10.0.0.2", "bob")
	a.send(lobby.CmdGetScores + " " + a.user + ";")
	o := v.takeReq()
	if got := a.send(lobby.CmdGetLobbies + " " + a.user + ";"); len(got) != 0 {
		t.Fatalf("GET_LOBBIES answered before the GET_SCORES before it: %q", got)
	}
	a.send("HELLO ;")
	a.send(lobby.CmdGetGames + " " + a.user + ";") // waits too, then becomes a request itself
	if r := b.ok(lobby.CmdGetLobbies); r != "" {   // another connection is not held up
		t.Fatalf("bob's GET_LOBBIES: %q", r)
	}
	b.take()
	v.core.Answered(v.now, b.id, o.Request.ID, Answer{}) // not bob's request
	v.core.Answered(v.now, a.id, o.Request.ID+100, Answer{})
	v.collect()
	if len(a.lines) != 0 || len(b.lines) != 0 {
		t.Fatalf("foreign answers were replied: %q %q", a.lines, b.lines)
	}
	v.answer(o, Answer{Games: []scores.Record{hallGame}})
	got := a.take()
	if len(got) != 3 || !strings.HasPrefix(got[0], "200 "+vSrv+" (1,") || got[1] != "200 "+vSrv+" \r\n" ||
		got[2] != "500 "+vSrv+" unknown command HELLO\r\n" {
		t.Fatalf("after the answer: %q", got)
	}
	o2 := v.takeReq() // GET_GAMES
	v.answer(o, Answer{})
	if len(a.lines) != 0 {
		t.Fatalf("a second answer to the first request was replied: %q", a.lines)
	}
	v.answer(o2, Answer{})
	if got := a.take(); len(got) != 1 || got[0] != "200 "+vSrv+" \r\n" {
		t.Fatalf("GET_GAMES: %q", got)
	}
}

// TestCoreHallTimeout: a request the runtime never answers gets 500 at its deadline, to the
// nanosecond, and the held lines are answered then; the idle timer restarts with a 200 answer.
func TestCoreHallTimeout(t *testing.T) {
	v := newVLobby(t, ServerConfig{Hall: vhall{}, IdleTimeout: time.Minute})
	a := hallPlayer(v, "10.0.0.1", "alice")
	a.send(lobby.CmdGetScores + " " + a.user + ";")
	o := v.takeReq()
	a.send(lobby.CmdGetStages + " " + a.user + ";")
	v.advance(askTimeout - 1)
	if len(a.lines) != 0 {
		t.Fatalf("answered before the deadline: %q", a.lines)
	}
	v.advance(1)
	got := a.take()
	if len(got) != 2 || got[0] != "500 "+vSrv+" the hall of fame is unavailable: try again later\r\n" || !strings.HasPrefix(got[1], "200 ") {
		t.Fatalf("at the deadline: %q", got)
	}
	v.answer(o, Answer{}) // too late: ignored
	if len(a.lines) != 0 {
		t.Fatalf("a late answer was replied: %q", a.lines)
	}
	// The idle timer restarts with the 200 of an answer.
	v.advance(50 * time.Second)
	a.send(lobby.CmdGetScores + " " + a.user + ";")
	v.advance(5 * time.Second)
	v.answer(v.takeReq(), Answer{})
	v.advance(50 * time.Second) // 105 s after the GET_STAGES, 50 s after the answer
	if a.closed {
		t.Fatal("closed for idleness 50 s after a 200 answer")
	}
	v.advance(11 * time.Second)
	if !a.closed {
		t.Fatal("still open 61 s after the last 200")
	}
}

// TestCoreHallHeldLines: more than MaxHeldLines lines while a request waits close the
// connection.
func TestCoreHallHeldLines(t *testing.T) {
	v := newVLobby(t, ServerConfig{Hall: vhall{}, CommandRate: 1000})
	a := hallPlayer(v, "10.0.0.1", "alice")
	a.send(lobby.CmdGetScores + " " + a.user + ";")
	v.takeReq()
	for range MaxHeldLines {
		a.send(lobby.CmdGetLobbies + " " + a.user + ";")
	}
	if a.closed || len(a.lines) != 0 {
		t.Fatalf("after %d held lines: closed %v, %q", MaxHeldLines, a.closed, a.lines)
	}
	got := a.send(lobby.CmdGetLobbies + " " + a.user + ";")
	if !a.closed || len(got) != 1 || !strings.Contains(got[0], "closing connection") {
		t.Fatalf("one line more: closed %v, %q", a.closed, got)
	}
}

// TestCoreGameID: the game id is in the spec handed to the Starter, and in the GAME_ID push
// every member and spectator gets just before END.
func TestCoreGameID(t *testing.T) {
	v := newVLobby(t, ServerConfig{Hall: vhall{}})
	a := hallPlayer(v, "10.0.0.1", "alice")
	b := hallPlayer(v, "10.0.0.2", "bob")
	code := a.ok(lobby.CmdJoinLobby)
	b.ok(lobby.CmdJoinLobby, code)
	a.ok(lobby.CmdStart)
	w := v.player("10.0.0.3", "wendy")
	w.ok(lobby.CmdJoinLobby, code) // a spectator
	id := v.st.specs[0].ID
	if id == uuid.Nil || id.Version() != 4 {
		t.Fatalf("game id %v, want a random uuid", id)
	}
	a.take()
	b.take()
	w.take()
	v.core.GameEnded(v.now, v.games[0], 1)
	v.collect()
	for _, c := range []*vconn{a, b, w} {
		got := c.take()
		want := []string{"GAME_ID " + vSrv + ";" + id.String() + "\r\n", "END " + vSrv + ";1\r\n"}
		if len(got) < 2 || got[0] != want[0] || got[1] != want[1] {
			t.Errorf("%d: %q, want %q first", c.id, got, want)
		}
	}
	a.ok(lobby.CmdStart)
	if id2 := v.st.specs[1].ID; id2 == id {
		t.Fatal("two games with one id")
	}
}

func TestGameEntriesCodec(t *testing.T) {
	full := scores.Record{ID: uuid.New(), Stage: strings.Repeat("s", stagefile.MaxNameLen), Difficulty: rules.DifficultyNormal,
		Result: rules.ResultVictory, Ticks: 1<<32 - 1, Ended: time.Date(2026, 12, 31, 23, 59, 59, 0, time.UTC), ReplayBytes: scores.MaxReplayBytes}
	for i := range rules.MaxPlayers {
		full.Slots = append(full.Slots, scores.Slot{Name: strings.Repeat(string(rune('a'+i)), 16), Score: 1<<32 - 1, Kills: 1<<16 - 1, Deaths: 255, Continued: true, Left: true})
	}
	var es []lobby.GameEntry
	for range scores.PageSize {
		es = append(es, lobby.GameEntry{Rank: 100000, Game: full}) // the last rank of page 9999: 6 digits
	}
	body := lobby.AppendGameEntries(nil, es)
	if len(body) != scores.PageSize*lobby.MaxGameEntry {
		t.Fatalf("a page of the longest entries is %d bytes, want %d (MaxGameEntry %d)", len(body), scores.PageSize*lobby.MaxGameEntry, lobby.MaxGameEntry)
	}
	if n := len("200 ") + 36 + 1 + len(body) + 2; n > lobby.MaxLine {
		t.Fatalf("a full page makes a %d-byte line (max %d)", n, lobby.MaxLine)
	}
	got, err := lobby.ParseGameEntries(string(body))
	if err != nil || fmt.Sprint(got) != fmt.Sprint(es) {
		t.Fatalf("round trip: %v\n%v\n%v", err, got, es)
	}
	for _, bad := range []string{
		"(1,x,stage1,normal,victory,1,1,2026-03-14T09:26:53Z,0,a:1:0:0:-);",
		"(0,0b7e1c6a-5a38-4a7e-9c1e-3d1f2a4b5c6d,stage1,normal,victory,1,1,2026-03-14T09:26:53Z,0,a:1:0:0:-);",
		"(1,0b7e1c6a-5a38-4a7e-9c1e-3d1f2a4b5c6d,stage1,normal,victory,2,1,2026-03-14T09:26:53Z,0,a:1:0:0:-);",
		"(1,0b7e1c6a-5a38-4a7e-9c1e-3d1f2a4b5c6d,stage1,normal,won,1,1,2026-03-14T09:26:53Z,0,a:1:0:0:-);",
		"(1,0b7e1c6a-5a38-4a7e-9c1e-3d1f2a4b5c6d,stage1,normal,victory,1,1,2026-03-14T09:26:53Z,0,a:1:0:0:x);",
		"(1,0b7e1c6a-5a38-4a7e-9c1e-3d1f2a4b5c6d,stage1,normal,victory,1,1,2026-03-14,0,a:1:0:0:-);",
		"(1,0b7e1c6a-5a38-4a7e-9c1e-3d1f2a4b5c6d,stage1,normal,victory,1,1,2026-03-14T09:26:53Z,0);",
		"(1,0b7e1c6a-5a38-4a7e-9c1e-3d1f2a4b5c6d,stage1,normal,victory,1,1,2026-03-14T09:26:53Z,0,a:1:0:0:-)",
	} {
		if _, err := lobby.ParseGameEntries(bad); err == nil {
			t.Errorf("ParseGameEntries(%q) accepted it", bad)
		}
	}
}

func FuzzParseGameEntries(f *testing.F) {
	f.Add(string(lobby.AppendGameEntries(nil, []lobby.GameEntry{{Rank: 1, Game: hallGame}})))
	f.Add("")
	f.Add("(1,a);")
	f.Fuzz(func(t *testing.T, body string) {
		es, err := lobby.ParseGameEntries(body)
		if err != nil {
			return
		}
		again, err := lobby.ParseGameEntries(string(lobby.AppendGameEntries(nil, es)))
		if err != nil || fmt.Sprint(again) != fmt.Sprint(es) {
			t.Fatalf("what it accepted does not round-trip: %v", err)
		}
	})
}

func FuzzParseReplayPart(f *testing.F) {
	f.Add(string(lobby.AppendReplayPart(nil, 3, []byte{1, 2, 3})))
	f.Add("1,")
	f.Add("0,AAAA")
	f.Fuzz(func(t *testing.T, body string) {
		n, data, err := lobby.ParseReplayPart(body)
		if err != nil {
			return
		}
		if n < 1 || n > scores.MaxReplayParts || len(data) < 1 || len(data) > scores.ReplayPartBytes {
			t.Fatalf("accepted %d parts, %d bytes", n, len(data))
		}
	})
}

// A practice game (a solo lobby started past its stage's start) is not kept: no GAME_ID before
// its END, so no client asks for its replay and it never ranks in the hall of fame.
func TestCorePracticeGameNotKept(t *testing.T) {
	v := newVLobby(t, ServerConfig{Hall: vhall{}})
	a := hallPlayer(v, "10.0.0.1", "alice")
	a.ok(lobby.CmdJoinLobby)
	a.ok(lobby.CmdSetSection, "1")
	a.ok(lobby.CmdStart)
	if !v.st.specs[0].Practice() {
		t.Fatalf("the spec is not a practice: section %d", v.st.specs[0].Section)
	}
	a.take()
	v.core.GameEnded(v.now, v.games[0], 1)
	v.collect()
	for _, l := range a.take() {
		if strings.HasPrefix(l, "GAME_ID ") {
			t.Fatalf("a practice game's end sent %q", l)
		}
	}
}
