package scene

import (
	"errors"
	"net"
	"os"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/rtype/rtype/lobby"
)

func kinds(cmds []Cmd) []CmdKind {
	var out []CmdKind
	for _, c := range cmds {
		out = append(out, c.Kind)
	}
	return out
}

func expect(t *testing.T, m *Machine, cmds []Cmd, scene ID, want ...CmdKind) {
	t.Helper()
	if m.Scene != scene {
		t.Fatalf("scene = %v, want %v", m.Scene, scene)
	}
	if got := kinds(cmds); !reflect.DeepEqual(got, want) {
		t.Fatalf("in %v: commands = %v, want %v", scene, got, want)
	}
}

func TestManualFlowToGameAndBack(t *testing.T) {
	m := New("127.0.0.1:4242", Auto{})
	expect(t, m, m.Begin(), Title)
	expect(t, m, m.Handle(Event{Kind: EvPlay}), Servers, CmdListServers)
	expect(t, m, m.Handle(Event{Kind: EvSubmitAddr, Addr: "10.1.1.1:4242"}), Connect, CmdSaveSettings, CmdDialLobby)
	if m.Busy == "" || m.Addr != "10.1.1.1:4242" {
		t.Fatalf("not busy connecting to the typed address: %+v", m)
	}
	// a second Enter while connecting does nothing
	expect(t, m, m.Handle(Event{Kind: EvSubmitAddr, Addr: "x:1"}), Connect)
	expect(t, m, m.Handle(Event{Kind: EvConnected}), Browser, CmdListLobbies)
	expect(t, m, m.Handle(Event{Kind: EvLobbies, Lobbies: []Lobby{{"K7QF2", 2, false, "stage1", 0}}}), Browser)
	if m.Busy != "" || len(m.Lobbies) != 1 {
		t.Fatalf("lobby list not shown: %+v", m)
	}
	cmds := m.Handle(Event{Kind: EvJoin, Code: "K7QF2"})
	expect(t, m, cmds, Browser, CmdJoin)
	if cmds[0].Code != "K7QF2" {
		t.Fatalf("join code %q", cmds[0].Code)
	}
	expect(t, m, m.Handle(Event{Kind: EvJoined, Code: "K7QF2"}), Room, CmdWaitStart)
	expect(t, m, m.Handle(Event{Kind: EvStart}), Room, CmdStart)
	cmds = m.Handle(Event{Kind: EvGameStarting, Port: 5000, Token: 77})
	expect(t, m, cmds, Room, CmdDialSession)
	if cmds[0].Port != 5000 || cmds[0].Token != 77 || cmds[0].Addr != "10.1.1.1:4242" {
		t.Fatalf("dial session args %+v", cmds[0])
	}
	expect(t, m, m.Handle(Event{Kind: EvSessionReady}), Playing)
	expect(t, m, m.Handle(Event{Kind: EvGameEnd, Result: 1}), Results, CmdCloseSession, CmdClearTicket, CmdKeepReplay) // the client keeps its copy of the game
	if m.Result != 1 {
		t.Fatalf("result %d", m.Result)
	}
	// results wait for the player without -autoplay
	for i := 0; i < 1000; i++ {
		m.Handle(Event{Kind: EvTick})
	}
	expect(t, m, m.Handle(Event{Kind: EvContinue}), Room, CmdWaitStart)
	expect(t, m, m.Handle(Event{Kind: EvQuit}), Room, CmdLeave, CmdDisconnect, CmdQuit)
}

func TestCreateLobby(t *testing.T) {
	m := New("a:1", Auto{})
	m.Handle(Event{Kind: EvPlay})
	m.Handle(Event{Kind: EvSubmitAddr, Addr: "a:1"})
	m.Handle(Event{Kind: EvConnected})
	m.Handle(Event{Kind: EvLobbies})
	cmds := m.Handle(Event{Kind: EvCreate})
	if len(cmds) != 1 || cmds[0].Kind != CmdJoin || cmds[0].Code != "" {
		t.Fatalf("create must JOIN_LOBBY with an empty code: %+v", cmds)
	}
}

func TestAutoFlowNeedsNoKeys(t *testing.T) {
	m := New("h:4242", Auto{On: true, Start: true, ResultsTicks: 10})
	cmds := m.Begin()
	expect(t, m, cmds, Connect, CmdDialLobby)
	if cmds[0].Addr != "h:4242" {
		t.Fatalf("addr %q", cmds[0].Addr)
	}
	cmds = m.Handle(Event{Kind: EvConnected})
	expect(t, m, cmds, Browser, CmdJoin)
	if cmds[0].Code != "" {
		t.Fatalf("auto without -lobby must create: %+v", cmds)
	}
	expect(t, m, m.Handle(Event{Kind: EvJoined, Code: "ABCDE"}), Room, CmdWaitStart, CmdStart)
	m.Handle(Event{Kind: EvGameStarting, Port: 1, Token: 2})
	expect(t, m, m.Handle(Event{Kind: EvSessionReady}), Playing)
	m.Handle(Event{Kind: EvGameEnd, Result: 0})
	for i := 0; i < 9; i++ {
		expect(t, m, m.Handle(Event{Kind: EvTick}), Results)
	}
	expect(t, m, m.Handle(Event{Kind: EvTick}), Room, CmdWaitStart)
}

func TestAutoJoinsGivenLobbyWithoutStart(t *testing.T) {
	m := New("h:1", Auto{On: true, Lobby: "QWERT"})
	m.Begin()
	cmds := m.Handle(Event{Kind: EvConnected})
	if cmds[0].Code != "QWERT" {
		t.Fatalf("join %+v", cmds)
	}
	expect(t, m, m.Handle(Event{Kind: EvJoined, Code: "QWERT"}), Room, CmdWaitStart)
}

func TestConnectFailureShowsErrorAndAllowsRetry(t *testing.T) {
	m := New("a:1", Auto{})
	m.Handle(Event{Kind: EvPlay})
	m.Handle(Event{Kind: EvSubmitAddr, Addr: "a:1"})
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	expect(t, m, m.Handle(Event{Kind: EvConnectFailed, Err: refused}), Connect)
	// In player words, the raw error in small print (issue 13).
	if m.Error != "The server at a:1 is not answering. Is it running?" || m.Detail != refused.Error() || m.Busy != "" {
		t.Fatalf("error not shown: %+v", m)
	}
	expect(t, m, m.Handle(Event{Kind: EvSubmitAddr, Addr: "a:2"}), Connect, CmdSaveSettings, CmdDialLobby)
}

func TestAutoConnectFailureGoesToLost(t *testing.T) {
	m := New("a:1", Auto{On: true})
	m.Begin()
	expect(t, m, m.Handle(Event{Kind: EvConnectFailed, Err: errors.New("refused")}), Lost)
	if m.Reason == "" {
		t.Fatal("no reason")
	}
	expect(t, m, m.Handle(Event{Kind: EvContinue}), Title)
}

func TestCancelConnectClosesLateConnection(t *testing.T) {
	m := New("a:1", Auto{})
	m.Handle(Event{Kind: EvPlay})
	m.Handle(Event{Kind: EvSubmitAddr, Addr: "a:1"})
	expect(t, m, m.Handle(Event{Kind: EvBack}), Servers, CmdDisconnect)
	expect(t, m, m.Handle(Event{Kind: EvConnected}), Servers, CmdDisconnect)
}

func playing(t *testing.T) *Machine {
	m := New("a:1", Auto{On: true, Start: true})
	m.Begin()
	m.Handle(Event{Kind: EvConnected})
	m.Handle(Event{Kind: EvJoined, Code: "ABCDE"})
	m.Handle(Event{Kind: EvGameStarting, Port: 1, Token: 2})
	m.Handle(Event{Kind: EvSessionReady})
	if m.Scene != Playing {
		t.Fatalf("setup: scene %v", m.Scene)
	}
	return m
}

func TestDisconnectInGameShowsReason(t *testing.T) {
	m := playing(t)
	expect(t, m, m.Handle(Event{Kind: EvDisconnected, Reason: "server timeout"}), Lost, CmdCloseSession, CmdDisconnect, CmdDialLobby)
	if m.Reason != LostWords("server timeout") || m.Detail != "server timeout" || !strings.Contains(m.Reason, "stopped answering") {
		t.Fatalf("reason %q", m.Reason)
	}
	expect(t, m, m.Handle(Event{Kind: EvBack}), Title)
}

func TestLobbyLossMidGameKeepsPlaying(t *testing.T) {
	m := playing(t)
	expect(t, m, m.Handle(Event{Kind: EvLobbyLost, Err: errors.New("EOF")}), Playing, CmdResumeLobby)
}

// A server that stops ends the game (GAME_END aborted) after the lobby connection went: the
// results screen says why at once, and Enter goes to the title, not to a lobby that is gone.
func TestServerStopShowsReasonWithResults(t *testing.T) {
	m := playing(t)
	expect(t, m, m.Handle(Event{Kind: EvLobbyLost, Err: errors.New("EOF")}), Playing, CmdResumeLobby)
	expect(t, m, m.Handle(Event{Kind: EvGameEnd, Result: 2}), Results, CmdCloseSession, CmdClearTicket, CmdDisconnect)
	if m.Reason == "" {
		t.Fatal("the results of an aborted game give no reason for the lost lobby")
	}
	for i := 0; i < ResultsGuardTicks; i++ {
		m.Handle(Event{Kind: EvTick})
	}
	expect(t, m, m.Handle(Event{Kind: EvContinue}), Title)
	if m.Reason != "" {
		t.Errorf("reason %q kept on the title", m.Reason)
	}
}

func TestLobbyLossInRoom(t *testing.T) {
	m := New("a:1", Auto{On: true})
	m.Begin()
	m.Handle(Event{Kind: EvConnected})
	m.Handle(Event{Kind: EvJoined, Code: "ABCDE"})
	expect(t, m, m.Handle(Event{Kind: EvLobbyLost, Err: errors.New("EOF")}), Lost, CmdDisconnect)
}

func TestLeaveGameFromPauseMenu(t *testing.T) {
	m := playing(t)
	expect(t, m, m.Handle(Event{Kind: EvLeaveGame}), Browser, CmdCloseSession, CmdLeave, CmdListLobbies)
}

func TestSettingsReturnsAndSaves(t *testing.T) {
	m := New("a:1", Auto{})
	expect(t, m, m.Handle(Event{Kind: EvOpenSettings}), Settings)
	expect(t, m, m.Handle(Event{Kind: EvBack}), Title, CmdSaveSettings)
}

func TestIrrelevantEventsIgnored(t *testing.T) {
	m := New("a:1", Auto{})
	for _, k := range []EventKind{EvStart, EvGameEnd, EvSessionReady, EvJoined, EvLobbies, EvTick, EvDisconnected} {
		expect(t, m, m.Handle(Event{Kind: k}), Title)
	}
}

func TestNames(t *testing.T) {
	if Playing.String() != "playing" || CmdDialLobby.String() != "dial-lobby" {
		t.Fatal("names")
	}
}

// Fire is also "confirm": hammering it as the game ends must not skip the results screen.
func TestResultsIgnoreConfirmAtFirst(t *testing.T) {
	m := New("h:4242", Auto{})
	m.Scene, m.connected = Results, true
	m.timer = 0
	if cmds := m.Handle(Event{Kind: EvContinue}); m.Scene != Results || len(cmds) != 0 {
		t.Fatalf("confirm right after the game ended left the results: scene %v cmds %v", m.Scene, cmds)
	}
	for i := 0; i < ResultsGuardTicks; i++ {
		m.Handle(Event{Kind: EvTick})
	}
	m.Handle(Event{Kind: EvContinue})
	if m.Scene != Room {
		t.Fatalf("confirm after %d ticks: scene %v, want Room", ResultsGuardTicks, m.Scene)
	}
}

// TestBrowserRefreshesItself: the lobby list is fetched again every BrowserRefreshTicks without
// a spinner; a failed automatic refresh shows the error and the browser stays usable.
func TestBrowserRefreshesItself(t *testing.T) {
	m := New("a:1", Auto{})
	m.Handle(Event{Kind: EvPlay})
	m.Handle(Event{Kind: EvSubmitAddr, Addr: "a:1"})
	expect(t, m, m.Handle(Event{Kind: EvConnected}), Browser, CmdListLobbies)
	m.Handle(Event{Kind: EvLobbies, Lobbies: []Lobby{{Code: "AAAAA", Players: 1}}})
	var refreshes int
	for range 3 * BrowserRefreshTicks {
		for _, c := range m.Handle(Event{Kind: EvTick}) {
			if c.Kind != CmdListLobbies {
				t.Fatalf("tick gave %v", c)
			}
			refreshes++
			if m.Busy != "" {
				t.Fatalf("automatic refresh shows a spinner %q", m.Busy)
			}
			m.Handle(Event{Kind: EvLobbies, Lobbies: []Lobby{{Code: "AAAAA", Players: 2, Running: true}}})
		}
	}
	if refreshes != 3 || !m.Lobbies[0].Running {
		t.Fatalf("%d refreshes in 9 s, lobbies %+v; want 3", refreshes, m.Lobbies)
	}
	// A refresh in flight is not doubled.
	for range BrowserRefreshTicks {
		m.Handle(Event{Kind: EvTick})
	}
	for range 2 * BrowserRefreshTicks {
		if cmds := m.Handle(Event{Kind: EvTick}); len(cmds) > 0 {
			t.Fatal("second refresh while one is pending")
		}
	}
	m.Handle(Event{Kind: EvLobbiesFailed, Err: errors.New("boom")})
	if m.Scene != Browser || m.Error == "" || m.Busy != "" {
		t.Fatalf("after a failed refresh: %+v", m)
	}
}

// How to play opens from the title and goes back to it.
func TestControlsScreen(t *testing.T) {
	m := New("a:1", Auto{})
	expect(t, m, m.Handle(Event{Kind: EvOpenControls}), Controls)
	expect(t, m, m.Handle(Event{Kind: EvBack}), Title)
}

// Title → Replays lists the kept replays; watching one and going back returns to the list (listed
// again); a replay that cannot be played is said on the Replays screen; -replay FILE at start
// watches from the title and goes back to it.
func TestReplaysFlow(t *testing.T) {
	m := New("127.0.0.1:4242", Auto{})
	cmds := m.Handle(Event{Kind: EvOpenReplays})
	if m.Scene != Replays || len(cmds) != 1 || cmds[0].Kind != CmdListReplays || m.Busy == "" {
		t.Fatalf("open replays: scene %v cmds %v busy %q", m.Scene, cmds, m.Busy)
	}
	rows := []ReplayInfo{{Path: "/r/a.rtr", Stage: "stage1"}}
	m.Handle(Event{Kind: EvReplayList, Replays: rows})
	if len(m.Replays) != 1 || m.Busy != "" {
		t.Fatalf("list: %d rows, busy %q", len(m.Replays), m.Busy)
	}
	cmds = m.Handle(Event{Kind: EvWatch, Path: "/r/a.rtr"})
	if len(cmds) != 1 || cmds[0].Kind != CmdOpenReplay || cmds[0].Path != "/r/a.rtr" {
		t.Fatalf("watch: %v", cmds)
	}
	m.Handle(Event{Kind: EvWatchReady})
	if m.Scene != Watching {
		t.Fatalf("ready: scene %v", m.Scene)
	}
	cmds = m.Handle(Event{Kind: EvBack})
	if m.Scene != Replays || len(cmds) != 2 || cmds[0].Kind != CmdCloseReplay || cmds[1].Kind != CmdListReplays {
		t.Fatalf("back from watching: scene %v cmds %v", m.Scene, cmds)
	}
	m.Handle(Event{Kind: EvReplayList, Replays: rows})
	m.Handle(Event{Kind: EvWatch, Path: "/r/bad.rtr"})
	cmds = m.Handle(Event{Kind: EvWatchFailed, Err: errors.New("simulation version 1, this build plays 2")})
	if m.Scene != Replays || !strings.Contains(m.Error, "version") || len(cmds) != 1 || cmds[0].Kind != CmdListReplays {
		t.Fatalf("failed: scene %v error %q cmds %v", m.Scene, m.Error, cmds)
	}
	m.Handle(Event{Kind: EvBack})
	if m.Scene != Title {
		t.Fatalf("back from replays: %v", m.Scene)
	}

	// -replay FILE: from the title straight to Watching, and back to the title
	m = New("", Auto{})
	m.Handle(Event{Kind: EvWatch, Path: "/tmp/friend.rtr"})
	m.Handle(Event{Kind: EvWatchReady})
	if m.Scene != Watching {
		t.Fatalf("-replay: scene %v", m.Scene)
	}
	if cmds := m.Handle(Event{Kind: EvBack}); m.Scene != Title || len(cmds) != 1 || cmds[0].Kind != CmdCloseReplay {
		t.Fatalf("-replay back: scene %v cmds %v", m.Scene, cmds)
	}
}

// The Hall of fame from the title dials the server, lists the best games, changes its view on
// request, downloads and watches a game's replay, comes back to the list, and closes its own
// connection on Back; from the browser it keeps the lobby connection and goes back there.
func TestHallOfFameFlow(t *testing.T) {
	m := New("10.1.1.1:4242", Auto{})
	cmds := m.Handle(Event{Kind: EvOpenHall})
	if m.Scene != HallOfFame || len(cmds) != 1 || cmds[0].Kind != CmdDialLobby || cmds[0].Addr != "10.1.1.1:4242" {
		t.Fatalf("open: scene %v cmds %v", m.Scene, cmds)
	}
	cmds = m.Handle(Event{Kind: EvConnected})
	if len(cmds) != 1 || cmds[0].Kind != CmdGetScores || cmds[0].Hall != (Hall{}) {
		t.Fatalf("connected: %v", cmds)
	}
	games := []lobby.GameEntry{{Rank: 1}}
	m.Handle(Event{Kind: EvScores, Games: games})
	if len(m.Games) != 1 || m.Busy != "" {
		t.Fatalf("scores: %d games busy %q", len(m.Games), m.Busy)
	}
	q := Hall{View: HallToday, Stage: "stage1", Players: 2, Page: 1}
	cmds = m.Handle(Event{Kind: EvHallQuery, Hall: q})
	if len(cmds) != 1 || cmds[0].Kind != CmdGetScores || cmds[0].Hall != q || m.Hall != q {
		t.Fatalf("query: %v (hall %+v)", cmds, m.Hall)
	}
	m.Handle(Event{Kind: EvScores, Games: games})
	cmds = m.Handle(Event{Kind: EvWatchGame, Code: "0b7e1c6a-5a38-4a7e-9c1e-3d1f2a4b5c6d"})
	if len(cmds) != 1 || cmds[0].Kind != CmdFetchReplay || cmds[0].Code == "" {
		t.Fatalf("watch game: %v", cmds)
	}
	cmds = m.Handle(Event{Kind: EvReplayFetched, Path: "/r/0b7e.rtr"})
	if len(cmds) != 1 || cmds[0].Kind != CmdOpenReplay || cmds[0].Path != "/r/0b7e.rtr" || m.Scene != HallOfFame {
		t.Fatalf("fetched: scene %v cmds %v", m.Scene, cmds)
	}
	m.Handle(Event{Kind: EvWatchReady})
	if m.Scene != Watching {
		t.Fatalf("ready: %v", m.Scene)
	}
	if cmds := m.Handle(Event{Kind: EvBack}); m.Scene != HallOfFame || len(cmds) != 1 || cmds[0].Kind != CmdCloseReplay || len(m.Games) != 1 {
		t.Fatalf("back from watching: scene %v cmds %v games %d", m.Scene, cmds, len(m.Games))
	}
	m.Handle(Event{Kind: EvFetchFailed, Err: errors.New("no replay of game x")})
	if m.Error == "" {
		t.Fatal("a failed download says nothing")
	}
	if cmds := m.Handle(Event{Kind: EvBack}); m.Scene != Title || len(cmds) != 1 || cmds[0].Kind != CmdDisconnect {
		t.Fatalf("back: scene %v cmds %v", m.Scene, cmds)
	}

	// from the browser: its connection stays
	m = New("10.1.1.1:4242", Auto{})
	m.Handle(Event{Kind: EvPlay})
	m.Handle(Event{Kind: EvSubmitAddr, Addr: "10.1.1.1:4242"})
	m.Handle(Event{Kind: EvConnected})
	m.Handle(Event{Kind: EvLobbies})
	if cmds := m.Handle(Event{Kind: EvOpenHall}); m.Scene != HallOfFame || len(cmds) != 1 || cmds[0].Kind != CmdGetScores {
		t.Fatalf("browser → hall: scene %v cmds %v", m.Scene, cmds)
	}
	if cmds := m.Handle(Event{Kind: EvBack}); m.Scene != Browser || len(cmds) != 1 || cmds[0].Kind != CmdListLobbies {
		t.Fatalf("hall → browser: scene %v cmds %v", m.Scene, cmds)
	}

	// the lobby lost while watching: watching goes on, Back goes to the title
	m = New("10.1.1.1:4242", Auto{})
	m.Handle(Event{Kind: EvOpenHall})
	m.Handle(Event{Kind: EvConnected})
	m.Handle(Event{Kind: EvScores, Games: games})
	m.Handle(Event{Kind: EvWatchGame, Code: "x"})
	m.Handle(Event{Kind: EvReplayFetched, Path: "/r/x.rtr"})
	m.Handle(Event{Kind: EvWatchReady})
	m.Handle(Event{Kind: EvLobbyLost, Err: errors.New("EOF")})
	if m.Scene != Watching {
		t.Fatalf("lobby lost while watching: %v", m.Scene)
	}
	m.Handle(Event{Kind: EvBack})
	if m.Scene != Title {
		t.Fatalf("back after the lobby was lost: %v", m.Scene)
	}
}

// The owner of a solo lobby picks the section its game starts at (practice): SET_SECTION.
func TestRoomSetSection(t *testing.T) {
	m := New("10.1.1.1:4242", Auto{})
	m.Handle(Event{Kind: EvPlay})
	m.Handle(Event{Kind: EvSubmitAddr, Addr: "10.1.1.1:4242"})
	m.Handle(Event{Kind: EvConnected})
	m.Handle(Event{Kind: EvLobbies})
	m.Handle(Event{Kind: EvCreate})
	m.Handle(Event{Kind: EvJoined, Code: "K7QF2"})
	cmds := m.Handle(Event{Kind: EvSetSection, Section: 3})
	if m.Scene != Room || len(cmds) != 1 || cmds[0].Kind != CmdSetSection || cmds[0].Section != 3 {
		t.Fatalf("set section: scene %v cmds %v", m.Scene, cmds)
	}
}
