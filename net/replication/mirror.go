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

// Mirror applies server commands to a client-side copy of the world (docs/PROTOCOL.md §5).
// Entity ids are the server's. A DEL_ENT leaves a tombstone (the highest deleted generation per
// index), so an ENTITY that was delayed past the deletion cannot bring a ghost back.
type Mirror struct {
	W       *ecs.World
	deadGen []uint32
	// compTick[index][id] is the server tick of the newest value applied (latest-wins: an
	// ENTITY from an older datagram never overwrites a newer value).
	compTick [][MaxReplicated]uint32
	compGen  []uint32
	// OnComponent, when set, is called after an ENTITY sets component id of e (the session keeps
	// interpolation history of positions with it).
	OnComponent func(e ecs.Entity, id ecs.ComponentID)
	// OnDestroy, when set, is called before e is removed from the mirror.
	OnDestroy func(e ecs.Entity)

	dr           bool
	drPos, drVel ecs.ComponentID
	spawnWith    ecs.ComponentID // the 2-byte component of a Spawn record (Kind)
	rate         float32
	anchors      []anchor
	scratch      [16]byte
}

type anchor struct {
	gen  uint32
	x, y float32
	t    uint32 // server tick of the Position
	ok   bool
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
	for i := range m.anchors {
		a := &m.anchors[i]
		if !a.ok {
			continue
		}
		e := ecs.Entity(uint64(a.gen)<<32 | uint64(i))
		if !m.W.Alive(e) {
			a.ok = false
			continue
		}
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
	i := int(e.Index())
	for i >= len(m.anchors) {
		m.anchors = append(m.anchors, anchor{})
	}
	x, y := readXY(data)
	m.anchors[i] = anchor{gen: e.Generation(), x: x, y: y, t: tick, ok: true}
}

// NewMirror wraps a world whose components are registered exactly as on the server.
func NewMirror(w *ecs.World) *Mirror { return &Mirror{W: w} }

func (m *Mirror) dead(e ecs.Entity) bool {
	i := int(e.Index())
	return i < len(m.deadGen) && e.Generation() <= m.deadGen[i]
}

// ApplyEntity applies one parsed ENTITY carried by a datagram of server tick tick: creates the entity with the server's id if needed (an
// older generation in the same index is gone: it is destroyed first) and sets each component.
// An ENTITY for a deleted entity is ignored, and so is a component older than the one held.
func (m *Mirror) ApplyEntity(c *wire.Entity, tick uint32) error {
	e := ecs.Entity(c.Entity)
	if m.dead(e) {
		return nil
	}
	if !m.W.Alive(e) {
		if err := m.W.CreateWithID(e); err != nil {
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
	for i >= len(m.compTick) {
		m.compTick = append(m.compTick, [MaxReplicated]uint32{})
		m.compGen = append(m.compGen, 0)
	}
	if m.compGen[i] != e.Generation() {
		m.compGen[i], m.compTick[i] = e.Generation(), [MaxReplicated]uint32{}
	}
	for it := c.Components(); ; {
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
		if last := m.compTick[i][id]; last != 0 && int32(tick-last) < 0 {
			return nil
		}
		m.compTick[i][id] = tick
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

// aliveAt returns the live entity holding index idx, or Nil (a linear scan: only when an index
// changes hands, which is rare).
func (m *Mirror) aliveAt(idx uint32) ecs.Entity {
	var found ecs.Entity
	m.W.Each(func(x ecs.Entity) {
		if x.Index() == idx {
			found = x
		}
	})
	return found
}

// bury records that e (and every older generation of its index) is dead.
func (m *Mirror) bury(e ecs.Entity) {
	i := int(e.Index())
	for i >= len(m.deadGen) {
		m.deadGen = append(m.deadGen, 0)
	}
	if e.Generation() > m.deadGen[i] {
		m.deadGen[i] = e.Generation()
	}
}

func (m *Mirror) destroy(e ecs.Entity) {
	if m.OnDestroy != nil {
		m.OnDestroy(e)
	}
	m.W.Destroy(e)
}

// Bury tombstones entity id without removing it: no later ENTITY changes or revives it, and it is
// no longer dead-reckoned. DelEnt removes it (a client that shows deletions on its render
// timeline buries on DEL_ENT and removes when the timeline gets there).
func (m *Mirror) Bury(id uint64) {
	e := ecs.Entity(id)
	m.bury(e)
	if i := int(e.Index()); i < len(m.anchors) && m.anchors[i].gen == e.Generation() {
		m.anchors[i].ok = false
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
	if i := int(e.Index()); comp < MaxReplicated && i < len(m.compTick) && m.compGen[i] == e.Generation() {
		m.compTick[i][comp] = 0
	}
}

// Has reports whether the mirror holds entity e alive.
func (m *Mirror) Has(e ecs.Entity) bool { return m.W.Alive(e) }
