// Package session is the client side of a UDP game instance (docs/PROTOCOL.md §3): it says HERE,
// sends tick-stamped inputs, answers nothing, measures RTT with PING, applies ENTITY / DEL_ENT /
// DEL_COMP into a mirror ecs.World and exposes a render view with interpolated remote entities and
// the predicted local ship. It is shared by the bot (net/bot) and the Ebitengine client
// (game/client) and never imports ebiten. Client is the pure core (Receive, Tick and View take
// the time; what it sends goes to a transport.Outbox); Session runs it over a UDP socket in real
// time (Dial, SetInput, View, Events, Stats, Done, Close: api.go, session.go, dial.go).
//
// # The client's view of the world
//
// The local ship is predicted: each 60 Hz input tick runs game.MoveShip on the held buttons; a
// Position received for it at server tick T rewinds to that state and replays the inputs stamped
// after T (reconciliation); a difference up to 64 px is smoothed over about 6 frames.
//
// Every other entity is drawn at RenderTick = newest server tick − interpolation delay (at least
// 6 ticks, more with jitter), between the two samples around it; samples come from received
// Positions and from dead reckoning (replication.Mirror.Advance) at every newer server tick. An
// entity whose first sample is later than RenderTick is not drawn yet (spawns appear at their
// moment on that timeline). Deletions likewise: a DEL_ENT tombstones the entity at once
// (replication.Mirror.Bury: no ENTITY changes it, no more dead reckoning) but it stays in the
// mirror, drawn at its last samples, until the render timeline reaches the DEL_ENT's tick; then
// it is removed (also for clients that draw nothing, and for everything at GAME_END). An enemy
// thus disappears on screen at the moment its explosion appears.
//
// Own shots without delay (ownshots.go): the local player's normal shots and charged beams are
// predicted. Each input tick runs the server's fire rules on the stamped buttons (press edge,
// the cooldown tracked locally, the held count for the beam's level; a Force attached in front
// fires a laser instead: not predicted, nor are Bit shots, missiles and detached-Force volleys)
// and records the tick T, the spawn position from game.NormalShotAt or game.BeamAt at the
// predicted ship, and the speed; at input tick t the shot is at x0 + vx·(t−T+1)/60 (it moves
// once in its own tick, as on the server). Nothing on the wire changes: a new entity of those
// kinds is matched, after its datagram is applied, with the nearest unconfirmed prediction of
// its kind within 24 px (per axis) at the datagram's tick. A matched entity is drawn on the
// predicted timeline — its Position (at the newest server tick) moved by its Velocity to the
// input tick — plus the hand-over offset, decaying ×0.6 per tick; its DEL_ENT removes it at once
// (it hit something). A prediction unmatched after RTT + interpolation delay + 12 ticks of
// server time fades out over 9 ticks (150 ms) and is dropped. Records live in a fixed array (none
// allocated). The renderer gets the unconfirmed ones as View.PredictedShots and asks View.OwnShot
// to play a shot's sound on the press, not again at the hand-over. Known limit: own shots are
// drawn about one RTT + interpolation delay ahead of the enemies they hit (the enemies are in the
// interpolated past), so a shot disappears that far past its target.
//
// Entities that leave the field are deleted by the client itself (docs/PROTOCOL.md §5.6); an
// attached Force is placed from its ship every tick (§5.7), a crawling laser on the terrain
// (§5.8); Size follows from Kind (game.Components.DeriveFromKind, §4.1).
package session

import (
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/net/transport"
	"github.com/rtype/rtype/net/wire"
)

// EventKind says what a session Event reports.
type EventKind uint8

const (
	// EventWelcome: the server accepted HERE (Slot and Entity are set).
	EventWelcome EventKind = iota + 1
	// EventDeath: a player ship died (seed 004 DEATH): Entity, Slot, Lives.
	EventDeath
	// EventMusic: the music changes (seed 004 MUSIC): Song.
	EventMusic
	// EventGameEnd: the game ended (seed 004 GAME_END): Result.
	EventGameEnd
	// EventDisconnected: the session ended without GAME_END (server BYE or timeout): Reason.
	EventDisconnected
	// EventPause: the server paused (Paused) or resumed the game (PAUSE, docs/PROTOCOL.md §5.11).
	EventPause
	// EventResults: every player's figures (RESULTS), just before EventGameEnd.
	EventResults
)

// Event is one reliable server event, delivered exactly once and in order.
type Event struct {
	Kind   EventKind
	Entity ecs.Entity
	Slot   uint8
	Lives  uint8
	Song   uint8
	Result rules.Result
	Reason string
	// Spectator: EventWelcome as a spectator (no ship; Slot is wire.SpectatorSlot).
	Spectator bool
	Paused    bool         // EventPause
	Results   wire.Results // EventResults: every entry received so far, in slot order
}

// String is the event in the form the bots and tests log: "welcome:slot", "death:slot:lives",
// "music:song", "game_end:result", "disconnected:reason".
func (ev Event) String() string {
	switch ev.Kind {
	case EventWelcome:
		return fmt.Sprintf("welcome:%d", ev.Slot)
	case EventDeath:
		return fmt.Sprintf("death:%d:%d", ev.Slot, ev.Lives)
	case EventMusic:
		return fmt.Sprintf("music:%d", ev.Song)
	case EventGameEnd:
		return "game_end:" + ev.Result.String()
	case EventDisconnected:
		return "disconnected:" + ev.Reason
	case EventPause:
		return fmt.Sprintf("pause:%v", ev.Paused)
	case EventResults:
		return fmt.Sprintf("results:%d", ev.Results.Count)
	}
	return "?"
}

// Stats are the link-quality figures shown by the client's F3 overlay and the bot's JSON line.
type Stats struct {
	RTTMillis        float64 // smoothed round-trip time, ms
	JitterMillis     float64 // mean deviation of the RTT, ms
	LossPercent      float64 // datagrams from the server lost, % over the last seconds
	SnapshotsPerSec  float64 // snapshots (datagrams of a newer server tick) received per second
	BytesInPerSec    float64
	BytesOutPerSec   float64
	DatagramsIn      uint64
	DatagramsOut     uint64
	BytesIn          uint64
	BytesOut         uint64
	InterpDelayMs    float64 // how far behind the newest snapshot remote entities are drawn, ms
	Corrections      uint64  // prediction corrections applied to the local ship
	CorrectionPixels float64 // mean size of a correction, virtual px
	ServerTick       uint32  // newest server tick received
	Dropped          uint64  // datagrams dropped as invalid
	Challenges       uint64  // CHALLENGEs received: the server saw this client at a new address (docs/PROTOCOL.md §5.9)
}

// View is what a renderer or an autopilot reads, valid only inside Session.View's callback.
type View struct {
	World *ecs.World       // the mirror world (replicated components only)
	C     *game.Components // typed stores of World
	Self  ecs.Entity       // the local player's ship (ecs.Nil before WELCOME or while dead)
	Slot  int              // local player slot 0..3 (-1 before WELCOME)
	Tick  ecs.Tick         // newest server tick received
	// RenderTick is the fractional server tick at which remote entities are drawn (interpolation).
	RenderTick float64
	// Spectator: watching without a ship (Self is ecs.Nil, Slot -1). Paused: the server paused
	// the game (its only player pressed pause). Silence: time since the last datagram from the
	// server; Interrupted: Silence > InterruptedAfter: the view holds still, show "connection
	// interrupted" with the seconds.
	Spectator   bool
	Paused      bool
	Silence     time.Duration
	Interrupted bool
	c           *Client
}

// Pos is where entity e should be drawn now, in virtual px: the predicted position for the local
// ship (and its attached Force), the interpolated position for every other entity; ok is false when
// e has no Position, or when it spawned after the (delayed) moment being drawn.
func (v *View) Pos(e ecs.Entity) (x, y float32, ok bool) { return v.c.pos(e) }

// Config configures Dial.
type Config struct {
	Addr  string    // UDP address of the game instance, "host:port" (port from the lobby START push)
	UUID  uuid.UUID // from AUTHENTICATE
	Token uint32    // from the lobby START push (docs/PROTOCOL.md §2)
	Key   [16]byte  // from the lobby START push (ClientConfig.Key)
	// NetSim, when not empty, runs the socket through the link simulator (e.g. "lat=75ms,loss=5%").
	NetSim string
	// Socket, when not nil, is used instead of a new UDP socket (tests pass a linksim.Link); the
	// session closes it.
	Socket transport.Socket
	// Terrain is the stage's terrain (ClientConfig.Terrain); nil: open space.
	Terrain *game.Terrain
	// Run is the terrain of each stage of an arcade run (ClientConfig.Run); nil: one stage.
	Run []*game.Terrain
}
