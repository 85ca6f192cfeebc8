// Package scene is the client's screen flow as a display-free state machine: events in (menu
// choices, results of network calls that the client ran in goroutines, game events), commands out
// (network calls to start, settings to save, quit). The Ebitengine client draws the current
// scene and executes the commands without ever blocking Update; tests drive the machine directly.
//
// Flow: Title → Connect (lobby address) → Browser (GET_LOBBIES, join by code, create) → Room
// (MEMBERS, START) → Playing → Results → Room ...; Lost shows why a connection ended and returns
// to Title; Settings is reachable from Title. With Auto.On (-autoplay, -lobby, -start) the flow
// goes from Title to the game without keys.
//
// Each scene is a screen, a type of its own in a file of its own (title.go, connect.go,
// browser.go …) that registers itself with its ID (register, from the file's init); Handle
// passes the current screen each event.
package scene

import (
	"fmt"

	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/lobby"
)

// ID identifies a scene.
type ID uint8

// The scenes: each is a screen, its flow a type in a file of its own (title.go, connect.go …)
// that registers itself under its ID. This list is the one line a new screen adds.
const (
	Title      ID = iota // main menu: Play, Settings, Quit
	Connect              // type the lobby server address
	Browser              // lobby list, join by code, create
	Room                 // lobby members, START
	Playing              // in game
	Results              // victory/defeat and scores
	Lost                 // connection lost: reason, back to menu
	Settings             // fullscreen, volumes, bindings
	Controls             // how to play: the keys in effect and what the game's things do
	Replays              // the replays kept on this computer: watch one
	Watching             // a replay plays (pause, speed, seek, whose ship the HUD follows)
	HallOfFame           // the server's best and recent games (GET_SCORES, GET_GAMES): watch one
	Servers              // the server browser: the lists (Internet), the LAN, favourites and recent servers
	NumScenes            // the number of scenes (not one)
)

// screen is one scene's part of the flow: what the events it takes do to the machine, and the
// commands they give. Handle passes it every event but quitting and a lost lobby connection.
type screen interface {
	handle(m *Machine, ev Event) []Cmd
}

// screens is each scene's name and screen, filled by register from the screen's own file (an
// init there): no list to edit when a screen is added, only its ID above.
var screens [NumScenes]struct {
	name string
	screen
}

// register makes s the screen of scene id, called name (ID.String). It panics on an ID past the
// scenes, on a name or an ID registered twice: a mistake of the program, found at start-up
// (and by TestEveryScreenListed).
func register(id ID, name string, s screen) {
	if id >= NumScenes || name == "" || s == nil {
		panic(fmt.Sprintf("scene: register(%d, %q, %T)", id, name, s))
	}
	if screens[id].screen != nil {
		panic(fmt.Sprintf("scene: scene %d registered twice (%s, %s)", id, screens[id].name, name))
	}
	for other := range screens {
		if screens[other].name == name {
			panic(fmt.Sprintf("scene: scenes %d and %d are both named %q", other, id, name))
		}
	}
	screens[id].name, screens[id].screen = name, s
}

func (id ID) String() string {
	if id < NumScenes && screens[id].name != "" {
		return screens[id].name
	}
	return fmt.Sprintf("scene(%d)", uint8(id))
}

// EventKind says what happened.
type EventKind uint8

// Events. "User" events come from menus, "net" events from goroutines the client started for a
// command, "game" events from the session.
const (
	EvNone EventKind = iota
	// user
	EvPlay         // title: Play
	EvOpenSettings // title: Settings
	EvQuit         // quit the program
	EvBack         // back / cancel
	EvSubmitAddr   // connect: Addr typed
	EvRefresh      // browser: refresh the list
	EvJoin         // browser: join Code
	EvCreate       // browser: create a lobby
	EvStart        // room: START
	EvSetStage     // room: the owner picks Stage (SET_STAGE)
	EvLeaveGame    // playing: leave from the pause menu
	EvContinue     // results/lost: continue
	EvRejoin       // lost/title: rejoin the lost game (Addr, Code, Slot, Key of netflow.Ticket)
	EvMenu         // playing: Esc opens or closes the in-game menu (CmdPause asks the server to pause)
	EvTick         // one 60 Hz frame passed (timeouts of the automatic flow)
	// net
	EvConnected     // lobby dialled and authenticated
	EvConnectFailed // Err
	EvLobbies       // Lobbies
	EvLobbiesFailed // Err
	EvJoined        // Code
	EvJoinFailed    // Err
	EvStartFailed   // Err
	EvStageFailed   // SET_STAGE refused: Err
	EvGameStarting  // START push: Port, Token, Key, Stage, StageHash
	EvSessionReady  // UDP session got WELCOME
	EvSessionFailed // Err
	EvLobbyLost     // the TCP lobby connection failed: Err
	// game
	EvGameEnd      // Result
	EvDisconnected // session ended without GAME_END: Reason
	// user (later additions)
	EvOpenControls  // title: How to play
	EvSetDifficulty // room: the owner picks Level (SET_DIFFICULTY); a refusal comes as EvStageFailed
	EvSetSection    // room: the owner of a solo lobby picks the Section its game starts at (SET_SECTION); a refusal comes as EvStageFailed
	EvOpenReplays   // title: Replays
	EvWatch         // replays (or -replay FILE at start): watch the replay file Path
	EvReplayList    // the kept replays were listed: Replays (Err when the folder could not be read)
	EvWatchReady    // the replay of EvWatch is open and plays
	EvWatchFailed   // the replay could not be opened: Err
	EvOpenHall      // title or browser: Hall of fame
	EvHallQuery     // hall of fame: show Hall (view, stage, players, page)
	EvScores        // the hall of fame's page arrived: Games
	EvScoresFailed  // GET_SCORES / GET_GAMES failed: Err
	EvWatchGame     // hall of fame: watch game Code (its id): fetched, then watched
	EvReplayFetched // the replay of EvWatchGame was downloaded to Path
	EvFetchFailed   // the replay could not be downloaded: Err
	EvRetry         // playing: Retry from the pause menu (a solo game starts again, RETRY); a refusal comes as EvStartFailed in the room
	EvSetLives      // room: the owner of a solo lobby picks Infinite lives or the level's (SET_LIVES); a refusal comes as EvStageFailed
	// EvServerClosing: the server said it closes (CLOSING push): Reason in player words
	// (ClosingWords). The lobby connection is closed; a game in progress ends soon (GAME_END).
	EvServerClosing
	EvRetryConnect // lost: check again whether the lobby server answers (a dial, closed at once); the answer sets LobbyAnswers
	// servers (the server browser, servers.go)
	EvServerView    // show View (tab, sort, filters); a new tab lists its servers
	EvServerList    // the servers of CmdListServers came: Servers (Err: the lists that failed, or the LAN probe's failure)
	EvServerPinged  // the query of one server (CmdPingServers) answered: Servers[0] with Ping, or Err
	EvFavourite     // servers: add Addr to the favourites, or take it out
	EvDirectConnect // servers: type an address (the Connect screen)
	// EvSubmitPassword: connect or browser: the Password the player typed for what Ask asked
	// (the private server's, or the private lobby's); EvCancelPassword: the player gave up.
	EvSubmitPassword
	EvCancelPassword
	// EvResumed: CmdResumeLobby took the place back: a lobby connection again, the game's room
	// after it. EvResumeFailed: the lobby refused (Err); the game plays on without a lobby.
	EvResumed
	EvResumeFailed
)

// HallView is what the Hall of fame screen lists.
type HallView uint8

// The views, in the order Left/Right steps through them.
const (
	HallBest   HallView = iota // the best games of all time (GET_SCORES)
	HallToday                  // the best games of the server's day (GET_SCORES …,today)
	HallRecent                 // the newest games (GET_GAMES)
	HallMine                   // this player's best games (GET_SCORES …,<name>)
	NumHallViews
)

var hallViewNames = [...]string{"Best of all time", "Best today", "Recent games", "Your best"}

func (v HallView) String() string {
	if v < NumHallViews {
		return hallViewNames[v]
	}
	return fmt.Sprintf("view(%d)", uint8(v))
}

// Hall is the Hall of fame's query: a view, a stage ("" every one), a player count (0 every
// one) and a page (0 the first).
type Hall struct {
	View    HallView
	Stage   string
	Players int
	Page    int
}

// ReplayInfo is one row of the Replays screen: a replay file and what its header says.
type ReplayInfo struct {
	Path       string
	Stage      string
	Difficulty rules.Difficulty
	Names      []string // by slot
	Time       int64    // Unix seconds the game started (0: unknown)
	Ticks      int      // length (60 Hz ticks)
	Result     rules.Result
	Score      uint64 // the game's score: its players' together (as the hall of fame ranks games)
}

// Lobby is one row of the lobby browser (GET_LOBBIES).
type Lobby struct {
	Code    string
	Players int
	Running bool
	Stage   string // name of the stage the lobby plays
	// Difficulty is the lobby's level.
	Difficulty rules.Difficulty
}

// Event is an input to the machine.
type Event struct {
	Kind    EventKind
	Addr    string
	Code    string
	Port    int
	Token   uint32
	Key     [16]byte // session key of the START push (with Port and Token)
	Result  uint8    // 0 defeat, 1 victory, 2 aborted (GAME_END)
	Reason  string
	Err     error
	Lobbies []Lobby
	// Stages are the stage names the server offers, its default first (with EvLobbies).
	Stages []string
	// Stage is the stage to create a lobby with (EvCreate; "" = the server's default), to set
	// (EvSetStage), or the stage of the game starting (EvGameStarting, with its StageHash).
	Stage, StageHash string
	// Section is the practice section to start at (EvSetSection: 0 the start, the stage's
	// section count its boss).
	Section int
	// Infinite: EvSetLives chooses infinite lives (false: the level's).
	Infinite bool
	// Level is the difficulty level to set (EvSetDifficulty): "easy", "normal" or "hard".
	Level string
	// Slot is the slot to take back (EvRejoin, with Code, Key and the lobby server in Addr).
	Slot int
	// Spectator: the game starting is watched without a ship (EvGameStarting from a SPECTATE
	// push: JOIN_LOBBY to a running lobby, docs/PROTOCOL.md §2.4.3).
	Spectator bool
	// Password is what the player typed (EvSubmitPassword).
	Password string
	// Path is the replay file to watch (EvWatch, EvReplayFetched); Replays the kept replays
	// (EvReplayList).
	Path    string
	Replays []ReplayInfo
	// Hall is the query to show (EvHallQuery); Games the page that came (EvScores).
	Hall  Hall
	Games []lobby.GameEntry
	// View is the server browser's view to show (EvServerView); Servers the servers that came
	// (EvServerList) or the one that answered (EvServerPinged).
	View    ServerView
	Servers []Server
}

// CmdKind is a side effect the client must run (network calls in goroutines).
type CmdKind uint8

// Commands.
const (
	CmdDialLobby     CmdKind = iota + 1 // dial + AUTHENTICATE Addr; reply EvConnected / EvConnectFailed
	CmdListLobbies                      // GET_LOBBIES; reply EvLobbies / EvLobbiesFailed
	CmdJoin                             // JOIN_LOBBY Code ("" creates, playing Stage); reply EvJoined / EvJoinFailed
	CmdStart                            // START; reply nothing or EvStartFailed
	CmdWaitStart                        // wait for the START push; reply EvGameStarting / EvLobbyLost
	CmdLeave                            // LEAVE the lobby (stops the START wait)
	CmdDialSession                      // resolve Stage/StageHash, then the UDP session to Port with Token; reply EvSessionReady / EvSessionFailed
	CmdCloseSession                     // close the UDP session
	CmdDisconnect                       // close the lobby connection (and anything pending)
	CmdSaveSettings                     // persist settings (address, volumes, bindings)
	CmdQuit                             // leave the program
	CmdSetStage                         // SET_STAGE Stage; reply nothing (a STAGE push) or EvStageFailed
	CmdRejoin                           // REJOIN Code, Slot with Key (netflow.Ticket); reply EvJoined (then the START push: CmdWaitStart) / EvJoinFailed
	CmdPause                            // ask the server to pause (Paused) or resume the game (Runner.RequestPause); reply nothing
	CmdClearTicket                      // forget the saved rejoin ticket (rejoined, or the game ended)
	CmdSetDifficulty                    // SET_DIFFICULTY Level; reply nothing (a DIFFICULTY push) or EvStageFailed
	CmdListReplays                      // list the replays kept on this computer; reply EvReplayList
	CmdOpenReplay                       // open the replay file Path for watching; reply EvWatchReady / EvWatchFailed
	CmdCloseReplay                      // stop watching
	CmdGetScores                        // the Hall of fame's page Hall; reply EvScores / EvScoresFailed
	CmdFetchReplay                      // download the replay of game Code into the replays folder; reply EvReplayFetched / EvFetchFailed
	CmdKeepReplay                       // download the replay of the game that just ended (GAME_ID) into the replays folder; no reply
	CmdSetSection                       // SET_SECTION Section; reply nothing (a SECTION push) or EvStageFailed
	CmdRetry                            // RETRY; reply nothing (END, then the START push: CmdWaitStart) or EvStartFailed
	CmdSetLives                         // SET_LIVES Infinite; reply nothing (a LIVES push) or EvStageFailed
	CmdListServers                      // the servers of tab View.Tab (the lists, the LAN; Servers: the favourites and recent); reply EvServerList
	CmdPingServers                      // query each of Servers (its QueryAddr) for its info and round trip; one EvServerPinged each
	// CmdResumeLobby: the lobby connection went while the game plays on (a lobby restarted):
	// redial Addr with a backoff and take the player's place back (RESUME, docs/PROTOCOL.md
	// §2.4.20) until it works, is refused, or the game ends; reply EvResumed / EvResumeFailed.
	// CmdCloseSession and CmdDisconnect stop it.
	CmdResumeLobby
)

var cmdNames = [...]string{"", "dial-lobby", "list-lobbies", "join", "start", "wait-start", "leave",
	"dial-session", "close-session", "disconnect", "save-settings", "quit", "set-stage", "rejoin", "pause",
	"clear-ticket", "set-difficulty", "list-replays", "open-replay", "close-replay", "get-scores",
	"fetch-replay", "keep-replay", "set-section", "retry", "set-lives", "list-servers", "ping-servers", "resume-lobby"}

func (k CmdKind) String() string {
	if int(k) < len(cmdNames) {
		return cmdNames[k]
	}
	return fmt.Sprintf("cmd(%d)", uint8(k))
}

// Cmd is one command with its arguments.
type Cmd struct {
	Kind  CmdKind
	Addr  string
	Code  string
	Port  int
	Token uint32
	Key   [16]byte // session key (CmdDialSession; CmdRejoin: the lost session's)
	Slot  int      // CmdRejoin: the slot to take back
	// Paused: CmdPause asks for a pause (true) or to resume (false).
	Paused bool
	// Stage names a stage: to create a lobby with (CmdJoin, Code ""; "" = the server's default),
	// to set (CmdSetStage), or the stage of the game to join (CmdDialSession, with StageHash).
	Stage, StageHash string
	// Level is the difficulty level to set (CmdSetDifficulty).
	Level string
	// Path is the replay file to open (CmdOpenReplay); the replays folder (CmdFetchReplay,
	// CmdKeepReplay: the client sets it).
	Path string
	// Hall is the Hall of fame's query (CmdGetScores).
	Hall Hall
	// Section is the practice section to set (CmdSetSection).
	Section int
	// Infinite: CmdSetLives asks for infinite lives (false: the level's).
	Infinite bool
	// View is the server browser's view (CmdListServers: its Tab); Servers the servers to list
	// (CmdListServers of TabSaved: the favourites and recent) or to query (CmdPingServers).
	View    ServerView
	Servers []Server
	// Password is the private server's (CmdDialLobby) or private lobby's (CmdJoin) password
	// ("" none; docs/PROTOCOL.md §2.4.1, §2.4.3).
	Password string
}

// Auto configures the keyless flow of -autoplay / -lobby / -start.
type Auto struct {
	On    bool
	Lobby string // code to join; "" creates a lobby
	Stage string // stage of the lobby created ("" = the server's default)
	Start bool   // send START once in the room
	// ResultsTicks is how long the results screen stays before returning to the room (60 Hz ticks);
	// 0 means 300 (5 s).
	ResultsTicks int
}

// Machine is the scene state. The exported fields are read by the renderer; change them only
// through Handle.
type Machine struct {
	Scene   ID
	Busy    string // progress label ("Connecting"), "" when idle; the renderer animates it
	Error   string // last error to show on the current scene, in player words ("" when none)
	Detail  string // the raw error behind Error or Reason, for small print ("" when none)
	Addr    string // lobby address in use
	Code    string // lobby code once joined
	Lobbies []Lobby
	Stages  []string // stage names the server offers, its default first (with the lobby list)
	Result  uint8    // last GAME_END result
	Reason  string   // why the connection was lost (scene Lost)
	// Spectator: the game being played (or starting) is watched without a ship (a lobby joined
	// while its game ran, EvGameStarting.Spectator).
	Spectator bool
	// MenuOpen: the in-game menu is open (Playing); the server pauses the game only for a lone
	// player (the renderer reads netflow.Frame.Paused for "PAUSED" vs "the game goes on").
	MenuOpen bool
	// Rejoining: the current connection is a rejoin of a lost game (Code, slot RejoinSlot).
	Rejoining  bool
	RejoinSlot int
	// LobbyAnswers (scene Lost): the lobby server answered since the connection was lost (the
	// check Lost makes of it, or EvRetryConnect's): a rejoin may be offered. False: say the
	// server does not answer and offer EvRetryConnect instead (lost.go).
	LobbyAnswers bool
	// Ask is the password the Connect or Browser screen asks the player for (a private server's
	// or lobby's; AskServerAgain, AskLobbyAgain after a wrong one), Error saying so; AskNone:
	// no prompt (password.go).
	Ask lobby.PasswordAsk
	// Resuming (Playing): the lobby connection went and CmdResumeLobby is taking the place back;
	// the game plays on meanwhile (the renderer says so).
	Resuming bool

	auto         Auto
	rejoinKey    [16]byte // key of the pending rejoin (sent once connected)
	connected    bool     // lobby connection open
	inSession    bool     // UDP session open
	settingsFrom ID
	timer        int
	refreshIn    int    // browser: ticks to the next automatic refresh
	quietList    bool   // the pending list request is an automatic refresh (no spinner)
	lobbyLost    string // the lobby connection failed during the game: why, in player words (shown with the results)
	closing      string // the server said it closes (EvServerClosing): why, in player words; "" none
	probing      bool   // Lost checks whether the lobby server answers (lost.go)
	watchFrom    ID     // the scene a replay was opened from (Watching goes back to it)
	hallFrom     ID     // the scene the Hall of fame was opened from (Title: its connection is its own)
	joining      string // browser: the code of the lobby being joined (asked again with its password)

	// The server browser (servers.go): the view shown, the servers of its tab, the favourites
	// and the recent servers ("host:port", kept in the settings by CmdSaveSettings).
	View       ServerView
	Servers    []Server
	Favourites []string
	Recent     []string
	pingsDue   int // servers: EvTick countdown to giving up on the queries not answered (PingTimeout)

	// Replays are the kept replays (scene Replays), newest first.
	Replays []ReplayInfo
	// Hall is the Hall of fame's query shown, Games its page (scene HallOfFame).
	Hall  Hall
	Games []lobby.GameEntry
}

// New returns a machine on the title screen.
func New(addr string, auto Auto) *Machine {
	if auto.ResultsTicks <= 0 {
		auto.ResultsTicks = 300
	}
	return &Machine{Scene: Title, Addr: addr, auto: auto}
}

// AutoOn reports whether the keyless flow is active.
func (m *Machine) AutoOn() bool { return m.auto.On }

// Begin returns the commands to run at start-up: with Auto.On it dials the lobby at once.
func (m *Machine) Begin() []Cmd {
	if !m.auto.On {
		return nil
	}
	m.Scene, m.Busy = Connect, "Connecting"
	return []Cmd{{Kind: CmdDialLobby, Addr: m.Addr}}
}

func (m *Machine) lose(reason string) []Cmd {
	var cmds []Cmd
	if m.inSession {
		cmds = append(cmds, Cmd{Kind: CmdCloseSession})
		m.inSession = false
	}
	if m.connected {
		cmds = append(cmds, Cmd{Kind: CmdDisconnect})
		m.connected = false
	}
	m.Scene, m.Busy, m.Error, m.Reason = Lost, "", "", reason
	m.MenuOpen, m.Rejoining, m.Resuming = false, false, false
	m.LobbyAnswers, m.probing = false, false // lost.go
	return cmds
}

// explain puts err in player words (lobby.Explain) for the server in use; the raw error goes to
// Detail.
func (m *Machine) explain(err error) string {
	if err == nil {
		m.Detail = ""
		return "Something went wrong."
	}
	msg, detail := lobby.Explain(err, m.Addr)
	m.Detail = detail
	return msg
}

// fail shows err on the current scene.
func (m *Machine) fail(err error) {
	m.Busy, m.Error = "", m.explain(err)
}

// Handle applies one event and returns the commands to run. Events that do not apply to the
// current scene are ignored, except that late replies to abandoned calls are cleaned up (a lobby
// connection that completes after the user went back is closed). Quitting and a lost lobby
// connection are handled here for every scene; the rest is the current scene's screen (screens).
func (m *Machine) Handle(ev Event) []Cmd {
	if ev.Kind == EvQuit {
		var cmds []Cmd
		if m.inSession {
			cmds = append(cmds, Cmd{Kind: CmdCloseSession})
		}
		if m.connected {
			cmds = append(cmds, Cmd{Kind: CmdLeave}, Cmd{Kind: CmdDisconnect})
		}
		m.inSession, m.connected = false, false
		return append(cmds, Cmd{Kind: CmdQuit})
	}
	if ev.Kind == EvServerClosing {
		return m.serverClosing(ev.Reason)
	}
	if ev.Kind == EvConnected {
		m.closing = "" // a new connection: the server that closed is not this one (or is back)
	}
	if ev.Kind == EvLobbyLost && m.closing != "" {
		ev.Err = nil // the connection closes because the server said so: its words, not the EOF
	}
	if ev.Kind == EvLobbyLost && m.connected && m.Scene == Watching {
		m.connected = false // a replay needs no lobby: watching goes on, Back goes to the title
		m.watchFrom = Title
		return nil
	}
	if ev.Kind == EvResumed && m.Scene != Playing {
		return []Cmd{{Kind: CmdDisconnect}} // late: the game ended meanwhile
	}
	if ev.Kind == EvLobbyLost && m.connected && m.Scene != Playing {
		msg := m.closing
		if msg == "" {
			msg = m.explain(ev.Err)
		}
		return m.lose(msg)
	}
	if m.Scene != Browser {
		m.quietList = false // a late automatic refresh is ignored outside the browser
	}
	if m.Scene >= NumScenes || screens[m.Scene].screen == nil {
		return nil
	}
	return screens[m.Scene].handle(m, ev)
}
