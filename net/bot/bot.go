// Package bot runs headless players: each bot goes through the TCP lobby (lobby.Client), plays
// the game over UDP (net/session) with the built-in autopilot (game.Autopilot) and reports one
// Result. cmd/rtype-bot and the end-to-end tests use it.
package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/handoff"
	"github.com/rtype/rtype/net/session"
	"github.com/rtype/rtype/net/transport"
)

// Config configures Run.
type Config struct {
	Server string // TCP lobby address host:port
	Lobby  string // join this lobby code; "" = the first bot creates one
	Stage  string // stage of the lobby the first bot creates ("" = the server's default; stagefile.Arcade: the server's arcade run)
	// Difficulty is the level the first bot sets on the lobby it creates (nil: leave it).
	Difficulty *rules.Difficulty
	// Section, when not 0, is the practice section the first bot sets on the lobby it creates
	// (a solo lobby: Players 1; docs/PROTOCOL.md §2.4.16).
	Section int
	Players int           // number of bots (1..4)
	Start   bool          // the first bot sends START once all bots joined (implied when Lobby is "")
	Timeout time.Duration // whole run; 0 = no limit
	Name    string        // name prefix ("bot" → bot1, bot2, ...)
	NetSim  string        // link simulator spec for each bot's UDP socket (see net/linksim)
	// Chat, when set, is said by each bot in the lobby once every bot has joined (before START),
	// and again with " (in game)" appended one second into the game (docs/PROTOCOL.md §2.4.9).
	Chat   string
	Logger *slog.Logger
	// Socket, when set, gives bot i its UDP socket (tests wrap one in a linksim.Link).
	Socket func(i int) (transport.Socket, error)
	// OnSession, when set, is called with each bot's session once it is in the game (tests).
	OnSession func(i int, s *session.Session)
	// Crash, when set, is asked every tick of bot i's game; when it returns true the bot
	// crashes: its lobby connection and game socket close without LEAVE or BYE, and its Result
	// is "crashed" with Rejoin set (tests and -crash-after: the server keeps the slot 60 s).
	Crash func(i int, v *session.View) bool
	// OnCrash, when set, is called with what a crashed bot needs to rejoin, as it crashes.
	OnCrash func(i int, rj RejoinInfo)
	// Rejoin, when set, makes the bots rejoin these slots instead of joining a lobby (one bot
	// per entry, Players ignored; docs/PROTOCOL.md §2.4.10).
	Rejoin []RejoinInfo
	// Spectate: the bots join Lobby (running a game) as spectators and watch it to its end.
	Spectate bool
}

// Result is one bot's outcome: the JSON line cmd/rtype-bot prints.
type Result struct {
	Bot              string   `json:"bot"`
	Result           string   `json:"result"` // victory, defeat, aborted, timeout, disconnected, error
	Error            string   `json:"error,omitempty"`
	Lobby            string   `json:"lobby"`
	Stage            string   `json:"stage"`      // name of the stage played (the lobby's STAGE push)
	Difficulty       string   `json:"difficulty"` // the lobby's level when the game started
	StageHash        string   `json:"stage_hash"` // its hash (docs/PROTOCOL.md §2.4.6)
	Slot             int      `json:"slot"`
	Score            uint32   `json:"score"`
	Ticks            uint32   `json:"ticks"`
	DatagramsIn      uint64   `json:"datagrams_in"`
	DatagramsOut     uint64   `json:"datagrams_out"`
	BytesIn          uint64   `json:"bytes_in"`
	BytesOut         uint64   `json:"bytes_out"`
	RTTMillis        float64  `json:"rtt_ms"`
	JitterMillis     float64  `json:"jitter_ms"`
	LossPercent      float64  `json:"loss_pct"`
	SnapshotsPerSec  float64  `json:"snapshots_per_s"`
	BytesInPerSec    float64  `json:"bytes_in_per_s"`
	BytesOutPerSec   float64  `json:"bytes_out_per_s"`
	InterpDelayMs    float64  `json:"interp_delay_ms"`
	Corrections      uint64   `json:"corrections"`
	CorrectionPixels float64  `json:"correction_px"`
	Deaths           int      `json:"deaths"`
	Chat             []string `json:"chat,omitempty"` // CHAT/BROADCAST pushes received: "<from>: <text>" (from "server": a broadcast)
	Events           []string `json:"-"`
	// Rejoin is what a crashed bot needs to rejoin ("crashed" results); Spectator: the bot
	// watched without a ship. Kills, Shots, Hits, BeamHits: the bot's slot in RESULTS.
	Rejoin    *RejoinInfo `json:"rejoin,omitempty"`
	Spectator bool        `json:"spectator,omitempty"`
	Kills     uint16      `json:"kills"`
	Shots     uint32      `json:"shots"`
	Hits      uint32      `json:"hits"`
	BeamHits  uint16      `json:"beam_hits"`
	// Script is the stage played, resolved before the game (embedded or fetched with GET_STAGE):
	// the autopilot's map of the terrain.
	Script *game.Stage `json:"-"`
	// Run names the stages of an arcade run (the lobby's RUN push), Reached how many of them the
	// game got to (the stage singleton's Kind variant, docs/PROTOCOL.md §4.1) and Tallies the
	// stage-clear tallies seen; all zero for a one-stage game.
	Run     []string `json:"run,omitempty"`
	Reached int      `json:"stages_reached,omitempty"`
	Tallies int      `json:"tallies,omitempty"`
	// Relobbied: the bot's lobby connection was lost during its game and the bot connected
	// and authenticated again before the game ended (a restarted lobby).
	Relobbied bool `json:"relobbied,omitempty"`
	// Resumed: once back in the lobby, the bot took its slot's membership back with RESUME
	// (docs/PROTOCOL.md §2.4.20); ResumedGameID is the GAME_ID the lobby then pushed with the
	// game's END on that connection (the game as the hall of fame keeps it; "" when no END
	// came there within ResumedEndWait).
	Resumed       bool   `json:"resumed,omitempty"`
	ResumedGameID string `json:"resumed_game_id,omitempty"`
}

// Ended reports whether the game ended with GAME_END (victory, defeat or aborted).
func (r Result) Ended() bool {
	return r.Result == "victory" || r.Result == "defeat" || r.Result == "aborted"
}

// Run plays cfg.Players bots through one lobby to the end of a game and returns their results
// (in bot order). It writes one JSON line per bot to out when out is not nil.
func Run(ctx context.Context, cfg Config, out io.Writer) ([]Result, error) {
	if len(cfg.Rejoin) > 0 {
		cfg.Players = len(cfg.Rejoin)
	}
	if cfg.Spectate && (cfg.Lobby == "" || cfg.Start) {
		return nil, errors.New("bot: spectators join a running lobby (-lobby CODE) and do not start it")
	}
	if cfg.Players < 1 || (cfg.Players > rules.MaxPlayers && !cfg.Spectate) || cfg.Players > handoff.MaxSpectators {
		return nil, fmt.Errorf("bot: -players %d (want 1..%d)", cfg.Players, rules.MaxPlayers)
	}
	if cfg.Name == "" {
		cfg.Name = "bot"
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.Timeout)
		defer cancel()
	}
	results := make([]Result, cfg.Players)
	code := cfg.Lobby
	start := (cfg.Start || cfg.Lobby == "") && len(cfg.Rejoin) == 0
	clients := make([]*lobby.Client, cfg.Players)
	uids := make([]uuid.UUID, cfg.Players)
	defer func() {
		for _, c := range clients {
			if c != nil {
				c.Close()
			}
		}
	}()
	// Lobby: the first bot creates (or joins) the lobby, the others join its code.
	for i := range clients {
		name := cfg.Name + strconv.Itoa(i+1)
		results[i] = Result{Bot: name, Result: "error", Slot: -1}
		c, err := lobby.Dial(ctx, cfg.Server)
		if err != nil {
			return results, fmt.Errorf("bot %s: %w", name, err)
		}
		clients[i] = c
		if uids[i], err = c.Authenticate(name); err != nil {
			return results, fmt.Errorf("bot %s: authenticate: %w", name, err)
		}
		var got string
		if len(cfg.Rejoin) > 0 {
			rj := cfg.Rejoin[i]
			if err = c.Rejoin(rj.Code, rj.Slot, rj.Key); err != nil {
				return results, fmt.Errorf("bot %s: rejoin %s slot %d: %w", name, rj.Code, rj.Slot, err)
			}
			got = strings.ToUpper(rj.Code)
		} else if code == "" {
			got, err = c.Create(cfg.Stage)
			if err == nil && cfg.Difficulty != nil {
				err = c.SetDifficulty(*cfg.Difficulty)
			}
			if err == nil && cfg.Section != 0 {
				err = c.SetSection(cfg.Section)
			}
		} else {
			got, err = c.Join(code)
		}
		if err != nil {
			return results, fmt.Errorf("bot %s: join lobby %q: %w", name, code, err)
		}
		code = got
		results[i].Lobby = code
	}
	cfg.Logger.Info("bots in lobby", "lobby", code, "players", cfg.Players)
	if cfg.Chat != "" {
		for i, c := range clients {
			if err := c.Chat(cfg.Chat); err != nil {
				return results, fmt.Errorf("bot %s: chat: %w", results[i].Bot, err)
			}
		}
	}
	if start {
		if err := clients[0].Start(); err != nil {
			return results, fmt.Errorf("bot %s: start: %w", results[0].Bot, err)
		}
	}
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			results[i] = play(ctx, cfg, i, clients[i], uids[i], results[i])
		}(i)
	}
	wg.Wait()
	if out != nil {
		enc := json.NewEncoder(out)
		for _, r := range results {
			_ = enc.Encode(r)
		}
	}
	for _, r := range results {
		if !r.Ended() {
			if r.Error != "" {
				return results, fmt.Errorf("bot %s: %s: %s", r.Bot, r.Result, r.Error)
			}
			return results, fmt.Errorf("bot %s: %s", r.Bot, r.Result)
		}
	}
	return results, nil
}

// Relobby bounds the backoff of a bot whose lobby connection was lost mid-game: it dials the
// lobby again after RelobbyFirst, then twice that each time up to RelobbyMax, until its game
// ends (the game goes on on its host meanwhile: a restarted lobby, docs/CONTROL.md §4.3).
const (
	RelobbyFirst = 100 * time.Millisecond
	RelobbyMax   = 2 * time.Second
)

// ResumedEndWait bounds the wait, after the game ended for a bot that RESUMEd, for the END push
// on its new lobby connection (Result.ResumedGameID).
const ResumedEndWait = 10 * time.Second

// seat is a bot's slot of the game it plays, once its WELCOME came: what RESUME needs.
type seat struct {
	mu   sync.Mutex
	ok   bool
	code string
	slot int
	key  [16]byte
}

func (s *seat) set(code string, slot int, key [16]byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ok, s.code, s.slot, s.key = true, code, slot, key
}

func (s *seat) get() (code string, slot int, key [16]byte, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.code, s.slot, s.key, s.ok
}

// play runs one bot from the START push to the end of the game; a lobby connection lost
// while it plays is dialled again and authenticated under the same name (Result.Relobbied),
// and the bot takes its slot's membership back (RESUME, Result.Resumed): the game's END then
// reaches it there.
func play(ctx context.Context, cfg Config, i int, lc *lobby.Client, uid uuid.UUID, res Result) Result {
	rctx, stop := context.WithCancel(ctx)
	type back struct {
		c       *lobby.Client
		resumed bool
	}
	backCh := make(chan back, 1)
	st := &seat{}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-lc.Done():
		case <-rctx.Done():
			return
		}
		if errors.Is(lc.Err(), lobby.ErrClosed) { // closed by the bot itself
			return
		}
		c := relobby(rctx, cfg, res.Bot)
		if c == nil {
			return
		}
		b := back{c: c}
		if code, slot, key, ok := st.get(); ok {
			b.resumed = resume(rctx, cfg, c, res.Bot, code, slot, key)
		}
		backCh <- b
	}()
	res = playGame(ctx, cfg, i, lc, uid, res, st)
	stop()
	wg.Wait()
	select {
	case b := <-backCh:
		res.Relobbied, res.Resumed = true, b.resumed
		if b.resumed && res.Ended() {
			wctx, cancel := context.WithTimeout(ctx, ResumedEndWait)
			if _, err := b.c.WaitEnd(wctx); err == nil {
				if id := b.c.LastGameID(); id != uuid.Nil {
					res.ResumedGameID = id.String()
				}
			}
			cancel()
		}
		b.c.Close()
	default:
	}
	return res
}

// resume sends RESUME on c for the bot's slot; a lobby that restarted a moment ago may not know
// the game yet (its host hands it back within seconds: "no lobby with code"), so that refusal
// is retried with relobby's backoff until ctx ends (the game is over).
func resume(ctx context.Context, cfg Config, c *lobby.Client, name, code string, slot int, key [16]byte) bool {
	wait := RelobbyFirst
	for {
		err := c.Resume(code, slot, key)
		if err == nil {
			cfg.Logger.Info("bot resumed its lobby", "bot", name, "code", code, "slot", slot)
			return true
		}
		if !lobby.IsNoLobby(err) {
			cfg.Logger.Warn("bot could not resume its lobby", "bot", name, "code", code, "slot", slot, "err", err)
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(wait):
		}
		wait = min(2*wait, RelobbyMax)
	}
}

// relobby dials cfg.Server and authenticates as name, with a backoff, until it succeeds or
// ctx ends (nil).
func relobby(ctx context.Context, cfg Config, name string) *lobby.Client {
	wait := RelobbyFirst
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		wait = min(2*wait, RelobbyMax)
		c, err := lobby.Dial(ctx, cfg.Server)
		if err != nil {
			continue
		}
		unwatch := context.AfterFunc(ctx, func() { c.Close() }) // the game ended: give up
		_, err = c.Authenticate(name)
		if !unwatch() || err != nil {
			c.Close()
			continue
		}
		cfg.Logger.Info("bot back in the lobby after losing its connection", "bot", name)
		return c
	}
}

// playGame is play without the lobby's reconnection.
func playGame(ctx context.Context, cfg Config, i int, lc *lobby.Client, uid uuid.UUID, res Result, seated *seat) Result {
	fail := func(kind string, err error) Result {
		res.Result = kind
		if err != nil {
			res.Error = err.Error()
		}
		return res
	}
	st, err := lc.WaitStart(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return fail(stopped(ctx), err)
		}
		return fail("error", err)
	}
	res.Stage, res.StageHash = st.Stage.Name, st.Stage.Hash
	res.Difficulty = lc.Difficulty().String()
	if st.Stage.Name == "" {
		return fail("error", errors.New("no STAGE push before START: cannot tell which stage the game plays"))
	}
	sf, err := lc.ResolveStage(st.Stage.Name, st.Stage.Hash, game.ParseScript)
	if err != nil {
		return fail("error", fmt.Errorf("stage %s: %w", st.Stage.Name, err))
	}
	res.Script = game.StageOf(sf)
	terrain := &res.Script.Terrain // the autopilot steers through it
	var run []*game.Terrain        // an arcade run: each stage's (docs/PROTOCOL.md §2.4.15)
	for _, rs := range lc.Run() {
		f, err := lc.ResolveStage(rs.Name, rs.Hash, game.ParseScript)
		if err != nil {
			return fail("error", fmt.Errorf("arcade run stage %s: %w", rs.Name, err))
		}
		run = append(run, &game.StageOf(f).Terrain)
		res.Run = append(res.Run, rs.Name)
	}
	host, _, _ := net.SplitHostPort(cfg.Server)
	if host == "" {
		host = "127.0.0.1"
	}
	if st.Host != "" {
		host = st.Host // the lobby handed the game to another host (docs/PROTOCOL.md §2.5.1)
	}
	scfg := session.Config{Addr: net.JoinHostPort(host, strconv.Itoa(st.Port)), UUID: uid, Token: st.Token, Key: st.Key, NetSim: cfg.NetSim, Terrain: terrain, Run: run}
	if scfg.NetSim != "" && !strings.Contains(scfg.NetSim, "seed=") {
		scfg.NetSim += ",seed=" + strconv.Itoa(i+1) // each bot its own loss pattern
	}
	if cfg.Socket != nil {
		if scfg.Socket, err = cfg.Socket(i); err != nil {
			return fail("error", err)
		}
	}
	res.Spectator = st.Spectator
	s, err := session.Dial(ctx, scfg)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			return fail(stopped(ctx), err)
		}
		return fail("disconnected", err)
	}
	defer func() { s.Close(); s.Wait() }()
	// A killed server resets the lobby connection at once: the session then ends after 1 s of
	// silence instead of 10 (session.Client.LobbyLost).
	s.WatchLobby(lc.Done(), func() bool { return !errors.Is(lc.Err(), lobby.ErrClosed) })
	// END from the lobby while the game runs: its host stopped answering (a split server,
	// docs/DEPLOY.md) — the session then ends after 1 s of silence, as when the lobby is lost.
	lobbyEnd := make(chan uint8, 1)
	endCtx, endStop := context.WithCancel(ctx)
	var endWG sync.WaitGroup
	endWG.Add(1)
	go func() {
		defer endWG.Done()
		if r, err := lc.WaitEnd(endCtx); err == nil {
			lobbyEnd <- r
		}
	}()
	defer func() { endStop(); endWG.Wait() }()
	lobbyEnded := false
	if cfg.OnSession != nil {
		cfg.OnSession(i, s)
	}
	tick := time.NewTicker(game.TickPeriod)
	defer tick.Stop()
	events := s.Events()
	res.Result = "disconnected"
	chatted := cfg.Chat == ""
	inTally := false
	var chatWG sync.WaitGroup
	defer chatWG.Wait()
	finish := func(s *session.Session, res Result) Result {
		chatWG.Wait()
		msgs := lc.Messages()
		if cfg.Chat != "" {
			// Every bot says two lines: wait a little for the others' (they may still be playing).
			wctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			for len(msgs) < 2*cfg.Players {
				m, err := lc.WaitMessage(wctx)
				if err != nil {
					break
				}
				msgs = append(msgs, m)
			}
			cancel()
		}
		for _, m := range msgs {
			from := m.From
			if m.Broadcast {
				from = "server"
			}
			res.Chat = append(res.Chat, from+": "+m.Text)
		}
		return finish(s, res)
	}
	for {
		select {
		case <-ctx.Done():
			res.Result = stopped(ctx)
			return finish(s, res)
		case ev, ok := <-events:
			if !ok {
				return finish(s, res)
			}
			res.Events = append(res.Events, ev.String())
			switch ev.Kind {
			case session.EventWelcome:
				res.Slot = int(ev.Slot)
				if ev.Spectator {
					res.Slot = -1
				} else {
					seated.set(st.Code, res.Slot, st.Key)
				}
			case session.EventResults:
				for _, e := range ev.Results.Entries[:ev.Results.Count] {
					if int(e.Slot) == res.Slot {
						res.Kills, res.Shots, res.Hits, res.BeamHits = e.Kills, e.Shots, e.Hits, e.BeamHits
					}
				}
			case session.EventDeath:
				if int(ev.Slot) == res.Slot {
					res.Deaths++
				}
			case session.EventGameEnd:
				res.Result = ev.Result.String()
			case session.EventDisconnected:
				res.Result, res.Error = "disconnected", ev.Reason
				if lobbyEnded {
					res.Result = "aborted" // the lobby's END: the host is gone (ev.Reason says so)
				}
			}
		case <-lobbyEnd:
			if res.Result == "disconnected" { // no GAME_END yet
				lobbyEnded = true
				s.EndedByLobby()
			}
		case <-tick.C:
			crash := false
			s.View(func(v *session.View) {
				crash = cfg.Crash != nil && res.Slot >= 0 && cfg.Crash(i, v)
				idx, tally, tr := v.Stage()
				if run != nil {
					res.Reached = max(res.Reached, idx+1)
					if tally && !inTally {
						res.Tallies++
					}
					inTally = tally
				}
				if v.Self == ecs.Nil {
					s.SetInput(0)
					return
				}
				s.SetInput(game.Autopilot(v.World, v.C, tr, v.Self, v.Tick).Buttons)
				if !chatted && v.Tick >= game.TickRate {
					chatted = true
					chatWG.Add(1)
					go func() { // not on the tick loop: the request waits for its response
						defer chatWG.Done()
						if err := lc.Chat(cfg.Chat + " (in game)"); err != nil {
							cfg.Logger.Warn("bot chat in game failed", "bot", res.Bot, "err", err)
						}
					}()
				}
			})
			if crash {
				res = finish(s, res)
				res.Result, res.Rejoin = "crashed", &RejoinInfo{Code: st.Code, Slot: res.Slot, Key: st.Key}
				lc.Close()  // the lobby sees the connection close: the slot is kept for a rejoin
				s.Abandon() // no BYE
				if cfg.OnCrash != nil {
					cfg.OnCrash(i, *res.Rejoin)
				}
				return res
			}
		}
	}
}

// stopped says why ctx ended: "timeout" (the -timeout deadline) or "interrupted" (SIGINT/SIGTERM).
func stopped(ctx context.Context) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return "timeout"
	}
	return "interrupted"
}

func finish(s *session.Session, res Result) Result {
	st := s.Stats()
	s.View(func(v *session.View) {
		if p := v.C.Player.Get(v.Self); p != nil {
			res.Score = p.Score
		} else if v.Slot >= 0 {
			// the ship is gone (out of lives): find the slot's Player component
			v.World.Each(func(e ecs.Entity) {
				if p := v.C.Player.Get(e); p != nil && int(p.Slot) == v.Slot {
					res.Score = p.Score
				}
			})
		}
	})
	res.Ticks = st.ServerTick
	res.DatagramsIn, res.DatagramsOut = st.DatagramsIn, st.DatagramsOut
	res.BytesIn, res.BytesOut = st.BytesIn, st.BytesOut
	res.RTTMillis, res.JitterMillis, res.LossPercent = st.RTTMillis, st.JitterMillis, st.LossPercent
	res.SnapshotsPerSec, res.BytesInPerSec, res.BytesOutPerSec = st.SnapshotsPerSec, st.BytesInPerSec, st.BytesOutPerSec
	res.InterpDelayMs, res.Corrections, res.CorrectionPixels = st.InterpDelayMs, st.Corrections, st.CorrectionPixels
	return res
}
