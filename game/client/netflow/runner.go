// Package netflow runs the client's network side without ebiten: it executes the scene
// machine's commands (game/client/scene) on goroutines against the TCP lobby (package lobby) and
// the UDP game session (package net/session), so that ebiten's Update never blocks, and hands
// every reply back as a Reply on a channel that Update drains. Link abstracts the in-game
// connection (a real session, or a hand-filled LocalWorld for tests and benchmarks).
package netflow

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/net/session"
)

// Reply is the result of a network goroutine, handed to the UI goroutine through a channel.
type Reply struct {
	Ev    scene.Event
	Lobby *lobby.Client // with EvConnected: the authenticated lobby connection
	ID    uuid.UUID     // with EvConnected: the user UUID from AUTHENTICATE
	Link  Link          // with EvSessionReady: the game session
}

// Runner executes scene commands without ever blocking the caller (ebiten's Update): lobby
// requests run one at a time on a worker goroutine, waits and dials on their own goroutines, and
// every reply comes back on events.
type Runner struct {
	ctx    context.Context
	cancel context.CancelFunc
	log    *slog.Logger
	name   string
	netsim string
	events chan Reply
	queue  chan func()
	wg     sync.WaitGroup

	mu    sync.Mutex
	notes []lobby.Message // refused chat lines, explained (Messages)
	start lobby.StartInfo // the latest START/SPECTATE push (Ticket)

	// owned by the UI goroutine
	lobby      *lobby.Client
	id         uuid.UUID
	addr       string
	waitCancel context.CancelFunc
	link       Link
	// resumeCancel stops the tries of CmdResumeLobby (resume.go)
	resumeCancel context.CancelFunc
	// keptGame is the game whose replay CmdKeepReplay kept last (hall.go; under mu).
	keptGame uuid.UUID

	// servers is where the server browser's servers come from (servers.go); pingStop stops
	// the queries under way.
	servers  ServerSource
	pingMu   sync.Mutex
	pingStop context.CancelFunc
	// password is the private server password typed for pwAddr (scene.Cmd.Password; UI
	// goroutine): the later dials of that server (a rejoin, a retry, the hall of fame) send it too
	password, pwAddr string

	// dialSession lets tests replace session.Dial; stage is the stage the game plays.
	dialSession func(ctx context.Context, cfg session.Config, stage *game.Stage) (Link, error)
	// dialRun is dialSession for an arcade run of stages (run.go).
	dialRun func(ctx context.Context, cfg session.Config, run []*game.Stage) (Link, error)
}

// NewRunner starts the lobby worker; name is sent in AUTHENTICATE, netsim in session.Config.
func NewRunner(ctx context.Context, log *slog.Logger, name, netsim string) *Runner {
	ctx, cancel := context.WithCancel(ctx)
	n := &Runner{ctx: ctx, cancel: cancel, log: log, name: name, netsim: netsim,
		events: make(chan Reply, 64), queue: make(chan func(), 64)}
	n.dialSession = func(ctx context.Context, cfg session.Config, stage *game.Stage) (Link, error) {
		if stage != nil {
			cfg.Terrain = &stage.Terrain
		}
		s, err := session.Dial(ctx, cfg)
		if err != nil {
			return nil, err
		}
		return NewSessionLink(s, stage), nil
	}
	n.dialRun = dialRun
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		for {
			select {
			case <-ctx.Done():
				return
			case fn := <-n.queue:
				fn()
			}
		}
	}()
	return n
}

// Events delivers the replies; drain it on the UI goroutine and pass each to Accept.
func (n *Runner) Events() <-chan Reply { return n.events }

// SetName sets the player name used by the next AUTHENTICATE.
func (n *Runner) SetName(name string) { n.name = name }

func (n *Runner) post(ev Reply) {
	select {
	case n.events <- ev:
	case <-n.ctx.Done():
		if ev.Lobby != nil {
			ev.Lobby.Close()
		}
		if ev.Link != nil {
			ev.Link.Close()
		}
	}
}

// watchClosing posts EvServerClosing, its Reason in player words (scene.ClosingWords), when
// lc's server says it closes (the CLOSING push, docs/PROTOCOL.md §2.5.13): the scene then tells
// the player why and does not offer a lobby that is going away.
func (n *Runner) watchClosing(lc *lobby.Client) {
	n.goDo(func() {
		select {
		case <-lc.ClosingNotice():
			cl, _ := lc.Closing()
			n.post(Reply{Ev: scene.Event{Kind: scene.EvServerClosing, Reason: scene.ClosingWords(cl.Why == lobby.ClosingRestart, cl.Left, cl.Text)}})
		case <-lc.Done():
		case <-n.ctx.Done():
		}
	})
}

// watchLobbyEnd calls ended when the lobby pushes END while session l runs: the game's host is
// gone when no GAME_END came (a split server, docs/DEPLOY.md), and the session then ends after
// 1 s of silence saying so (session.HostGoneReason) rather than after 10 s as "server silent".
func (n *Runner) watchLobbyEnd(lc *lobby.Client, l Link, ended func()) {
	ctx, cancel := context.WithCancel(n.ctx)
	n.goDo(func() {
		select {
		case <-l.Done():
		case <-ctx.Done():
		}
		cancel()
	})
	n.goDo(func() {
		defer cancel()
		if _, err := lc.WaitEnd(ctx); err == nil {
			ended()
		}
	})
}

func (n *Runner) goDo(fn func()) {
	n.wg.Add(1)
	go func() { defer n.wg.Done(); fn() }()
}

// lobbyDo queues fn (which gets the lobby client of the moment) on the lobby worker.
func (n *Runner) lobbyDo(fn func(lc *lobby.Client)) {
	lc := n.lobby
	if lc == nil {
		return
	}
	select {
	case n.queue <- func() { fn(lc) }:
	default:
		n.log.Warn("lobby request queue full: request dropped")
	}
}

func (n *Runner) stopWait() {
	if n.waitCancel != nil {
		n.waitCancel()
		n.waitCancel = nil
	}
}

// Accept stores what a reply carries (lobby connection, session) before the scene machine sees
// its event. Call it on the UI goroutine for every Reply.
func (n *Runner) Accept(ne Reply) {
	if ne.Lobby != nil {
		if n.lobby != nil && n.lobby != ne.Lobby {
			old := n.lobby
			n.goDo(func() { old.Close() })
		}
		n.lobby, n.id = ne.Lobby, ne.ID
		n.watchClosing(ne.Lobby)
		if ne.Ev.Kind == scene.EvResumed && n.link != nil {
			// the game plays on: the new connection tells of its end as the lost one did
			if e, ok := n.link.(interface{ EndedByLobby() }); ok {
				n.watchLobbyEnd(ne.Lobby, n.link, e.EndedByLobby)
			}
			n.watchLobbyLost(ne.Lobby, n.link)
		}
	}
	if ne.Link != nil {
		n.link = ne.Link
	}
}

// Members returns the lobby's latest MEMBERS push (code, names in slot order).
func (n *Runner) Members() (string, []string) {
	if n.lobby == nil {
		return "", nil
	}
	return n.lobby.Members()
}

// Stage returns the name of the lobby's stage from its latest STAGE push ("" when unknown), or
// stagefile.Arcade when the lobby plays an arcade run (its RUN push, docs/PROTOCOL.md §2.4.15):
// the name its results and hall-of-fame board go by.
func (n *Runner) Stage() string {
	if n.lobby == nil {
		return ""
	}
	if len(n.lobby.Run()) >= 2 {
		return stagefile.Arcade
	}
	_, st := n.lobby.Stage()
	return st.Name
}

// Difficulty returns the lobby's difficulty level (its latest DIFFICULTY push; Normal without).
func (n *Runner) Difficulty() rules.Difficulty {
	if n.lobby == nil {
		return rules.DifficultyNormal
	}
	return n.lobby.Difficulty()
}

// InfiniteLives reports whether the lobby's games are played with infinite lives (its latest
// LIVES push, docs/PROTOCOL.md §2.5.12): the practice trainer, for the room and the results.
func (n *Runner) InfiniteLives() bool {
	if n.lobby == nil {
		return false
	}
	return n.lobby.InfiniteLives()
}

// Section returns the practice section the lobby's game starts at (its latest SECTION push; 0:
// the stage's start).
func (n *Runner) Section() int {
	if n.lobby == nil {
		return 0
	}
	return n.lobby.Section()
}

// lobbyErr is the error of a lobby request as the scene machine gets it: unchanged, so that
// lobby.Explain can put it in player words.
func lobbyErr(err error) error { return err }

// Chat sends a line of chat to the lobby (CHAT, docs/PROTOCOL.md §2.4.9) without blocking; a
// refusal comes back as a local Message from "" (shown like a server notice).
func (n *Runner) Chat(text string) {
	addr := n.addr
	n.lobbyDo(func(lc *lobby.Client) {
		if err := lc.Chat(text); err != nil {
			msg, _ := lobby.Explain(err, addr)
			n.mu.Lock()
			n.notes = append(n.notes, lobby.Message{Text: msg})
			n.mu.Unlock()
		}
	})
}

// Messages returns the CHAT and BROADCAST pushes received since the last call, and the chat
// lines the server refused (From "" and not Broadcast).
func (n *Runner) Messages() []lobby.Message {
	var out []lobby.Message
	if n.lobby != nil {
		out = n.lobby.Messages()
	}
	n.mu.Lock()
	out = append(out, n.notes...)
	n.notes = nil
	n.mu.Unlock()
	return out
}

// Name is the player name sent in AUTHENTICATE.
func (n *Runner) Name() string { return n.name }

// Exec starts one command (CmdQuit and CmdSaveSettings are the caller's); it never blocks.
func (n *Runner) Exec(c scene.Cmd) {
	switch c.Kind {
	case scene.CmdDialLobby:
		addr, name := c.Addr, n.name
		n.addr = addr
		if c.Password != "" {
			n.password, n.pwAddr = c.Password, addr
		}
		password := ""
		if n.pwAddr == addr {
			password = n.password
		}
		n.goDo(func() {
			lc, id, err := n.dialAuth(n.ctx, addr, name, password)
			if err != nil {
				n.post(Reply{Ev: scene.Event{Kind: scene.EvConnectFailed, Err: err}})
				return
			}
			n.post(Reply{Ev: scene.Event{Kind: scene.EvConnected}, Lobby: lc, ID: id})
		})
	case scene.CmdGetScores, scene.CmdFetchReplay, scene.CmdKeepReplay:
		n.execHall(c)
	case scene.CmdListServers, scene.CmdPingServers:
		n.execServers(c)
	case scene.CmdListLobbies:
		n.lobbyDo(func(lc *lobby.Client) {
			ls, err := lc.Lobbies()
			var ss []lobby.StageInfo
			if err == nil {
				ss, err = lc.Stages()
			}
			if err != nil {
				n.post(Reply{Ev: scene.Event{Kind: scene.EvLobbiesFailed, Err: lobbyErr(err)}})
				return
			}
			out := make([]scene.Lobby, len(ls))
			for i, l := range ls {
				out[i] = scene.Lobby{Code: l.Code, Players: l.Players, Running: l.Running, Stage: l.Stage, Difficulty: l.Difficulty}
			}
			names := make([]string, len(ss))
			for i, st := range ss {
				names[i] = st.Name
			}
			n.post(Reply{Ev: scene.Event{Kind: scene.EvLobbies, Lobbies: out, Stages: withArcade(names)}})
		})
	case scene.CmdJoin:
		code, stage, password := c.Code, c.Stage, c.Password
		n.lobbyDo(func(lc *lobby.Client) {
			var got string
			var err error
			switch {
			case code != "" && password != "": // a private lobby (docs/PROTOCOL.md §2.4.3)
				got, err = lc.JoinPrivate(code, password)
			case code == "":
				got, err = lc.Create(stage)
			default:
				got, err = lc.Join(code)
			}
			if err != nil {
				n.post(Reply{Ev: scene.Event{Kind: scene.EvJoinFailed, Err: lobbyErr(err)}})
				return
			}
			n.post(Reply{Ev: scene.Event{Kind: scene.EvJoined, Code: got}})
		})
	case scene.CmdStart:
		n.lobbyDo(func(lc *lobby.Client) {
			if err := lc.Start(); err != nil {
				n.post(Reply{Ev: scene.Event{Kind: scene.EvStartFailed, Err: lobbyErr(err)}})
			}
		})
	case scene.CmdSetStage:
		stage := c.Stage
		n.lobbyDo(func(lc *lobby.Client) {
			if err := lc.SetStage(stage); err != nil {
				n.post(Reply{Ev: scene.Event{Kind: scene.EvStageFailed, Err: lobbyErr(err)}})
			}
		})
	case scene.CmdSetDifficulty:
		d, err := rules.ParseDifficulty(c.Level)
		if err != nil {
			n.post(Reply{Ev: scene.Event{Kind: scene.EvStageFailed, Err: err}})
			return
		}
		n.lobbyDo(func(lc *lobby.Client) {
			if err := lc.SetDifficulty(d); err != nil {
				n.post(Reply{Ev: scene.Event{Kind: scene.EvStageFailed, Err: lobbyErr(err)}})
			}
		})
	case scene.CmdSetSection:
		section := c.Section
		n.lobbyDo(func(lc *lobby.Client) {
			if err := lc.SetSection(section); err != nil {
				n.post(Reply{Ev: scene.Event{Kind: scene.EvStageFailed, Err: lobbyErr(err)}})
			}
		})
	case scene.CmdSetLives:
		infinite := c.Infinite
		n.lobbyDo(func(lc *lobby.Client) {
			if err := lc.SetLives(infinite); err != nil {
				n.post(Reply{Ev: scene.Event{Kind: scene.EvStageFailed, Err: lobbyErr(err)}})
			}
		})
	case scene.CmdRetry:
		n.lobbyDo(func(lc *lobby.Client) {
			if err := lc.Retry(); err != nil {
				n.post(Reply{Ev: scene.Event{Kind: scene.EvStartFailed, Err: lobbyErr(err)}})
			}
		})
	case scene.CmdWaitStart:
		n.stopWait()
		lc := n.lobby
		if lc == nil {
			return
		}
		ctx, cancel := context.WithCancel(n.ctx)
		n.waitCancel = cancel
		n.goDo(func() {
			info, err := lc.WaitStart(ctx)
			if ctx.Err() != nil {
				return
			}
			if err != nil {
				n.post(Reply{Ev: scene.Event{Kind: scene.EvLobbyLost, Err: err}})
				return
			}
			n.noteStart(info)
			n.post(Reply{Ev: scene.Event{Kind: scene.EvGameStarting, Port: info.Port, Token: info.Token, Key: info.Key,
				Stage: info.Stage.Name, StageHash: info.Stage.Hash, Spectator: info.Spectator}})
		})
	case scene.CmdRejoin:
		n.execRejoin(c)
	case scene.CmdResumeLobby:
		n.execResume(c)
	case scene.CmdLeave:
		n.stopWait()
		n.lobbyDo(func(lc *lobby.Client) {
			if err := lc.Leave(); err != nil {
				n.log.Debug("lobby leave", "err", err)
			}
		})
	case scene.CmdDialSession:
		host, _, err := net.SplitHostPort(c.Addr)
		if err != nil {
			host = c.Addr
		}
		n.mu.Lock()
		if h := n.start.Host; h != "" && n.start.Port == c.Port && n.start.Token == c.Token {
			host = h // the lobby handed the game to another host (docs/PROTOCOL.md §2.5.1)
		}
		n.mu.Unlock()
		cfg := session.Config{Addr: net.JoinHostPort(host, strconv.Itoa(c.Port)), UUID: n.id, Token: c.Token, Key: c.Key, NetSim: n.netsim}
		lc, stageName, stageHash := n.lobby, c.Stage, c.StageHash
		n.goDo(func() {
			ctx, cancel := context.WithTimeout(n.ctx, 10*time.Second)
			defer cancel()
			// The stage first: the embedded one when its hash matches, else fetched from the
			// lobby (GET_STAGE, docs/PROTOCOL.md §2.4.8); a few KB, well within the HERE timeout.
			var stage *game.Stage
			if stageName != "" && lc != nil {
				sf, err := lc.ResolveStage(stageName, stageHash, game.ParseScript)
				if err != nil {
					n.post(Reply{Ev: scene.Event{Kind: scene.EvSessionFailed, Err: fmt.Errorf("stage %s: %w", stageName, err)}})
					return
				}
				stage = game.StageOf(sf)
				n.log.Info("stage resolved", "stage", stageName, "hash", stageHash, "bytes", len(sf.Data))
			}
			var run []*game.Stage
			if lc != nil {
				var rerr error
				if run, rerr = resolveRun(lc); rerr != nil {
					n.post(Reply{Ev: scene.Event{Kind: scene.EvSessionFailed, Err: fmt.Errorf("arcade run: %w", rerr)}})
					return
				}
			}
			if err := gameSocket(ctx, lc, &cfg); err != nil {
				n.post(Reply{Ev: scene.Event{Kind: scene.EvSessionFailed, Err: err}})
				return
			}
			var l Link
			var err error
			if len(run) >= 2 {
				n.log.Info("arcade run resolved", "stages", len(run))
				l, err = n.dialRun(ctx, cfg, run)
			} else {
				l, err = n.dialSession(ctx, cfg, stage)
			}
			if err != nil {
				n.post(Reply{Ev: scene.Event{Kind: scene.EvSessionFailed, Err: err}})
				return
			}
			if w, ok := l.(interface {
				WatchLobby(done <-chan struct{}, lost func() bool)
			}); ok && lc != nil {
				// A killed server resets the lobby connection at once: the session then ends
				// after 1 s of silence instead of 10 (session.Client.LobbyLost).
				w.WatchLobby(lc.Done(), func() bool { return !errors.Is(lc.Err(), lobby.ErrClosed) })
			}
			if e, ok := l.(interface{ EndedByLobby() }); ok && lc != nil {
				n.watchLobbyEnd(lc, l, e.EndedByLobby)
			}
			if lc != nil {
				n.watchLobbyLost(lc, l)
			}
			n.post(Reply{Ev: scene.Event{Kind: scene.EvSessionReady}, Link: l})
		})
	case scene.CmdCloseSession:
		n.stopResume()
		if l := n.link; l != nil {
			n.link = nil
			n.goDo(func() { l.Close() })
		}
	case scene.CmdDisconnect:
		n.stopWait()
		n.stopResume()
		if lc := n.lobby; lc != nil {
			n.lobby = nil
			n.goDo(func() { lc.Close() })
		}
	}
}

// Close leaves the lobby (at most 500 ms), closes the session and the lobby connection and
// waits for every goroutine.
func (n *Runner) Close() {
	n.stopWait()
	n.stopResume()
	if n.link != nil {
		n.link.Close()
		n.link = nil
	}
	if n.lobby != nil {
		lc := n.lobby
		n.lobby = nil
		done := make(chan struct{})
		go func() { lc.Leave(); close(done) }()
		select {
		case <-done:
		case <-time.After(500 * time.Millisecond):
		}
		lc.Close()
	}
	n.cancel()
	n.wg.Wait()
	// drain replies that raced with the cancel
	for {
		select {
		case ne := <-n.events:
			if ne.Lobby != nil {
				ne.Lobby.Close()
			}
			if ne.Link != nil {
				ne.Link.Close()
			}
		default:
			return
		}
	}
}
