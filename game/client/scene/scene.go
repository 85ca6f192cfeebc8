// Package scene is the client's screen flow as a display-free state machine: events in (menu
// choices, results of network calls that the client ran in goroutines, game events), commands out
// (network calls to start, settings to save, quit). The Ebitengine client draws the current
// scene and executes the commands without ever blocking Update; tests drive the machine directly.
//
// Flow: Title → Connect (lobby address) → Browser (GET_LOBBIES, join by code, create) → Room
// (MEMBERS, START) → Playing → Results → Room ...; Lost shows why a connection ended and returns
// to Title; Settings is reachable from Title. With Auto.On (-autoplay, -lobby, -start) the flow
// goes from Title to the game without keys.
package scene

import (
	"fmt"

	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/lobby"
)

// BrowserRefreshTicks is how often (60 Hz ticks) the lobby browser lists the lobbies again by
// itself (3 s).
const BrowserRefreshTicks = 180

// ID identifies a scene.
type ID uint8

// The scenes.
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
)

var idNames = [...]string{"title", "connect", "browser", "room", "playing", "results", "lost", "settings", "controls", "replays", "watching", "hall-of-fame"}

func (id ID) String() string {
	if int(id) < len(idNames) {
		return idNames[id]
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
	// Path is the replay file to watch (EvWatch, EvReplayFetched); Replays the kept replays
	// (EvReplayList).
	Path    string
	Replays []ReplayInfo
	// Hall is the query to show (EvHallQuery); Games the page that came (EvScores).
	Hall  Hall
	Games []lobby.GameEntry
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
)

var cmdNames = [...]string{"", "dial-lobby", "list-lobbies", "join", "start", "wait-start", "leave",
	"dial-session", "close-session", "disconnect", "save-settings", "quit", "set-stage", "rejoin", "pause",
	"clear-ticket", "set-difficulty", "list-replays", "open-replay", "close-replay", "get-scores",
	"fetch-replay", "keep-replay", "set-section", "retry", "set-lives"}

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
}

// ResultsGuardTicks is how long (60 Hz ticks) the results screen ignores confirm and back, so
// that buttons still pressed from the game (fire is also confirm) do not skip it.
const ResultsGuardTicks = 90

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
	m.MenuOpen, m.Rejoining = false, false
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
// connection that completes after the user went back is closed).
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
	switch m.Scene {
	case Title:
		switch ev.Kind {
		case EvPlay:
			m.Scene, m.Error = Connect, ""
		case EvOpenSettings:
			m.Scene, m.settingsFrom = Settings, Title
		case EvOpenControls:
			m.Scene = Controls
		case EvOpenReplays:
			m.Scene, m.Busy, m.Error, m.Replays, m.watchFrom = Replays, "Loading replays", "", nil, Replays
			return []Cmd{{Kind: CmdListReplays}}
		case EvWatch:
			return m.watch(ev.Path)
		case EvOpenHall:
			return m.openHall()
		case EvRejoin:
			return m.rejoin(ev)
		case EvConnected:
			return []Cmd{{Kind: CmdDisconnect}} // late reply after Back
		}
	case Controls:
		if ev.Kind == EvBack || ev.Kind == EvContinue {
			m.Scene = Title
		}
	case Replays:
		switch ev.Kind {
		case EvReplayList:
			m.Replays = ev.Replays
			if m.Busy == "Loading replays" {
				m.Busy = ""
			}
			if ev.Err != nil {
				m.Error = "Could not read the replays folder: " + ev.Err.Error()
			}
		case EvWatch:
			if m.Busy == "" {
				return m.watch(ev.Path)
			}
		case EvWatchReady:
			m.Scene, m.Busy, m.Error, m.MenuOpen = Watching, "", "", false
		case EvWatchFailed:
			// said on the Replays screen, whose list comes with it (also for -replay FILE)
			m.Busy, m.watchFrom, m.Error = "", Replays, "Cannot play this replay: "+ev.Err.Error()
			return []Cmd{{Kind: CmdListReplays}}
		case EvBack:
			m.Scene, m.Busy, m.Error = Title, "", ""
		}
	case Watching:
		if ev.Kind == EvBack {
			m.Scene = m.watchFrom
			cmds := []Cmd{{Kind: CmdCloseReplay}}
			if m.Scene == Replays {
				m.Busy = "Loading replays"
				cmds = append(cmds, Cmd{Kind: CmdListReplays})
			}
			return cmds
		}
	case HallOfFame:
		return m.handleHall(ev)
	case Settings:
		if ev.Kind == EvBack || ev.Kind == EvContinue {
			m.Scene = m.settingsFrom
			return []Cmd{{Kind: CmdSaveSettings}}
		}
	case Connect:
		switch ev.Kind {
		case EvSubmitAddr:
			if m.Busy != "" {
				return nil
			}
			m.Addr, m.Busy, m.Error, m.Detail = ev.Addr, "Connecting", "", ""
			return []Cmd{{Kind: CmdSaveSettings}, {Kind: CmdDialLobby, Addr: ev.Addr}}
		case EvBack:
			busy := m.Busy != ""
			m.Scene, m.Busy, m.Error, m.Rejoining = Title, "", "", false
			if busy {
				return []Cmd{{Kind: CmdDisconnect}}
			}
		case EvConnected:
			if m.Busy == "" {
				return []Cmd{{Kind: CmdDisconnect}}
			}
			m.connected = true
			m.Scene, m.Error = Browser, ""
			if m.Rejoining {
				m.Busy = "Rejoining " + m.Code
				return []Cmd{{Kind: CmdRejoin, Code: m.Code, Slot: m.RejoinSlot, Key: m.rejoinKey}}
			}
			if m.auto.On {
				m.Busy = "Joining lobby"
				c := Cmd{Kind: CmdJoin, Code: m.auto.Lobby}
				if c.Code == "" {
					c.Stage = m.auto.Stage
				}
				return []Cmd{c}
			}
			m.Busy = "Loading lobbies"
			return []Cmd{{Kind: CmdListLobbies}}
		case EvConnectFailed:
			if m.auto.On || m.Rejoining {
				m.Rejoining = false
				msg := m.explain(ev.Err)
				return m.lose(msg)
			}
			m.fail(ev.Err)
		}
	case Browser:
		switch ev.Kind {
		case EvTick:
			// The list refreshes itself every BrowserRefreshTicks, without a spinner.
			if m.refreshIn--; m.refreshIn <= 0 && m.Busy == "" && !m.quietList && !m.auto.On {
				m.refreshIn, m.quietList = BrowserRefreshTicks, true
				return []Cmd{{Kind: CmdListLobbies}}
			}
		case EvRefresh:
			if m.Busy == "" {
				m.Busy, m.Error = "Loading lobbies", ""
				return []Cmd{{Kind: CmdListLobbies}}
			}
		case EvLobbies:
			m.Lobbies, m.Stages, m.quietList, m.refreshIn = ev.Lobbies, ev.Stages, false, BrowserRefreshTicks
			if m.Busy == "Loading lobbies" {
				m.Busy = ""
			}
		case EvLobbiesFailed:
			if m.quietList && m.Busy == "" {
				m.quietList = false
				m.Error = m.explain(ev.Err)
				return nil
			}
			m.quietList = false
			m.fail(ev.Err)
		case EvJoin, EvCreate:
			if m.Busy != "" {
				return nil
			}
			c := Cmd{Kind: CmdJoin, Code: ev.Code}
			if ev.Kind == EvCreate {
				c.Code, c.Stage = "", ev.Stage
				m.Busy = "Creating lobby"
			} else {
				m.Busy = "Joining " + c.Code
			}
			m.Error = ""
			return []Cmd{c}
		case EvJoined:
			m.Scene, m.Code, m.Busy, m.Error = Room, ev.Code, "", ""
			cmds := []Cmd{{Kind: CmdWaitStart}}
			if m.Rejoining {
				m.Busy = "Rejoining the game" // the START push with a new token follows
				return cmds
			}
			if m.auto.On && m.auto.Start {
				m.Busy = "Starting"
				cmds = append(cmds, Cmd{Kind: CmdStart})
			}
			return cmds
		case EvJoinFailed:
			if m.auto.On {
				msg := m.explain(ev.Err)
				return m.lose(msg)
			}
			m.fail(ev.Err)
			if m.Rejoining {
				// the slot is gone (expired, game over): the ticket is useless; show the lobbies
				m.Rejoining, m.Error = false, "Could not rejoin the game. "+m.Error
				m.quietList = true
				return []Cmd{{Kind: CmdClearTicket}, {Kind: CmdListLobbies}}
			}
		case EvBack:
			m.connected = false
			m.Scene, m.Busy, m.Error, m.Lobbies = Title, "", "", nil
			return []Cmd{{Kind: CmdDisconnect}}
		case EvOpenHall:
			if m.Busy == "" {
				return m.openHall()
			}
		}
	case Room:
		switch ev.Kind {
		case EvStart:
			if m.Busy == "" {
				m.Busy, m.Error = "Starting", ""
				return []Cmd{{Kind: CmdStart}}
			}
		case EvStartFailed:
			m.fail(ev.Err)
		case EvSetStage:
			if m.Busy == "" {
				m.Error = ""
				return []Cmd{{Kind: CmdSetStage, Stage: ev.Stage}}
			}
		case EvSetDifficulty:
			if m.Busy == "" {
				m.Error = ""
				return []Cmd{{Kind: CmdSetDifficulty, Level: ev.Level}}
			}
		case EvSetSection:
			if m.Busy == "" {
				m.Error = ""
				return []Cmd{{Kind: CmdSetSection, Section: ev.Section}}
			}
		case EvSetLives:
			if m.Busy == "" {
				m.Error = ""
				return []Cmd{{Kind: CmdSetLives, Infinite: ev.Infinite}}
			}
		case EvStageFailed:
			m.Error = m.explain(ev.Err)
		case EvGameStarting:
			m.Busy, m.Error, m.Spectator = "Joining game", "", ev.Spectator
			if ev.Spectator {
				m.Busy = "Joining as a spectator"
			}
			return []Cmd{{Kind: CmdDialSession, Port: ev.Port, Token: ev.Token, Key: ev.Key, Addr: m.Addr, Stage: ev.Stage, StageHash: ev.StageHash}}
		case EvSessionReady:
			m.inSession = true
			m.Scene, m.Busy, m.Error, m.MenuOpen = Playing, "", "", false
			if m.Rejoining {
				m.Rejoining = false
				return []Cmd{{Kind: CmdClearTicket}}
			}
		case EvSessionFailed:
			msg := m.explain(ev.Err)
			return m.lose("Could not join the game. " + msg)
		case EvBack:
			m.Scene, m.Code, m.Busy, m.Error, m.Rejoining = Browser, "", "Loading lobbies", "", false
			return []Cmd{{Kind: CmdLeave}, {Kind: CmdListLobbies}}
		}
	case Playing:
		switch ev.Kind {
		case EvMenu:
			m.MenuOpen = !m.MenuOpen
			if m.Spectator {
				return nil // a spectator has no game to pause
			}
			return []Cmd{{Kind: CmdPause, Paused: m.MenuOpen}}
		case EvGameEnd:
			m.inSession = false
			m.Scene, m.Result, m.timer, m.MenuOpen = Results, ev.Result, 0, false
			m.Reason = m.lobbyLost // why the lobby went (a server shutting down), shown with the results
			if m.lobbyLost != "" {
				m.connected, m.lobbyLost = false, "" // Enter goes to the title, not to a lobby that is gone
				return []Cmd{{Kind: CmdCloseSession}, {Kind: CmdClearTicket}, {Kind: CmdDisconnect}}
			}
			// the client keeps its own copy of the game (the server's GAME_ID push names it)
			return []Cmd{{Kind: CmdCloseSession}, {Kind: CmdClearTicket}, {Kind: CmdKeepReplay}}
		case EvDisconnected:
			words := LostWords(ev.Reason)
			if m.closing != "" {
				words = m.closing // the server said why it went
			}
			cmds := m.lose(words)
			m.Detail = ev.Reason              // the raw reason, for small print
			return append(cmds, m.probe()...) // a rejoin only if the lobby answers (lost.go)
		case EvLobbyLost:
			// The game runs over UDP; keep playing, the loss is reported when it ends.
			m.lobbyLost = m.explain(ev.Err)
		case EvRetry:
			if m.Spectator {
				return nil // a spectator has no game of its own to retry
			}
			// The game is left and played again: the room waits for the lobby's START push
			// (RETRY, docs/PROTOCOL.md §2.4.18); a refusal (not solo) is said there.
			m.inSession = false
			m.Scene, m.Busy, m.Error, m.MenuOpen = Room, "Restarting", "", false
			return []Cmd{{Kind: CmdCloseSession}, {Kind: CmdClearTicket}, {Kind: CmdRetry}, {Kind: CmdWaitStart}}
		case EvLeaveGame:
			m.inSession = false
			m.Scene, m.Code, m.Busy, m.MenuOpen, m.Spectator = Browser, "", "Loading lobbies", false, false
			return []Cmd{{Kind: CmdCloseSession}, {Kind: CmdLeave}, {Kind: CmdListLobbies}}
		}
	case Results:
		switch ev.Kind {
		case EvTick:
			m.timer++
			if !m.auto.On || m.timer < m.auto.ResultsTicks {
				return nil
			}
		case EvContinue, EvBack:
			if m.timer < ResultsGuardTicks {
				return nil // fire (also "confirm") still being hammered from the game must not skip the results
			}
		default:
			return nil
		}
		if !m.connected {
			m.Scene, m.Reason = Title, ""
			return nil
		}
		m.Scene, m.Busy, m.Reason = Room, "", ""
		return []Cmd{{Kind: CmdWaitStart}}
	case Lost:
		switch ev.Kind {
		case EvContinue, EvBack:
			m.Scene, m.Reason, m.Detail, m.probing, m.Busy, m.Error = Title, "", "", false, "", ""
		case EvRejoin:
			if m.probing {
				return nil // the check's dial is in flight: its answer says whether to offer this
			}
			m.Reason, m.Detail = "", ""
			return m.rejoin(ev)
		case EvConnected, EvConnectFailed, EvRetryConnect:
			return m.lostProbe(ev) // lost.go
		}
	}
	return nil
}

// serverClosing handles EvServerClosing: the server closes (why, in player words). A game in
// progress plays on to its GAME_END, whose results then say why and lead to the title; the
// results of a game that just ended say it at once; any other scene that needs the lobby goes
// to Lost with the reason, whose Continue leads to the title (where Play connects again). A
// replay being watched, and the screens that need no server, carry on.
func (m *Machine) serverClosing(reason string) []Cmd {
	m.closing = reason
	if !m.connected {
		return nil
	}
	switch m.Scene {
	case Playing:
		m.lobbyLost = reason // said with the results at GAME_END (aborted)
		return nil
	case Results:
		m.connected, m.Reason = false, reason // Enter goes to the title, not to a lobby that is gone
		return []Cmd{{Kind: CmdDisconnect}}
	case Watching:
		m.connected, m.watchFrom = false, Title
		return []Cmd{{Kind: CmdDisconnect}}
	case Title, Settings, Controls, Replays:
		m.connected = false
		return []Cmd{{Kind: CmdDisconnect}}
	}
	return m.lose(reason)
}

// watch opens the replay file path from the current scene (Title, Replays or HallOfFame);
// Watching goes back there. The open is shown on that screen ("Opening replay"; the Replays
// screen for the title's -replay FILE), where a failure is said.
func (m *Machine) watch(path string) []Cmd {
	if path == "" {
		return nil
	}
	m.watchFrom = m.Scene
	if m.Scene == Title {
		m.Scene = Replays
	}
	m.Busy, m.Error = "Opening replay", ""
	return []Cmd{{Kind: CmdOpenReplay, Path: path}}
}

// openHall shows the Hall of fame (its first view); from the title it dials the lobby of the
// server in use first (the connection is closed again on Back).
func (m *Machine) openHall() []Cmd {
	m.hallFrom = m.Scene
	m.Scene, m.Error, m.Detail, m.Games, m.Hall = HallOfFame, "", "", nil, Hall{}
	if !m.connected {
		m.Busy = "Connecting"
		return []Cmd{{Kind: CmdDialLobby, Addr: m.Addr}}
	}
	m.Busy = "Loading scores"
	return []Cmd{{Kind: CmdGetScores, Hall: m.Hall}}
}

// handleHall is the HallOfFame scene's part of Handle.
func (m *Machine) handleHall(ev Event) []Cmd {
	switch ev.Kind {
	case EvConnected:
		if m.Busy != "Connecting" {
			return []Cmd{{Kind: CmdDisconnect}}
		}
		m.connected, m.Busy = true, "Loading scores"
		return []Cmd{{Kind: CmdGetScores, Hall: m.Hall}}
	case EvConnectFailed:
		m.fail(ev.Err)
	case EvHallQuery:
		if !m.connected || m.Busy == "Fetching replay" || m.Busy == "Opening replay" {
			return nil
		}
		m.Hall, m.Busy, m.Error = ev.Hall, "Loading scores", ""
		return []Cmd{{Kind: CmdGetScores, Hall: ev.Hall}}
	case EvScores:
		m.Games = ev.Games
		if m.Busy == "Loading scores" {
			m.Busy = ""
		}
	case EvScoresFailed:
		m.Games = nil
		m.fail(ev.Err)
	case EvWatchGame:
		if m.Busy == "" && m.connected && ev.Code != "" {
			m.Busy, m.Error = "Fetching replay", ""
			return []Cmd{{Kind: CmdFetchReplay, Code: ev.Code}}
		}
	case EvReplayFetched:
		if m.Busy == "Fetching replay" {
			return m.watch(ev.Path)
		}
	case EvFetchFailed:
		m.fail(ev.Err)
	case EvWatchReady:
		m.Scene, m.Busy, m.Error, m.MenuOpen = Watching, "", "", false
	case EvWatchFailed:
		m.Busy, m.Error = "", "Cannot play this replay: "+ev.Err.Error()
	case EvBack:
		m.Busy, m.Error, m.Games = "", "", nil
		if m.hallFrom == Browser && m.connected {
			m.Scene, m.Busy = Browser, "Loading lobbies"
			return []Cmd{{Kind: CmdListLobbies}}
		}
		m.Scene = Title
		if m.connected {
			m.connected = false
			return []Cmd{{Kind: CmdDisconnect}}
		}
	}
	return nil
}

// rejoin dials the lobby server of a lost game's ticket (ev: Addr, Code, Slot, Key); once
// connected it sends REJOIN, then waits for the START push like a room (docs/PROTOCOL.md §5.12).
func (m *Machine) rejoin(ev Event) []Cmd {
	if ev.Code == "" {
		return nil
	}
	if ev.Addr != "" {
		m.Addr = ev.Addr
	}
	m.Scene, m.Busy, m.Error, m.Detail = Connect, "Rejoining "+ev.Code, "", ""
	m.Rejoining, m.Code, m.RejoinSlot, m.rejoinKey, m.Spectator = true, ev.Code, ev.Slot, ev.Key, false
	return []Cmd{{Kind: CmdDialLobby, Addr: m.Addr}}
}
