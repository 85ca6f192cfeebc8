// Package ecs is the generic entity-component-system used by the rtype
// simulation, the replication layer and the client mirror. It knows nothing
// about the game.
//
// # Model
//
// An [Entity] is a 64-bit id: the low 32 bits are the index of its slot in
// the [World], the high 32 bits its generation (starting at 1, bumped each
// time the slot is destroyed). A destroyed id is therefore never alive again,
// even when its index is recycled. [Nil] (0) is never a valid entity. The
// top bit of an id is always 0 (the wire entId is a non-negative int64): a
// slot whose generation reaches 2^31-1 is retired instead of wrapping.
// Freed indices are reused last-freed-first.
//
// The client mirror does not choose ids: [World.CreateWithID] makes a
// server id alive as is (growing storage up to [MaxIndex]) and rejects ids
// that are invalid or whose index is alive with another generation. A
// world should use either Create (server) or CreateWithID (mirror).
//
// A component type T is registered once per world with [Register], which
// gives it a wire [ComponentID] (1..63, the bit of the entity's [Signature]),
// a [Codec] and [Flags]. Each component type lives in its own [Store]: a
// sparse set holding the values densely (one []T, one []Entity and one
// []Tick of change ticks, all indexed by dense slot) plus a sparse table from
// entity index to dense slot. Adding, replacing, removing and looking up a
// component are O(1) and do not allocate once the slices have grown.
//
// # Ticks and change tracking
//
// The world has a current [Tick] (starts at 0, [World.Advance] adds one per
// simulation step). Every component of every entity records the tick at
// which it was last added, Set, Mut'ed or MarkChanged ([Store.ChangedAt]);
// reading through [Store.Get] or through query pointers does not mark it.
// Structural changes (entity created/destroyed, component added/removed) are
// appended to an event buffer ([World.Events]) that the replication layer
// drains once per tick with [World.ClearEvents]; the buffer is reused, so a
// steady state does not allocate (events accumulate until ClearEvents; a
// world whose events nobody drains turns them off with [World.DiscardEvents]).
//
// # Queries
//
// [NewQuery1], [NewQuery2] and [NewQuery3] build reusable queries over the
// entities having all the listed components (build them once: they
// allocate; iterating does not):
//
//	q := ecs.NewQuery2[Position, Velocity](w)
//	for it := q.Iter(); it.Next(); {
//		p, v := it.Get() // pointers into the stores
//		p.X += v.X
//	}
//
// Iter returns a pointer to an iterator that lives on the caller's stack
// (Iter and Next are inlined); keep it local to the loop, passing it to
// another function may move it to the heap.
//
// An iteration walks the dense array of the smallest store (chosen at the
// first Next) BACKWARDS, from the last dense slot to the first, and finds
// the other components through the sparse tables, or without any lookup
// over runs of slots where the stores list the same entities in the same
// order (entities spawned with all their components and destroyed whole:
// then a pass costs about what it costs in an archetype ECS). The order is
// deterministic: it only depends on the sequence of operations applied to
// the world.
//
// Structural changes during an iteration follow one rule:
//
//   - the CURRENT entity may be destroyed, and any of its components may be
//     removed (swap-remove only moves already-visited entities into the
//     freed slot);
//   - components may be added (Set) to any entity and entities may be
//     created; entities that start matching during the iteration may or may
//     not be visited by it;
//   - under these two points every entity that matched when the iteration
//     started and still matches when its turn comes is visited exactly
//     once;
//   - destroying OTHER entities, or removing components of other entities,
//     is outside the rule: entities may then be skipped or visited twice
//     (the iterator still never pairs components of different entities).
//     Collect them in a slice and apply the changes after the loop.
//
// Entity and Get describe the current entity until the loop body makes a
// structural change: read them at the top of the body. Pointers returned
// by Get, by [Store.Get] and [Store.Mut] are valid until the next
// structural change of their store (a Set that adds, Remove, Destroy).
//
// # Concurrency
//
// A World and everything derived from it is not safe for concurrent use;
// the owner (simulation goroutine) serialises all access.
package ecs
