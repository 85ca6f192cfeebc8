//go:build !linux

package instance

import "time"

// waker is a no-op where there is no timerfd: the runtime's own timers wake the schedule.
type waker struct{}

func newWaker() *waker             { return nil }
func (w *waker) arm(time.Duration) {}
func (w *waker) close()            {}
