// Package handoff is what the lobby hands a game runtime at START and asks of the game after:
// the GameSpec with its Members, the Starter that starts it (net/instance.Manager in the lobby's
// process, net/fleet.Remote on the hosts of a fleet), the Game it returns, and the interfaces a
// Game may add (HostedGame, Rejoiner, Spectatable, SpectatorReporter). A leaf package, so that
// the game runtimes and their pure cores (net/instance.Game) implement it without linking the
// lobby server, and the lobby starts games without knowing the runtimes. SourceNetwork is the
// one rule of what counts as one client address for the limits of both sides.
package handoff

import (
	"github.com/google/uuid"

	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/game/stagefile"
)

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
// player chose to (LEAVE, or JOIN_LOBBY elsewhere), false when its connection closed. The
// lobby (lobbyserver.Core) calls Port and Drop from its runtime's goroutine, under the runtime's lock: they must not
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

// GameSpec is everything a lobby decides about the game it starts: what the game runtime needs
// to run it. A new lobby setting is a field here.
type GameSpec struct {
	// ID is the game's id (random, crypto/rand): the id of its record and replay in the hall of
	// fame, and of the GAME_ID push at its end (docs/PROTOCOL.md §2.5.9).
	ID         uuid.UUID
	Code       string           // the lobby's code (logs)
	Stage      string           // the lobby's stage, one of lobby.ServerConfig.Stages
	Difficulty rules.Difficulty // the level the owner chose (SET_DIFFICULTY)
	// Run names the stages of an arcade run, in order (Stage is the first); nil: Stage alone.
	Run []string
	// Section is the practice section the game starts at (game.Config.Section; 0: the start).
	Section int
	// InfiniteLives is the practice trainer (game.Config.InfiniteLives, SET_LIVES): a lost ship
	// costs no life.
	InfiniteLives bool
	Members       []Member // the players in slot order
	// Files are the stage files of Stage and of each stage of Run, as the lobby offers them
	// (name, bytes, hash): what the game plays. A game host gets them from its lobby with the
	// hand-over, checked against their hashes (net/fleet, docs/CONTROL.md §4.2); a runtime
	// given none looks the names up in its own stages.
	Files []*stagefile.File
}

// File returns the stage file of Files called name, or nil.
func (s GameSpec) File(name string) *stagefile.File {
	for _, f := range s.Files {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Starter is the game runtime a lobby hands its game to at START (net/instance.Manager). It is
// called from the lobby's Core, under the runtime's lock: it must return promptly and not call
// back into the lobby. A Starter that waits on the network (net/fleet.Remote: a game host's
// reply) is given with lobby.ServerConfig.AsyncStart instead: the runtime then calls it on a
// goroutine of its own for each start request the Core leaves, never under its lock.
type Starter interface {
	StartGame(spec GameSpec) (Game, error)
}

// MaxSpectators is the number of spectators a lobby (and its game) accepts at once
// (docs/PROTOCOL.md §2.4.3, §5.10).
const MaxSpectators = 8

// Rejoiner is implemented by a Game that lets a player whose connection was lost take its slot
// back (net/instance.Instance): m carries the slot, the rejoiner's user UUID and name, and a new
// token and session key. An error means the slot is not waiting for a rejoin.
type Rejoiner interface {
	Rejoin(m Member) error
}

// Spectatable is implemented by a Game that accepts spectators: m has Slot -1 and its own token
// and session key.
type Spectatable interface {
	Spectate(m Member) error
}

// SpectatorReporter is implemented by a Game that drops spectators on its own (one silent for
// too long, or that said BYE; net/instance.Instance): SpectatorsGone is signalled when it has,
// and TakeSpectatorsGone returns them (each Member as Spectate got it) and forgets them. The
// lobby's runtime hands them to lobbyserver.Core.SpectatorsGone, so the lobby's spectators are the game's.
type SpectatorReporter interface {
	SpectatorsGone() <-chan struct{}
	TakeSpectatorsGone() []Member
}

// Practice reports whether the game of spec is a practice (it starts past the stage's start, or
// with infinite lives): its scores are not an arcade run's, and no hall of fame keeps it.
func (s GameSpec) Practice() bool { return s.Section > 0 || s.InfiniteLives }
