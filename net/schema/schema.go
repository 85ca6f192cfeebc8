// Package schema declares, once, how rtype's world is replicated (docs/PROTOCOL.md §5.3–§5.8):
// which components are dead reckoned and packed, which entities the clients place or delete by
// themselves. The server's tracker (net/instance, one per game) and every client's mirror
// (net/session) are made here, so the two sides cannot disagree. net/replication itself knows
// no game: these are its component ids and callbacks.
package schema

import (
	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/net/replication"
)

// DeadReckonPx is how far (virtual px) a client's dead-reckoned Position may drift from the
// server's before the server sends the Position again (docs/PROTOCOL.md §5.3).
const DeadReckonPx = 0.5

// The replicated components the rules below name (ids of game.RegisterComponents).
const (
	position = game.CompPosition // (x, y f32) px, dead reckoned from Velocity
	velocity = game.CompVelocity // (vx, vy f32) px/s
	kind     = game.CompKind     // 2 bytes: leads an entity's Spawn record
)

// NewTracker prepares the server's replication of sim's world: dead reckoning within
// DeadReckonPx (§5.3), Position and Velocity packed as one Motion record and, with the Kind, as
// a Spawn record (§4), no Position for entities clients place themselves (attached Forces §5.7,
// crawling lasers §5.8: game.Components.PlacedByClients) and no DEL_ENT for entities clients
// delete when they leave the field (§5.6: SelfExpires).
func NewTracker(sim *game.Sim) *replication.Tracker {
	tr := replication.NewTracker(sim.World())
	tr.DeadReckon(position, velocity, DeadReckonPx, game.TickRate)
	tr.PackMotion()
	tr.PackSpawn(kind)
	c := sim.Components()
	tr.Derived(c.PlacedByClients)
	tr.SelfExpiry(func(e ecs.Entity) bool {
		k := c.Kind.Get(e)
		return k != nil && game.ExpiresOutsideField(k.Kind)
	}, func(x, y float32) bool { return game.OutsideField(x, y, game.ExpirySlack) })
	return tr
}

// NewMirror prepares a client's mirror of the server's world w (registered by
// game.RegisterComponents): it dead-reckons Positions (§5.3) and unpacks Spawn records (§4) as
// the tracker made them. The client then places and deletes what NewTracker leaves to it
// (game.AttachedForcePos, game.CrawlY, SelfExpires).
func NewMirror(w *ecs.World) *replication.Mirror {
	m := replication.NewMirror(w)
	m.DeadReckon(position, velocity, game.TickRate)
	m.PackSpawn(kind)
	return m
}

// SelfExpires reports whether an entity of kind k whose Position is (x, y) has left the field
// for good: the server destroys it there without a DEL_ENT and each client deletes it by itself
// (§5.6).
func SelfExpires(k game.Kind, x, y float32) bool {
	return game.ExpiresOutsideField(k.Kind) && game.OutsideField(x, y, game.ExpirySlack)
}
