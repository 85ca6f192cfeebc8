package replication

import (
	"math"
	"testing"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/net/wire"
)

// With DeadReckon + PackMotion + PackSpawn, an entity's first Kind, Position and Velocity travel
// as one Spawn record and later ones as Motion; the client's mirror, dead-reckoning from the
// decoded fixed-point values, stays within the 0.5 px bound of the server at every snapshot, and
// a mover whose velocity never changes is sent once. An entity outside Motion's range goes as
// separate f32 records.
func TestPackMotionKeepsMirrorWithinBound(t *testing.T) {
	w := ecs.NewWorld()
	c := game.RegisterComponents(w)
	bullet := w.Create() // constant velocity, odd values that do not fit the fixed point exactly
	c.Position.Set(bullet, game.Position{X: 1900.3, Y: 100.77})
	c.Velocity.Set(bullet, game.Velocity{X: -339.41, Y: 71.3})
	weaver := w.Create() // new velocity every 15 ticks
	c.Position.Set(weaver, game.Position{X: 1500, Y: 500})
	c.Velocity.Set(weaver, game.Velocity{X: -260, Y: 0})
	far := w.Create() // out of Motion's range
	c.Position.Set(far, game.Position{X: 5000.5, Y: 3})
	c.Velocity.Set(far, game.Velocity{X: -3000, Y: 0})
	for _, e := range []ecs.Entity{bullet, weaver, far} {
		c.Kind.Set(e, game.Kind{Kind: game.KindEnemyBullet})
	}

	tr := NewTracker(w)
	tr.DeadReckon(game.CompPosition, game.CompVelocity, 0.5, game.TickRate)
	tr.PackMotion()
	tr.PackSpawn(game.CompKind)
	wr := NewWriter(tr)

	mw := ecs.NewWorld()
	mc := game.RegisterComponents(mw)
	m := NewMirror(mw)
	m.DeadReckon(game.CompPosition, game.CompVelocity, game.TickRate)
	m.PackSpawn(game.CompKind)

	var seq uint16
	type inflight struct {
		seq  uint16
		tick ecs.Tick
	}
	var pending []inflight
	records := map[ecs.Entity]map[uint16]int{}
	buf := make([]byte, 0, wire.MaxDatagram)
	for tick := 1; tick <= 600; tick++ {
		w.Advance()
		for _, e := range []ecs.Entity{bullet, weaver, far} {
			p, v := c.Position.Get(e), c.Velocity.Get(e)
			if e == weaver && tick%15 == 1 {
				v.Y = float32(120 * math.Sin(float64(tick)/40))
				c.Velocity.MarkChanged(e)
			}
			p.X += v.X / game.TickRate
			p.Y += v.Y / game.TickRate
			c.Position.MarkChanged(e)
		}
		wr.Clock++
		for len(pending) > 0 && w.Tick()-pending[0].tick >= 6 { // acks 100 ms later
			wr.Acked(pending[0].seq)
			pending = pending[1:]
		}
		if tick%2 != 0 {
			continue
		}
		seq++
		b, more := wr.AppendSnapshot(buf[:0], wire.MaxDatagram, seq)
		if more {
			t.Fatal("three entities did not fit one datagram")
		}
		pending = append(pending, inflight{seq, w.Tick()})
		eachRecord(t, b, func(rec *wire.Record) {
			e := ecs.Entity(rec.Entity)
			if records[e] == nil {
				records[e] = map[uint16]int{}
			}
			for it := rec.Components(); ; {
				id, _, ok := it.Next()
				if !ok {
					break
				}
				records[e][id]++
			}
			if err := m.ApplyRecord(rec, uint32(w.Tick())); err != nil {
				t.Fatal(err)
			}
		})
		m.Advance(uint32(w.Tick()))
		for _, e := range []ecs.Entity{bullet, weaver, far} {
			sp, mp := c.Position.Get(e), mc.Position.Get(e)
			sv, mv := c.Velocity.Get(e), mc.Velocity.Get(e)
			if mp == nil || mv == nil {
				t.Fatalf("tick %d: entity %v missing from the mirror", tick, e)
			}
			if abs32(sp.X-mp.X) > 0.5 || abs32(sp.Y-mp.Y) > 0.5 {
				t.Fatalf("tick %d: entity %v at %v on the mirror, %v on the server", tick, e, *mp, *sp)
			}
			if abs32(sv.X-mv.X) > 1.0/32 || abs32(sv.Y-mv.Y) > 1.0/32 {
				t.Fatalf("tick %d: entity %v velocity %v on the mirror, %v on the server", tick, e, *mv, *sv)
			}
		}
	}
	if r := records[bullet]; r[wire.CompSpawn] != 1 || len(r) != 1 {
		t.Errorf("constant-velocity bullet: records %v, want one Spawn", r)
	}
	if r := records[weaver]; r[wire.CompSpawn] != 1 || r[wire.CompMotion] < 600/15-1 || r[wire.CompMotion] > 2*600/15 || len(r) != 2 {
		t.Errorf("weaver (40 velocity changes): records %v, want a Spawn, then one Motion per change or so", r)
	}
	if r := records[far]; r[wire.CompMotion] != 0 || r[wire.CompSpawn] != 0 || r[wire.CompPosition] == 0 || r[wire.CompVelocity] == 0 || r[wire.CompKind] != 1 {
		t.Errorf("out-of-range entity: records %v, want Kind and f32 Position and Velocity", r)
	}
	if k := mc.Kind.Get(bullet); k == nil || k.Kind != game.KindEnemyBullet {
		t.Errorf("Spawn did not set the Kind: %+v", k)
	}
}

// rig is a server world with one Writer and a client mirror linked by a perfect link: every
// snapshot arrives and is acknowledged 3 snapshots later.
type rig struct {
	t       *testing.T
	w       *ecs.World
	c       *game.Components
	tr      *Tracker
	wr      *Writer
	m       *Mirror
	mc      *game.Components
	seq     uint16
	pending []uint16
	records map[ecs.Entity]map[uint16]int
}

func newRig(t *testing.T, setup func(tr *Tracker, c *game.Components)) *rig {
	r := &rig{t: t, w: ecs.NewWorld(), records: map[ecs.Entity]map[uint16]int{}}
	r.c = game.RegisterComponents(r.w)
	r.tr = NewTracker(r.w)
	r.tr.DeadReckon(game.CompPosition, game.CompVelocity, 0.5, game.TickRate)
	r.tr.PackMotion()
	setup(r.tr, r.c)
	r.wr = NewWriter(r.tr)
	mw := ecs.NewWorld()
	r.mc = game.RegisterComponents(mw)
	r.m = NewMirror(mw)
	r.m.DeadReckon(game.CompPosition, game.CompVelocity, game.TickRate)
	return r
}

// snapshot sends one snapshot to the mirror (and acknowledges the one 3 snapshots old).
func (r *rig) snapshot() {
	r.tr.Observe(r.w.Events())
	r.w.ClearEvents()
	r.wr.Clock += 2
	if len(r.pending) >= 3 {
		r.wr.Acked(r.pending[0])
		r.pending = r.pending[1:]
	}
	r.seq++
	b, _ := r.wr.AppendSnapshot(make([]byte, 0, wire.MaxDatagram), wire.MaxDatagram, r.seq)
	r.pending = append(r.pending, r.seq)
	eachRecord(r.t, b, func(rec *wire.Record) {
		e := ecs.Entity(rec.Entity)
		if r.records[e] == nil {
			r.records[e] = map[uint16]int{}
		}
		for it := rec.Components(); ; {
			id, _, ok := it.Next()
			if !ok {
				break
			}
			r.records[e][id]++
		}
		if err := r.m.ApplyRecord(rec, uint32(r.w.Tick())); err != nil {
			r.t.Fatal(err)
		}
	})
	r.m.Advance(uint32(r.w.Tick()))
}

// step advances the server world by n ticks, moving every entity by its Velocity.
func (r *rig) step(n int) {
	for range n {
		r.w.Advance()
		for it := ecs.NewQuery2[game.Position, game.Velocity](r.w).Iter(); it.Next(); {
			p, v := it.Get()
			if v.X != 0 || v.Y != 0 {
				p.X += v.X / game.TickRate
				p.Y += v.Y / game.TickRate
				r.c.Position.MarkChanged(it.Entity())
			}
		}
	}
}

// An entity that leaves the field is deleted by the client itself (docs/PROTOCOL.md §5.6): the
// Writer reports no DEL_ENT for it once the client's acknowledged state puts it outside, but
// does for an entity destroyed inside, or whose newest state is not acknowledged yet.
func TestSelfExpiryNeedsNoDelEnt(t *testing.T) {
	r := newRig(t, func(tr *Tracker, c *game.Components) {
		tr.SelfExpiry(func(e ecs.Entity) bool { return c.Kind.Has(e) },
			func(x, y float32) bool { return game.OutsideField(x, y, game.ExpirySlack) })
	})
	spawn := func(x, vx float32) ecs.Entity {
		e := r.w.Create()
		r.c.Position.Set(e, game.Position{X: x, Y: 500})
		r.c.Velocity.Set(e, game.Velocity{X: vx})
		r.c.Kind.Set(e, game.Kind{Kind: game.KindEnemyBullet})
		return e
	}
	leaving := spawn(-250, -600) // crosses x = -300 after 5 ticks
	hit := spawn(900, -600)      // destroyed inside the field
	late := spawn(-250, -600)    // leaves, but gets a new velocity just before
	for range 6 {
		r.step(2)
		r.snapshot()
	}
	r.c.Velocity.Set(late, game.Velocity{X: -900})
	r.step(1)
	r.snapshot() // the new velocity is in flight
	for _, tc := range []struct {
		name   string
		e      ecs.Entity
		delEnt bool
	}{{"left the field", leaving, false}, {"destroyed inside", hit, true}, {"left, newest state in flight", late, true}} {
		if got := r.wr.Destroyed(tc.e); got != tc.delEnt {
			t.Errorf("%s: Destroyed = %v, want %v", tc.name, got, tc.delEnt)
		}
	}
	if r.wr.SelfExpired != 1 {
		t.Errorf("SelfExpired = %d, want 1", r.wr.SelfExpired)
	}
}

// An entity whose Position the client derives (an attached Force, docs/PROTOCOL.md §5.7) has no
// Position sent while it moves, as long as the client holds its other components as they are;
// once it is no longer derived, its Position goes out again.
func TestDerivedPositionNotSent(t *testing.T) {
	var attached bool
	var force ecs.Entity
	r := newRig(t, func(tr *Tracker, c *game.Components) {
		tr.Derived(func(e ecs.Entity) bool { return e == force && attached })
	})
	force = r.w.Create()
	r.c.Position.Set(force, game.Position{X: 100, Y: 100})
	r.c.Velocity.Set(force, game.Velocity{})
	r.c.Health.Set(force, game.Health{HP: 1, MaxHP: 1}) // stands for the Force component
	attached = true
	r.snapshot() // first ENTITY: Health not acknowledged yet, so the Position goes too
	for range 4 {
		r.snapshot()
	}
	sent := r.records[force][wire.CompMotion]
	for i := range 20 { // carried around: moves every tick, zero velocity
		r.step(1)
		r.c.Position.Mut(force).X = 100 + float32(i)*8
		r.snapshot()
	}
	if got := r.records[force][wire.CompMotion]; got != sent {
		t.Errorf("%d Motion records while derived, want none", got-sent)
	}
	attached = false
	r.step(1)
	r.c.Position.Mut(force).X = 400
	r.snapshot()
	if p := r.mc.Position.Get(force); p == nil || p.X != 400 {
		t.Errorf("mirror Position %+v after the derivation ended, want x 400", p)
	}
}

// eachRecord calls fn for each record of the STATE commands of payload (a snapshot without its
// header, as AppendSnapshot appends it to an empty buffer), which must be only STATE commands.
func eachRecord(t *testing.T, payload []byte, fn func(rec *wire.Record)) {
	t.Helper()
	for len(payload) > 0 {
		var st wire.State
		n, err := st.Parse(payload)
		if err != nil {
			t.Fatal(err)
		}
		for it := st.Records(); ; {
			rec, ok := it.Next()
			if !ok {
				break
			}
			fn(&rec)
		}
		payload = payload[n:]
	}
}

// A burst that needs several datagrams (500 new entities of every shape: Spawn, Spawn with
// Health, Kind with f32 Position and Velocity) is cut into datagrams of at most the limit, each
// a valid datagram whose STATE ends where the next record would not have fitted, and together
// they carry every entity whole to the mirror.
func TestSnapshotSplitsIntoDatagrams(t *testing.T) {
	r := newRig(t, func(tr *Tracker, c *game.Components) { tr.PackSpawn(game.CompKind) })
	r.m.PackSpawn(game.CompKind)
	var es []ecs.Entity
	for i := 0; i < 500; i++ {
		e := r.w.Create()
		x := float32(100 + i)
		if i%5 == 4 {
			x = 5000 + float32(i) // out of Motion's range: f32 records
		}
		r.c.Position.Set(e, game.Position{X: x, Y: float32(i)})
		r.c.Velocity.Set(e, game.Velocity{X: -float32(i), Y: 3})
		r.c.Kind.Set(e, game.Kind{Kind: game.KindEnemy, Variant: uint8(i % 3)})
		if i%2 == 0 {
			r.c.Health.Set(e, game.Health{HP: uint16(i), MaxHP: 999})
		}
		es = append(es, e)
	}
	r.tr.Observe(r.w.Events())
	r.w.ClearEvents()
	const limit = 600 // half a datagram: more splits
	dgrams := 0
	for more := true; more; {
		r.seq++
		b := wire.Header{Token: 1, Tick: uint32(r.w.Tick()), Seq: r.seq}.Append(make([]byte, 0, wire.MaxDatagram))
		b, more = r.wr.AppendSnapshot(b, limit, r.seq)
		dgrams++
		if len(b) > limit {
			t.Fatalf("datagram %d of %d bytes, limit %d", dgrams, len(b), limit)
		}
		biggest := wire.RecordSize(uint64(es[len(es)-1]), wire.MaskOf(wire.CompKind)|wire.MaskOf(wire.CompPosition)|
			wire.MaskOf(wire.CompVelocity)|wire.MaskOf(wire.CompHealth))
		if more && len(b) < limit-biggest {
			t.Fatalf("datagram %d of %d bytes left entities for later with room for one more", dgrams, len(b))
		}
		if err := wire.Validate(b); err != nil {
			t.Fatalf("datagram %d: %v", dgrams, err)
		}
		eachRecord(t, b[wire.HeaderSize:], func(rec *wire.Record) {
			if err := r.m.ApplyRecord(rec, uint32(r.w.Tick())); err != nil {
				t.Fatal(err)
			}
		})
	}
	if dgrams < 10 {
		t.Fatalf("500 entities in %d datagrams of %d bytes", dgrams, limit)
	}
	for i, e := range es {
		p, k := r.mc.Position.Get(e), r.mc.Kind.Get(e)
		if p == nil || k == nil || *p != *r.c.Position.Get(e) || *k != *r.c.Kind.Get(e) ||
			(i%2 == 0) != (r.mc.Health.Get(e) != nil) {
			t.Fatalf("entity %d on the mirror: position %v kind %v health %v", i, p, k, r.mc.Health.Get(e))
		}
	}
}
