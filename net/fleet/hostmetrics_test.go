package fleet

import (
	"errors"
	"testing"
	"testing/synctest"
)

// TestHostViewCountsFailedStarts: a host that fails a start (its runtime refuses it) has it
// counted in its view (rtype_fleet_host_start_failures_total), beside its games and capacity
// as it reported them; the host that took the game next counts none, and neither missed one.
func TestHostViewCountsFailedStarts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		bad := startHostWith(t, &fakeStarter{port: 9001, err: errors.New("no UDP port free")}, 3, "")
		good := startHost(t, 2, 9002, "")
		r := startRemote(t, bad.addr, good.addr)
		eventually(t, "both hosts up", func() bool { return r.Up() == 2 && freeOf(r) == 5 })
		// bad is the freer: it is tried first, fails, and good takes the game.
		if _, err := r.StartGame(spec("ABCDE", 1)); err != nil {
			t.Fatalf("start: %v", err)
		}
		eventually(t, "good's load", func() bool { return r.Hosts()[1].Load.Games == 1 })
		vb, vg := r.Hosts()[0], r.Hosts()[1]
		if vb.Failed != 1 || vb.Load.Capacity != 3 || vb.Load.Games != 0 || vb.Suspected != 0 {
			t.Fatalf("failing host's view %+v: want 1 failed start, capacity 3, no game, no miss", vb)
		}
		if vg.Failed != 0 || vg.Load.Capacity != 2 || vg.Suspected != 0 {
			t.Fatalf("good host's view %+v: want no failed start, capacity 2, no miss", vg)
		}
	})
}
