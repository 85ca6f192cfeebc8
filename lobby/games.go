package lobby

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game"
)

// MaxPlayers is the largest number of members of one lobby (decision, docs/PROTOCOL.md
// §2.4.3): the game's player count, declared once in game.
const MaxPlayers = game.MaxPlayers

// Member is one player of a started lobby as handed to Starter.StartGame: the user UUID from
// AUTHENTICATE, the player name, the slot 0..3 (join order), the non-zero UDP session token
// and the 128-bit session key (crypto/rand) sent to that player in its START push
// (docs/PROTOCOL.md §2.5.1; the key answers CHALLENGE, §5.9).
type Member struct {
	UUID  uuid.UUID
	Name  string
	Slot  int
	Token uint32
	Key   [16]byte
}

// Game is a running game instance as seen by the lobby. Port is the UDP port players send
// HERE to; Done is closed when the game is over; Result is then 0 defeat, 1 victory, 2 aborted
// (the END push); Drop removes a player who left the lobby mid-game: left is true when the
// player chose to (LEAVE, or JOIN_LOBBY elsewhere), false when its connection closed. The Core
// calls Port and Drop from its runtime's goroutine, under the runtime's lock: they must not
// call back into the lobby.
type Game interface {
	Port() int
	Done() <-chan struct{}
	Result() uint8
	Drop(id uuid.UUID, left bool)
}

// HostedGame is implemented by a Game that runs on another machine than the lobby (a game host
// of the fleet, net/fleet): Host is where its players send UDP, a DNS name or an IP address,
// sent as the fourth field of START and SPECTATE (docs/PROTOCOL.md §2.5.1). A Game without it
// (net/instance, all in one process) is on the lobby's own host: the pushes carry three fields,
// as they always have.
type HostedGame interface {
	Host() string
}

// MaxHostLen bounds the host field of START and SPECTATE (a DNS name's longest form).
const MaxHostLen = 253

// ValidHost reports whether s is a valid host field of START and SPECTATE (docs/PROTOCOL.md
// §2.5.1): an IPv4 or IPv6 address literal (no brackets, no zone), or a DNS name of at most 253
// bytes whose labels are 1..63 letters, digits and inner hyphens, the last not all digits (so
// that a number is never taken for a name).
func ValidHost(s string) bool {
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Zone() == ""
	}
	if len(s) == 0 || len(s) > MaxHostLen {
		return false
	}
	labels := strings.Split(strings.TrimSuffix(s, "."), ".")
	for _, l := range labels {
		if len(l) == 0 || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	last := labels[len(labels)-1]
	return strings.Trim(last, "0123456789") != ""
}

// addrArgs are the fields of a START or SPECTATE push: port, token, key and, for a game on
// another host, that host.
func addrArgs(g Game, port string, token uint32, key [16]byte) []string {
	args := []string{port, strconv.FormatUint(uint64(token), 10), hex.EncodeToString(key[:])}
	if h, ok := g.(HostedGame); ok && ValidHost(h.Host()) {
		args = append(args, h.Host())
	}
	return args
}

// GameSpec is everything a lobby decides about the game it starts: what the game runtime needs
// to run it. A new lobby setting is a field here.
type GameSpec struct {
	// ID is the game's id (random, crypto/rand): the id of its record and replay in the hall of
	// fame, and of the GAME_ID push at its end (docs/PROTOCOL.md §2.5.9).
	ID         uuid.UUID
	Code       string          // the lobby's code (logs)
	Stage      string          // the lobby's stage, one of ServerConfig.Stages
	Difficulty game.Difficulty // the level the owner chose (SET_DIFFICULTY)
	// Run names the stages of an arcade run, in order (Stage is the first); nil: Stage alone.
	Run []string
	// Section is the practice section the game starts at (game.Config.Section; 0: the start).
	Section int
	Members []Member // the players in slot order
	// Files are the stage files of Stage and of each stage of Run, as the lobby offers them
	// (name, bytes, hash): what the game plays. A game host gets them from its lobby with the
	// hand-over, checked against their hashes (net/fleet, docs/CONTROL.md §4.2); a runtime
	// given none looks the names up in its own stages.
	Files []*game.StageFile
}

// File returns the stage file of Files called name, or nil.
func (s GameSpec) File(name string) *game.StageFile {
	for _, f := range s.Files {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Starter is the game runtime a lobby hands its game to at START (net/instance.Manager). It is
// called from the Core, under the runtime's lock: it must return promptly and not call back
// into the lobby. A Starter that waits on the network (net/fleet.Remote: a game host's reply)
// is given with ServerConfig.AsyncStart instead: the runtime then calls it on a goroutine of
// its own for each StartRequest the Core leaves (starting.go), never under its lock.
type Starter interface {
	StartGame(spec GameSpec) (Game, error)
}

// ownWaitingLobby returns the lobby cs owns when it is waiting, the lobby an owner's command
// (START, SET_STAGE, SET_DIFFICULTY) acts on; otherwise it answers the refusal ("not in a
// lobby", "lobby <code> <running>", "only the lobby owner (<name>) may <action>") and returns
// nil.
func (c *Core) ownWaitingLobby(cs *connState, running, action string) *lobbyState {
	l := cs.lobby
	switch {
	case l == nil:
		c.reply(cs, CodeWrongRequest, "not in a lobby")
	case l.starting != nil:
		c.reply(cs, CodeWrongRequest, "lobby "+l.code+" is starting a game")
	case l.running():
		c.reply(cs, CodeWrongRequest, "lobby "+l.code+" "+running)
	case len(l.members) == 0 || l.members[0] != cs:
		c.reply(cs, CodeWrongRequest, "only the lobby owner ("+l.ownerName()+") may "+action)
	default:
		return l
	}
	return nil
}

// start answers START <uuid>; (docs/PROTOCOL.md §2.4.4): the owner's lobby hands its game to
// the Starter; on success 200 OK to the owner, then START (port, token, key) to each player
// and SPECTATE to each spectator. With ServerConfig.AsyncStart the Core does not call the
// Starter: it leaves the start to its runtime (Out.Start) and the lobby is starting until
// Started (starting.go).
func (c *Core) start(now time.Duration, cs *connState, cmd Command) {
	if len(cmd.Args) > 0 {
		c.reply(cs, CodeWrongRequest, "START takes no arguments")
		return
	}
	l := c.ownWaitingLobby(cs, "is already running a game", "start the game")
	switch {
	case l == nil:
		return
	case c.cfg.Starter == nil:
		c.reply(cs, CodeWrongRequest, "no game server available")
		return
	}
	members := make([]Member, len(l.members))
	for i, m := range l.members {
		t, err := randToken()
		for err == nil && slicesContainsToken(members[:i], t) {
			t, err = randToken()
		}
		if err != nil {
			c.reply(cs, CodeWrongRequest, "cannot generate session tokens")
			return
		}
		members[i] = Member{UUID: m.user, Name: m.name, Slot: i, Token: t}
		if _, err := rand.Read(members[i].Key[:]); err != nil {
			c.reply(cs, CodeWrongRequest, "cannot generate session keys")
			return
		}
	}
	gameID, err := uuid.NewRandom()
	if err != nil {
		c.reply(cs, CodeWrongRequest, "cannot generate a game id")
		return
	}
	spec := GameSpec{ID: gameID, Code: l.code, Stage: l.stage.Name, Difficulty: l.difficulty, Run: l.runNames(), Section: l.section,
		Members: members, Files: l.stageFiles()}
	ps := &pendingStart{by: cs, spec: spec, players: append([]*connState(nil), l.members...)}
	if c.cfg.AsyncStart {
		c.leaveStart(now, l, ps)
		return
	}
	handed := spec
	handed.Members = append([]Member(nil), members...) // the Starter's copy
	g, err := c.cfg.Starter.StartGame(handed)
	c.begin(l, ps, g, err)
}

// begin makes l run game g, the result of start ps (err: the start failed): 200 OK to the
// owner who sent START (when its connection is still open), then START to each player and
// SPECTATE to each spectator; or, on failure, 500 with the reason to that owner.
func (c *Core) begin(l *lobbyState, ps *pendingStart, g Game, err error) {
	if err == nil && g == nil {
		err = errors.New("starter returned no game")
	}
	cs := ps.by
	if err != nil {
		c.log.Warn("lobby start failed", "code", l.code, "err", err)
		if cs != nil {
			c.reply(cs, CodeWrongRequest, "cannot start game: "+err.Error())
		}
		return
	}
	port := g.Port()
	l.game, l.gameID, l.practice = g, ps.spec.ID, ps.spec.Practice()
	l.slots = ps.spec.Members
	c.out = append(c.out, Out{Game: g})
	if cs != nil {
		c.reply(cs, CodeOK, "OK")
	}
	ports := strconv.Itoa(port)
	for i, m := range ps.players {
		if m.lobby == l { // players who left while the lobby was starting were dropped (Started)
			c.push(m, PushStart, addrArgs(g, ports, ps.spec.Members[i].Token, ps.spec.Members[i].Key)...)
		}
	}
	c.startSpectators(l, g, ports)
	user := ""
	if cs != nil {
		user = cs.user.String()
	}
	c.log.Info("lobby started", "code", l.code, "game", ps.spec.ID.String(), "stage", l.listedStage(), "difficulty", l.difficulty.String(), "players", len(l.members), "port", port, "user", user)
}

// GameEnded tells the Core that game g (handed to the runtime in an Out) is over with result
// (0 defeat, 1 victory, 2 aborted): its lobby waits again, its members and spectators get END
// and their idle timers restart, and spectators take the free places.
func (c *Core) GameEnded(now time.Duration, g Game, result uint8) {
	var l *lobbyState
	for _, o := range c.lobbies {
		if o.game == g {
			l = o
		}
	}
	if l == nil {
		return // every player left for good: the lobby is gone
	}
	l.game = nil
	l.slots = nil
	l.lost = false
	if len(l.members) == 0 && len(l.spectators) == 0 {
		delete(c.lobbies, l.code) // every player was lost and none rejoined
		c.log.Info("lobby ended", "code", l.code, "result", result, "players", 0, "removed", true)
		return
	}
	c.log.Info("lobby ended", "code", l.code, "result", result, "players", len(l.members), "removed", false)
	r := strconv.Itoa(int(result))
	for _, m := range append(append([]*connState(nil), l.members...), l.spectators...) {
		if c.cfg.IdleTimeout > 0 {
			c.setDeadline(m, now, c.cfg.IdleTimeout) // suspended during the game: restarted now
		}
		if c.cfg.Hall != nil && !l.practice {
			c.push(m, PushGameID, l.gameID.String()) // the game is kept: its record and replay
		}
		c.push(m, PushEnd, r)
	}
	if len(l.spectators) > 0 && len(l.members) < MaxPlayers && !c.stopping {
		c.promote(l) // spectators take the free places, in join order
		c.pushMembers(l)
	}
}

// randToken returns a uniformly random non-zero u32 from crypto/rand.
func randToken() (uint32, error) {
	var b [4]byte
	for {
		if _, err := rand.Read(b[:]); err != nil {
			return 0, err
		}
		if t := binary.LittleEndian.Uint32(b[:]); t != 0 {
			return t, nil
		}
	}
}

func slicesContainsToken(ms []Member, t uint32) bool {
	for _, m := range ms {
		if m.Token == t {
			return true
		}
	}
	return false
}
