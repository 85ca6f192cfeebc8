package ecs

// System is one step of the simulation, run by a [Scheduler] once per tick.
type System interface {
	// Name identifies the system in logs and profiles.
	Name() string
	// Update runs the system on w for the current tick.
	Update(w *World)
}

// Scheduler runs systems in the order they were added. The zero value is
// an empty scheduler ready to use.
type Scheduler struct {
	systems []System
}

// Add appends sys; it runs after every system added before it. Add panics
// if sys is nil (programming error).
func (s *Scheduler) Add(sys System) {
	if sys == nil {
		panic("ecs: Scheduler.Add: nil system")
	}
	s.systems = append(s.systems, sys)
}

// Systems returns the systems in run order (owned by the scheduler: do not
// modify).
func (s *Scheduler) Systems() []System { return s.systems }

// Run calls Update(w) on every system in Add order. It does not advance the
// world tick (the caller calls w.Advance once per step).
func (s *Scheduler) Run(w *World) {
	for _, sys := range s.systems {
		sys.Update(w)
	}
}
