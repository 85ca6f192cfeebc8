// Package ecs is the generic entity-component-system used by the rtype
// simulation, the replication layer and the client mirror. It knows nothing
// about the game.
//
// # Model
//
// An [Entity] is a 64-bit id: the low 32 bits are the index of its slot in
// the [World], the high 32 bits its generation (starting at 1, bumped each
// time the slot is destroyed). A destroyed id is therefore never alive again,
// even when its index is recycled. [Nil] (0) is never a valid entity.
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
// steady state does not allocate.
//
// # Queries
//
// [NewQuery1], [NewQuery2] and [NewQuery3] build reusable queries over
// entities having all the listed components. An iteration walks the dense
// array of the smallest store BACKWARDS (last dense slot first) and looks the
// other components up through the sparse table (with a fast path when the
// other store holds the same entity at the same dense slot). The order is
// deterministic: it only depends on the sequence of operations applied to
// the world. Iterating does not allocate.
//
// Structural changes during an iteration follow one rule:
//
//   - the CURRENT entity may be destroyed, and any of its components may be
//     removed (swap-remove only moves already-visited entities);
//   - components may be added (Set) to any entity and entities may be
//     created: entities that start matching during the iteration may or may
//     not be visited in it, but no entity is visited twice and nothing
//     panics;
//   - destroying OTHER entities, or removing components of other entities,
//     is not allowed during an iteration (it may cause an entity to be
//     skipped or visited twice). Collect them and apply after the loop.
//
// Pointers returned by Get/Mut and by an iterator are valid until the next
// structural change of that store (Set of a new entity, Remove, Destroy).
//
// # Concurrency
//
// A World and everything derived from it is not safe for concurrent use;
// the owner (simulation goroutine) serialises all access.
package ecs
