package schema

import (
	"testing"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/net/replication"
	"github.com/rtype/rtype/net/wire"
)

// link replicates one game's world to one client's mirror as the server and the session do,
// over a perfect link: every snapshot arrives, DEL_ENT and DEL_COMP at once, and each snapshot
// is acknowledged 3 snapshots later.
type link struct {
	t       *testing.T
	sim     *game.Sim
	c       *game.Components
	mirror  *ecs.World
	mc      *game.Components
	pending []uint16
	seq     uint16
	// selfExpired are the entities the server destroyed without a DEL_ENT since the last check.
	selfExpired []ecs.Entity
	// records counts the component records of each id the snapshots carried.
	records map[uint16]int
}

func newLink(t *testing.T, seed uint64) *link {
	sim := game.NewSim(game.Config{Seed: seed, Players: 2})
	mw := ecs.NewWorld()
	l := &link{t: t, sim: sim, c: sim.Components(), mirror: mw, mc: game.RegisterComponents(mw), records: map[uint16]int{}}
	return l
}

// run plays ticks ticks of the game (its players idle) and sends a snapshot every second tick,
// calling check after each snapshot is applied.
func (l *link) run(ticks int, check func(tick int)) {
	tr := NewTracker(l.sim)
	wr := replication.NewWriter(tr)
	m := NewMirror(l.mirror)
	buf := make([]byte, 0, wire.MaxDatagram)
	for tick := 1; tick <= ticks; tick++ {
		l.sim.Step()
		w := l.sim.World()
		evs := w.Events()
		tr.Observe(evs)
		for _, ev := range evs {
			switch ev.Kind {
			case ecs.EventDestroyed:
				if wr.Destroyed(ev.Entity) {
					m.DelEnt(uint64(ev.Entity))
				} else if l.mirror.Alive(ev.Entity) {
					l.selfExpired = append(l.selfExpired, ev.Entity)
				}
			case ecs.EventRemoved:
				if wr.Removed(ev.Entity, ev.Component) {
					m.DelComp(uint64(ev.Entity), uint32(ev.Component))
				}
			}
		}
		w.ClearEvents()
		wr.Clock++
		if tick%2 != 0 {
			continue
		}
		if len(l.pending) >= 3 {
			for _, s := range l.pending[:len(l.pending)-2] {
				wr.Acked(s)
			}
			l.pending = l.pending[len(l.pending)-2:]
		}
		for more := true; more; {
			l.seq++
			var b []byte
			b, more = wr.AppendSnapshot(buf[:0], wire.MaxDatagram, l.seq)
			l.pending = append(l.pending, l.seq)
			for len(b) > 0 {
				var st wire.State
				n, err := st.Parse(b)
				if err != nil {
					l.t.Fatalf("tick %d: the snapshot does not parse: %v", tick, err)
				}
				for it := st.Records(); ; {
					rec, ok := it.Next()
					if !ok {
						break
					}
					for ci := rec.Components(); ; {
						id, _, ok := ci.Next()
						if !ok {
							break
						}
						l.records[id]++
					}
					if err := m.ApplyRecord(&rec, uint32(w.Tick())); err != nil {
						l.t.Fatalf("tick %d: the mirror refuses a record of entity %d: %v", tick, rec.Entity, err)
					}
				}
				b = b[n:]
			}
		}
		m.Advance(uint32(w.Tick()))
		check(tick)
	}
}

// TestTrackerAndMirrorAgree plays a seeded game through NewTracker and NewMirror: every entity
// the server places is on the client within DeadReckonPx (the tracker's dead-reckoning bound is
// the mirror's), the snapshots carry packed Spawn and Motion records and never the Position of
// an entity clients place themselves, and what the server drops without a DEL_ENT is, on the
// client, an entity SelfExpires deletes.
func TestTrackerAndMirrorAgree(t *testing.T) {
	l := newLink(t, 7)
	checked, expired := 0, 0
	l.run(60*game.TickRate, func(tick int) {
		w := l.sim.World()
		w.Each(func(e ecs.Entity) {
			p := l.c.Position.Get(e)
			if p == nil || !l.mirror.Alive(e) {
				return
			}
			mp := l.mc.Position.Get(e)
			if l.c.PlacedByClients(e) {
				return // the client computes it (game.AttachedForcePos, game.CrawlY)
			}
			if mp == nil {
				t.Fatalf("tick %d: entity %v has no Position on the client", tick, e)
			}
			if dx, dy := p.X-mp.X, p.Y-mp.Y; dx*dx+dy*dy > (DeadReckonPx+1e-3)*(DeadReckonPx+1e-3) {
				t.Fatalf("tick %d: entity %v at (%g, %g) on the client, (%g, %g) on the server: more than DeadReckonPx apart", tick, e, mp.X, mp.Y, p.X, p.Y)
			}
			checked++
		})
		for _, e := range l.selfExpired {
			if !l.mirror.Alive(e) {
				continue // a newer entity of its index reached the client first and replaced it
			}
			k, mp := l.mc.Kind.Get(e), l.mc.Position.Get(e)
			if k == nil || mp == nil {
				t.Fatalf("tick %d: entity %v, dropped without DEL_ENT, has no Kind or Position on the client", tick, e)
			}
			if !SelfExpires(*k, mp.X, mp.Y) {
				t.Fatalf("tick %d: the server dropped entity %v (%v) without DEL_ENT, but at (%g, %g) the client would keep it", tick, e, k.Kind, mp.X, mp.Y)
			}
			l.mirror.Destroy(e) // as the session does
			expired++
		}
		l.selfExpired = l.selfExpired[:0]
	})
	t.Logf("%d positions compared, %d self-expired, records %v", checked, expired, l.records)
	if checked < 1000 {
		t.Errorf("only %d entity positions compared in a minute of play: the game replicated too little to show anything", checked)
	}
	if expired == 0 {
		t.Error("no entity left the field in a minute of play: SelfExpires was never exercised")
	}
	if l.records[wire.CompSpawn] == 0 || l.records[wire.CompMotion] == 0 {
		t.Errorf("records sent %v: want packed Spawn (%d) and Motion (%d) records", l.records, wire.CompSpawn, wire.CompMotion)
	}
}

// TestSelfExpires: only kinds that expire outside the field (game.ExpiresOutsideField) expire,
// and only more than game.ExpirySlack px past the field's margin.
func TestSelfExpires(t *testing.T) {
	bullet := game.Kind{Kind: game.KindEnemyBullet}
	player := game.Kind{Kind: game.KindPlayer}
	if !game.ExpiresOutsideField(bullet.Kind) || game.ExpiresOutsideField(player.Kind) {
		t.Fatal("the test assumes enemy bullets expire outside the field and ships do not")
	}
	const far = 5000
	for _, tc := range []struct {
		k    game.Kind
		x, y float32
		want bool
	}{
		{bullet, game.Width / 2, game.Height / 2, false},
		{bullet, -far, game.Height / 2, true},
		{bullet, game.Width + far, 0, true},
		{bullet, 0, -far, true},
		{bullet, 0, game.Height + far, true},
		{player, -far, -far, false},
	} {
		if got := SelfExpires(tc.k, tc.x, tc.y); got != tc.want {
			t.Errorf("SelfExpires(%v, %g, %g) = %v, want %v", tc.k.Kind, tc.x, tc.y, got, tc.want)
		}
	}
}
