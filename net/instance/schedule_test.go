package instance

import (
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/lobby/handoff"
	"github.com/rtype/rtype/net/transport"
)

// vsched is the runtime's schedule in virtual time: a Manager with no socket and no goroutine
// whose clock is now, its scheduler stepped at each slot's moment, and a pool of simulated
// workers that take the dispatched jobs in order. A job of a game in hold keeps its worker
// (a tick that runs long); any other runs at once.
type vsched struct {
	t        *testing.T
	m        *Manager
	s        scheduler
	now      time.Duration
	queue    []job
	workers  []*vworker
	hold     map[*Instance]bool
	steps    int // steps of the schedule (wake-ups)
	dispatch map[*Instance]int
	idle     bool
}

type vworker struct {
	start *atomic.Int64 // as Manager.worker keeps it: when its job started, 0 between jobs
	job   *job
}

func newVsched(t *testing.T, workers int) *vsched {
	t.Helper()
	stage, err := game.LoadStage("short")
	if err != nil {
		t.Fatal(err)
	}
	v := &vsched{t: t, now: time.Second, hold: map[*Instance]bool{}, dispatch: map[*Instance]int{}}
	v.m = newManager(Config{Stage: stage, Workers: workers, HereTimeout: time.Hour, Logger: slog.New(slog.DiscardHandler)})
	v.m.clock = func() time.Duration { return v.now }
	v.s.next = v.now + slotPeriod
	for range workers {
		v.addWorker()
	}
	return v
}

func (v *vsched) addWorker() {
	w := &vworker{start: new(atomic.Int64)}
	v.m.jobStart.Store(w.start, struct{}{})
	v.m.workers.Add(1)
	v.workers = append(v.workers, w)
}

func (v *vsched) start(code string) *Instance {
	v.t.Helper()
	g, err := v.m.StartGame(handoff.GameSpec{Code: code, Members: members(2)})
	if err != nil {
		v.t.Fatal(err)
	}
	return g.(*Instance)
}

// work lets the free workers take the queued jobs (those of held games keep their worker).
func (v *vsched) work() {
	for _, w := range v.workers {
		for w.job == nil && len(v.queue) > 0 {
			j := v.queue[0]
			v.queue = v.queue[1:]
			if v.hold[j.in] {
				w.job = &j
				w.start.Store(int64(v.now))
				continue
			}
			v.m.late.Add(v.now - j.due)
			v.runJob(j)
		}
	}
}

func (v *vsched) runJob(j job) {
	var out transport.Outbox
	j.in.run(j.sched, &out)
	j.in.busy.Store(false)
}

// release ends the held job of in (its long tick is over).
func (v *vsched) release(in *Instance) {
	delete(v.hold, in)
	for _, w := range v.workers {
		if w.job != nil && w.job.in == in {
			v.runJob(*w.job)
			w.job = nil
			w.start.Store(0)
		}
	}
	v.work()
}

// resume wakes the idle schedule (StartGame's kick).
func (v *vsched) resume() {
	v.idle = false
	v.s.resume(v.now)
}

// advance steps the schedule at every slot moment up to d of virtual time from now.
func (v *vsched) advance(d time.Duration) {
	end := v.now + d
	for !v.idle && v.s.next <= end {
		v.now = max(v.now, v.s.next)
		st := v.s.step(v.m, v.now, func(j job) bool {
			v.dispatch[j.in]++
			v.queue = append(v.queue, j)
			return true
		})
		v.steps++
		if st.addWorker {
			v.addWorker()
		}
		v.work()
		v.idle = st.idle // asleep until a game starts (resume)
	}
	v.now = end
}

func simTick(in *Instance) (k uint32) {
	in.View(func(s *game.Sim) { k = uint32(s.Tick()) })
	return k
}

// A game whose tick holds the server's one worker does not stall the other games: at the next
// schedule tick every worker counts as held (StuckTick) and one worker is added, which runs the
// others at every tick from then on; the held game is not handed out again meanwhile, and
// once its tick ends it catches up at most MaxCatchUp ticks and skips the rest (an overrun).
func TestScheduleSlowGameDoesNotStallOthers(t *testing.T) {
	v := newVsched(t, 1)
	slow, fine := v.start("SLOW"), v.start("FINE")
	v.hold[slow] = true
	v.advance(time.Second)
	if n := v.m.Stats().ExtraWorkers; n != 1 {
		t.Fatalf("%d extra workers while the one worker was held for 1 s, want 1 (the extra one is not held)", n)
	}
	if k := simTick(fine); k < game.TickRate-2 {
		t.Fatalf("the other game ran %d ticks in 1 s beside a held game, want %d", k, game.TickRate)
	}
	if n := v.dispatch[slow]; n != 1 {
		t.Fatalf("the held game was handed out %d times, want once (busy: skipped)", n)
	}
	v.release(slow)
	v.advance(game.TickPeriod)
	if k := simTick(slow); k != 1+MaxCatchUp {
		t.Fatalf("the slow game is at tick %d after its long tick, want 1 + MaxCatchUp = %d", k, 1+MaxCatchUp)
	}
	if n := v.m.Stats().Overruns; n != 1 {
		t.Fatalf("%d overruns, want 1", n)
	}
	if got, want := slow.ticks, fine.ticks; got != want {
		t.Fatalf("the slow game's schedule is at %d, the other's at %d: it did not skip ahead", got, want)
	}
	extras := v.m.Stats().ExtraWorkers
	v.advance(time.Second)
	if n := v.m.Stats().ExtraWorkers; n != extras {
		t.Fatalf("%d workers added with no worker held", n-extras)
	}
}

// A server without games sleeps: its schedule goes idle after slot 0 and issues no tick until a
// game starts; then it ticks 60 times a second, waking only for slot 0 and the slots that have
// games (GamesPerSlot), and every game runs every tick.
func TestScheduleIdleSleeps(t *testing.T) {
	v := newVsched(t, 2)
	v.advance(time.Second)
	if !v.idle || v.m.Stats().Ticks != 1 || v.steps != 1 {
		t.Fatalf("no game: idle %v after %d ticks, %d wake-ups; want idle after 1", v.idle, v.m.Stats().Ticks, v.steps)
	}
	v.advance(time.Minute) // asleep
	if v.m.Stats().Ticks != 1 {
		t.Fatalf("an idle server ticked %d times", v.m.Stats().Ticks)
	}
	var games []*Instance
	for i := range GamesPerSlot + 1 {
		games = append(games, v.start("G"+string(rune('A'+i))))
	}
	v.resume()
	v.steps = 0
	t0 := v.m.Stats().Ticks
	v.advance(time.Second - time.Microsecond)
	if n := v.m.Stats().Ticks - t0; n != game.TickRate {
		t.Fatalf("%d ticks in 1 s with games, want %d", n, game.TickRate)
	}
	if v.steps != 2*game.TickRate {
		t.Fatalf("%d wake-ups in 1 s for %d games, want 2 per tick (slot 0 and the one the games opened)", v.steps, len(games))
	}
	for _, in := range games {
		if in.ticks != uint64(game.TickRate) {
			t.Fatalf("game %s ran %d ticks, want %d", in.code, in.ticks, game.TickRate)
		}
	}
}

// A schedule that was itself starved (the process did not run for a second) issues one tick
// when it runs again and resumes from then, instead of issuing the 60 it missed at once; each
// game catches up at most MaxCatchUp of them.
func TestScheduleStarvedSkipsAhead(t *testing.T) {
	v := newVsched(t, 1)
	in := v.start("LATE")
	v.advance(time.Second / 2)
	ticks := v.m.Stats().Ticks
	v.now = v.s.next + time.Second // starved
	st := v.s.step(v.m, v.now, func(j job) bool { v.queue = append(v.queue, j); return true })
	v.work()
	if st.idle || v.m.Stats().Ticks != ticks+1 || v.s.next != v.now+slotPeriod {
		t.Fatalf("after a starved second: %d ticks issued, next slot in %v; want 1 and one slot period", v.m.Stats().Ticks-ticks, v.s.next-v.now)
	}
	if v.m.Stats().Overruns != 0 || in.ticks != ticks+1-in.base {
		t.Fatalf("the game is at schedule tick %d (%d overruns), want %d", in.ticks, v.m.Stats().Overruns, ticks+1-in.base)
	}
}
