package session

import (
	"math"

	"github.com/rtype/rtype/net/replication"
)

// interpSamples is how many position samples an entity keeps.
const interpSamples = 16

type sample struct {
	tick uint32
	x, y float32
}

type track struct {
	gen uint32
	n   int // samples held (≤ interpSamples)
	s   [interpSamples]sample
}

// Interpolator keeps, per entity index (at most replication.MaxEntityIndex: 3.4 MB at most), the recent server positions (tick-stamped) and answers
// where an entity is at a fractional render tick, interpolating between the two samples around
// it and holding the newest one past the end (never extrapolating). Snapshot interpolation,
// docs/PROTOCOL.md §5.
type Interpolator struct {
	tracks []track
}

// Add records that entity (index, gen) was at (x, y) virtual px at server tick t. Samples older
// than the newest are inserted in order; a sample after a long silence (the entity stood still,
// so nothing was sent) gets a copy of the previous position one snapshot earlier, so the entity
// does not drift across the gap.
func (ip *Interpolator) Add(index, gen, t uint32, x, y float32, gapTicks uint32) {
	if index > replication.MaxEntityIndex {
		return // no such entity in a mirror: the table is bounded by the mirror's limit
	}
	if int(index) >= len(ip.tracks) {
		ip.tracks = append(ip.tracks, make([]track, int(index)+1-len(ip.tracks))...)
	}
	tr := &ip.tracks[index]
	if tr.gen != gen {
		*tr = track{gen: gen}
	}
	if tr.n > 0 {
		last := tr.s[tr.n-1]
		if int32(t-last.tick) > int32(gapTicks) && gapTicks > 0 {
			ip.push(tr, sample{tick: t - gapTicks, x: last.x, y: last.y})
		}
	}
	ip.push(tr, sample{tick: t, x: x, y: y})
}

func (ip *Interpolator) push(tr *track, s sample) {
	// find insertion point (samples ascending by tick)
	i := tr.n
	for i > 0 && int32(tr.s[i-1].tick-s.tick) >= 0 {
		if tr.s[i-1].tick == s.tick {
			tr.s[i-1] = s
			return
		}
		i--
	}
	if tr.n == interpSamples {
		if i == 0 {
			return // older than everything kept
		}
		copy(tr.s[:], tr.s[1:i])
		i--
		tr.s[i] = s
		return
	}
	copy(tr.s[i+1:tr.n+1], tr.s[i:tr.n])
	tr.s[i] = s
	tr.n++
}

// Forget drops an entity's samples.
func (ip *Interpolator) Forget(index uint32) {
	if int(index) < len(ip.tracks) {
		ip.tracks[index] = track{}
	}
}

// At returns the interpolated position of entity (index, gen) at render tick rt; ok is false
// when there is no sample. Before the first sample it holds the first, after the newest it holds
// the newest.
func (ip *Interpolator) At(index, gen uint32, rt float64) (x, y float32, ok bool) {
	if int(index) >= len(ip.tracks) {
		return 0, 0, false
	}
	tr := &ip.tracks[index]
	if tr.gen != gen || tr.n == 0 {
		return 0, 0, false
	}
	first := tr.s[0]
	if rt <= float64(first.tick) {
		return first.x, first.y, true
	}
	for i := 1; i < tr.n; i++ {
		b := tr.s[i]
		if rt <= float64(b.tick) {
			a := tr.s[i-1]
			f := float32((rt - float64(a.tick)) / float64(b.tick-a.tick))
			return a.x + (b.x-a.x)*f, a.y + (b.y-a.y)*f, true
		}
	}
	l := tr.s[tr.n-1]
	return l.x, l.y, true
}

// Unborn reports whether entity (index, gen) did not exist yet at render tick rt: its first
// sample is later. A renderer hides it until then, so that a spawn appears at the moment it
// happened on the server's timeline (the rest of the world is drawn that far behind too).
func (ip *Interpolator) Unborn(index, gen uint32, rt float64) bool {
	if int(index) >= len(ip.tracks) {
		return false
	}
	tr := &ip.tracks[index]
	return tr.gen == gen && tr.n > 0 && rt < float64(tr.s[0].tick)-0.5
}

// RenderClock is the fractional server tick at which remote entities are drawn: it advances with
// local time, steered gently (±10 %) toward newest-tick-minus-delay so it never steps backwards,
// and snaps only when more than a second off.
type RenderClock struct {
	t     float64
	valid bool
}

// Advance moves the clock by dt seconds toward target (a fractional tick) and returns it.
func (c *RenderClock) Advance(dt, target float64) float64 {
	if !c.valid || math.Abs(target-c.t) > 60 {
		c.t, c.valid = target, true
		return c.t
	}
	rate := 1 + (target-c.t)*0.05
	rate = min(max(rate, 0.9), 1.1)
	c.t += dt * 60 * rate
	return c.t
}
