package replication

import (
	"encoding/binary"
	"errors"
	"math"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/net/wire"
)

// ErrUnknownComponent: an ENTITY or DEL_COMP names a component the mirror world did not register.
var ErrUnknownComponent = errors.New("replication: component not registered in the mirror")

// MaxEntityIndex is the largest entity index a client's mirror accepts (docs/PROTOCOL.md §6 rule
// 9): a server keeps its entity indices at or below it. A server's indices are recycled, so they
// stay below its largest number of live entities at once (about 300 on the busiest stage); the
// limit is 50 times that, and it bounds what one ENTITY can make a client allocate: the mirror's
// and the session's tables per index are a few MB at this size, not a gigabyte at ecs.MaxIndex.
const MaxEntityIndex = 1<<14 - 1

// ErrEntityIndex: an ENTITY names an entity index above MaxEntityIndex (dropped and counted).
var ErrEntityIndex = errors.New("replication: entity index above MaxEntityIndex")

// Mirror applies server commands to a client-side copy of the world (docs/PROTOCOL.md §5).
// Entity ids are the server's, with indices up to MaxEntityIndex. A DEL_ENT leaves a tombstone
// (the highest deleted generation per index), so an ENTITY that was delayed past the deletion
// cannot bring a ghost back. Every operation costs O(1) per command (Advance: O(1) per
// dead-reckoned entity), whatever the indices named.
type Mirror struct {
	W *ecs.World
	// slots holds per entity index (up to the largest seen, at most MaxEntityIndex+1) the
	// tombstone, the generation held, the component ticks and the dead-reckoning anchor.
	slots []mslot
	// moving lists the indices whose anchor is set: Advance walks these only.
	moving []uint32
	// OnComponent, when set, is called after an ENTITY sets component id of e (the session keeps
	// interpolation history of positions with it).
	OnComponent func(e ecs.Entity, id ecs.ComponentID)
	// OnDestroy, when set, is called before e is removed from the mirror.
	OnDestroy func(e ecs.Entity)

	dr           bool
	drPos, drVel ecs.ComponentID
	spawnWith    ecs.ComponentID // the 2-byte component of a Spawn record (Kind)
	rate         float32
	scratch      [16]byte
}

// mslot is the mirror's record of one entity index.
type mslot struct {
	deadGen uint32 // highest generation deleted (tombstone)
	liveGen uint32 // generation of the entity the mirror holds here (0: none)
	// compTick[id] is the server tick of the newest value applied to component id of the
	// entity of generation compGen (latest-wins: an ENTITY from an older datagram never
	// overwrites a newer value).
	compGen  uint32
	compTick [MaxReplicated]uint32
	anchor   anchor
}

type anchor struct {
	gen    uint32
	x, y   float32
	t      uint32 // server tick of the Position
	ok     bool
	listed bool // in Mirror.moving
}

// slot returns the record of index i, growing the table to it; nil above MaxEntityIndex.
func (m *Mirror) slot(i uint32) *mslot {
	if i > MaxEntityIndex {
		return nil
	}
	if int(i) >= len(m.slots) {
		m.slots = append(m.slots, make([]mslot, int(i)+1-len(m.slots))...)
	}
	return &m.slots[i]
}

// held returns the record of index i if the table has it.
func (m *Mirror) held(i uint32) *mslot {
	if int(i) < len(m.slots) {
		return &m.slots[i]
	}
	return nil
}

// DeadReckon makes the mirror compute Positions the server does not send (Tracker.DeadReckon):
// Advance moves every entity with a Velocity from its last received Position.
func (m *Mirror) DeadReckon(pos, vel ecs.ComponentID, tickRate float32) {
	m.dr, m.drPos, m.drVel, m.rate = true, pos, vel, tickRate
}

// PackSpawn names the component (the entity's Kind, 2 bytes) whose value leads a Spawn record
// (Tracker.PackSpawn); a Spawn is applied as that component, then Position and Velocity.
func (m *Mirror) PackSpawn(kind ecs.ComponentID) { m.spawnWith = kind }

// Advance sets the Position of every dead-reckoned entity to where it is at server tick tick:
// its last received Position moved by its Velocity (Extrapolate). OnComponent is called for each.
func (m *Mirror) Advance(tick uint32) {
	if !m.dr {
		return
	}
	ps, vs := m.W.Store(m.drPos), m.W.Store(m.drVel)
	if ps == nil || vs == nil {
		return
	}
	for k := 0; k < len(m.moving); {
		i := m.moving[k]
		a := &m.slots[i].anchor
		e := ecs.Entity(uint64(a.gen)<<32 | uint64(i))
		if !a.ok || !m.W.Alive(e) {
			a.ok, a.listed = false, false
			last := len(m.moving) - 1
			m.moving[k] = m.moving[last]
			m.moving = m.moving[:last]
			continue
		}
		k++
		n := int32(tick - a.t)
		if n <= 0 || !vs.Has(e) || !ps.Has(e) {
			continue
		}
		vx, vy := readXY(vs.AppendWire(m.scratch[:0], e))
		if vx == 0 && vy == 0 {
			continue
		}
		x, y := Extrapolate(a.x, a.y, vx, vy, float32(n), m.rate)
		b := m.scratch[:8]
		putXY(b, x, y)
		if err := ps.SetWire(e, b); err == nil && m.OnComponent != nil {
			m.OnComponent(e, m.drPos)
		}
	}
}

func (m *Mirror) setAnchor(e ecs.Entity, data []byte, tick uint32) {
	sl := m.slot(e.Index())
	if sl == nil {
		return
	}
	x, y := readXY(data)
	listed := sl.anchor.listed
	sl.anchor = anchor{gen: e.Generation(), x: x, y: y, t: tick, ok: true, listed: true}
	if !listed {
		m.moving = append(m.moving, e.Index())
	}
}

// NewMirror wraps a world whose components are registered exactly as on the server. The world
// stops recording events (ecs.World.DiscardEvents): nobody drains a mirror's, and every entity a
// server creates and replaces would stay in its buffer (issue 31: 80 MB after 18 000 datagrams
// of churn).
func NewMirror(w *ecs.World) *Mirror {
	w.DiscardEvents()
	return &Mirror{W: w}
}

func (m *Mirror) dead(e ecs.Entity) bool {
	sl := m.held(e.Index())
	return sl != nil && e.Generation() <= sl.deadGen
}

// Buried reports whether entity id is tombstoned (Bury or DelEnt): no ENTITY changes it any more.
func (m *Mirror) Buried(id uint64) bool { return m.dead(ecs.Entity(id)) }

// ApplyEntity applies one parsed ENTITY carried by a datagram of server tick tick: creates the
// entity with the server's id if needed (an older generation in the same index is gone: it is
// destroyed first) and sets each component. An ENTITY for a deleted entity is ignored, and so is
// a component older than the one held.
func (m *Mirror) ApplyEntity(c *wire.Entity, tick uint32) error {
	return m.apply(c.Entity, c.Components(), tick)
}

// ApplyRecord applies one record of a parsed STATE (docs/PROTOCOL.md §3.4.10) carried by a
// datagram of server tick tick, exactly as the ENTITY with the same components.
func (m *Mirror) ApplyRecord(r *wire.Record, tick uint32) error {
	return m.apply(r.Entity, r.Components(), tick)
}

// ApplyState applies every record of a parsed STATE in order, each as ApplyRecord, and returns
// how many failed: a record that fails is left off from its failing component on (the
// components before it are applied, as for an ENTITY), and the next records are applied.
func (m *Mirror) ApplyState(c *wire.State, tick uint32) (failed int) {
	for it := c.Records(); ; {
		r, ok := it.Next()
		if !ok {
			return failed
		}
		if err := m.ApplyRecord(&r, tick); err != nil {
			failed++
		}
	}
}

func (m *Mirror) apply(id uint64, comps wire.ComponentIter, tick uint32) error {
	e := ecs.Entity(id)
	if e.Index() > MaxEntityIndex {
		return ErrEntityIndex
	}
	if m.dead(e) {
		return nil
	}
	if !m.W.Alive(e) {
		if err := m.W.CreateWithID(e); err != nil {
			if !errors.Is(err, ecs.ErrIndexInUse) {
				return err
			}
			// Another generation holds the index. Generations only grow, so the older of the
			// two is dead on the server: a late ENTITY of an older generation is dropped (and
			// never replaces the newer one); a newer generation replaces the older one.
			other := m.aliveAt(e.Index())
			if other != ecs.Nil && other.Generation() > e.Generation() {
				m.bury(e)
				return nil
			}
			if other != ecs.Nil {
				m.bury(other)
				m.destroy(other)
			}
			if err := m.W.CreateWithID(e); err != nil {
				return err
			}
		}
	}
	i := int(e.Index())
	sl := m.slot(e.Index())
	sl.liveGen = e.Generation()
	if sl.compGen != e.Generation() {
		sl.compGen, sl.compTick = e.Generation(), [MaxReplicated]uint32{}
	}
	for it := comps; ; {
		id, data, ok := it.Next()
		if !ok {
			break
		}
		if id == wire.CompSpawn && m.dr && m.spawnWith != 0 {
			// Kind + Motion: applied as the three components.
			if err := m.set(e, i, uint16(m.spawnWith), data[:2], tick); err != nil {
				return err
			}
			id, data = wire.CompMotion, data[2:]
		}
		if id == wire.CompMotion && m.dr {
			// Position and Velocity in one fixed-point record: applied as the two components.
			x, y, vx, vy := wire.ParseMotion(data)
			pb, vb := m.scratch[:8], m.scratch[8:16]
			putXY(pb, x, y)
			putXY(vb, vx, vy)
			if err := m.set(e, i, uint16(m.drPos), pb, tick); err != nil {
				return err
			}
			if err := m.set(e, i, uint16(m.drVel), vb, tick); err != nil {
				return err
			}
			continue
		}
		if err := m.set(e, i, id, data, tick); err != nil {
			return err
		}
	}
	return nil
}

// set applies component id (wire encoding data) of e, whose index is i, from a datagram of
// server tick tick, unless a newer value is held (latest-wins).
func (m *Mirror) set(e ecs.Entity, i int, id uint16, data []byte, tick uint32) error {
	if int(id) < MaxReplicated {
		ct := &m.slots[i].compTick
		if last := ct[id]; last != 0 && int32(tick-last) < 0 {
			return nil
		}
		ct[id] = tick
	}
	st := m.W.Store(ecs.ComponentID(id))
	if st == nil {
		return ErrUnknownComponent
	}
	if err := st.SetWire(e, data); err != nil {
		return err
	}
	if m.dr && ecs.ComponentID(id) == m.drPos && len(data) >= 8 {
		m.setAnchor(e, data, tick)
	}
	if m.OnComponent != nil {
		m.OnComponent(e, ecs.ComponentID(id))
	}
	return nil
}

func putXY(b []byte, x, y float32) {
	binary.LittleEndian.PutUint32(b, math.Float32bits(x))
	binary.LittleEndian.PutUint32(b[4:], math.Float32bits(y))
}

// aliveAt returns the live entity holding index idx, or Nil: the generation the mirror holds
// there (O(1); the mirror is the only one to create entities in its world).
func (m *Mirror) aliveAt(idx uint32) ecs.Entity {
	sl := m.held(idx)
	if sl == nil || sl.liveGen == 0 {
		return ecs.Nil
	}
	if e := ecs.Entity(uint64(sl.liveGen)<<32 | uint64(idx)); m.W.Alive(e) {
		return e
	}
	return ecs.Nil
}

// bury records that e (and every older generation of its index) is dead.
func (m *Mirror) bury(e ecs.Entity) {
	sl := m.slot(e.Index())
	if sl != nil && e.Generation() > sl.deadGen {
		sl.deadGen = e.Generation()
	}
}

func (m *Mirror) destroy(e ecs.Entity) {
	if m.OnDestroy != nil {
		m.OnDestroy(e)
	}
	m.W.Destroy(e)
	if sl := m.held(e.Index()); sl != nil && sl.liveGen == e.Generation() {
		sl.liveGen = 0
	}
}

// Bury tombstones entity id without removing it: no later ENTITY changes or revives it, and it is
// no longer dead-reckoned. DelEnt removes it (a client that shows deletions on its render
// timeline buries on DEL_ENT and removes when the timeline gets there).
func (m *Mirror) Bury(id uint64) {
	e := ecs.Entity(id)
	m.bury(e)
	if sl := m.held(e.Index()); sl != nil && sl.anchor.gen == e.Generation() {
		sl.anchor.ok = false // Advance drops it from its list
	}
}

// DelEnt applies DEL_ENT: the entity is removed and tombstoned.
func (m *Mirror) DelEnt(id uint64) {
	e := ecs.Entity(id)
	m.bury(e)
	if m.W.Alive(e) {
		m.destroy(e)
	}
}

// DelComp applies DEL_COMP.
func (m *Mirror) DelComp(id uint64, comp uint32) {
	e := ecs.Entity(id)
	if comp > uint32(ecs.MaxComponentID) || !m.W.Alive(e) {
		return
	}
	if st := m.W.Store(ecs.ComponentID(comp)); st != nil {
		st.Remove(e)
	}
	if sl := m.held(e.Index()); comp < MaxReplicated && sl != nil && sl.compGen == e.Generation() {
		sl.compTick[comp] = 0
	}
}

// Has reports whether the mirror holds entity e alive.
func (m *Mirror) Has(e ecs.Entity) bool { return m.W.Alive(e) }
