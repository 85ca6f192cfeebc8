package instance

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// waker makes the runtime wake up at the moment the schedule's next slot is due. When every
// goroutine of the server waits, the Go runtime sleeps in epoll_wait until its next timer, and
// epoll_wait's timeout counts whole milliseconds: a timer due in 0.5 ms fires after 1 ms. The
// slots are 0.52 ms apart, so an idle moment would start the next slot's games up to 1 ms late
// (most of the lateness left at 300 games per core, docs/BENCHMARKS.md). A timerfd armed for the
// same moment is an event that epoll_wait returns on at once (hrtimer precision); the runtime then
// runs its due timers. The timerfd sits in the runtime's poller (os.NewFile of a non-blocking
// descriptor) and one goroutine reads its expirations (left unread, the edge-triggered poller
// missed some: 1 wake-up in 1 000 came more than 2 ms late). nil (no timerfd) wakes nothing.
type waker struct {
	f  *os.File
	fd int
}

func newWaker() *waker {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil
	}
	w := &waker{f: os.NewFile(uintptr(fd), "timerfd"), fd: fd}
	go func() {
		var b [8]byte
		for {
			if _, err := w.f.Read(b[:]); err != nil {
				return // closed
			}
		}
	}()
	return w
}

// arm wakes the runtime d from now (once; a later arm replaces it).
func (w *waker) arm(d time.Duration) {
	if w == nil || d <= 0 {
		return
	}
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	_ = unix.TimerfdSettime(w.fd, 0, &spec, nil)
}

func (w *waker) close() {
	if w != nil {
		_ = w.f.Close()
	}
}
