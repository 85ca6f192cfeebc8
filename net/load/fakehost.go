package load

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/lobby/handoff"
	"github.com/rtype/rtype/net/fleet"
)

// FakeHostsConfig configures FakeHosts.
type FakeHostsConfig struct {
	// Hosts is the number of fake game hosts.
	Hosts int
	// Listen is the IP address their control ports listen on (port 0 each; default 127.0.0.1).
	Listen string
	// Secret is the control secret (RTYPE_CONTROL_SECRET), the lobby's.
	Secret []byte
	// Capacity is each host's games at once (0: fleet.DefaultCapacity).
	Capacity int
	// GameLength is how long each fake game lasts before it ends as a defeat (default 1 s).
	GameLength time.Duration
	Logger     *slog.Logger
}

// FakeHosts serves cfg.Hosts lightweight game hosts until ctx is done: each is a real control
// endpoint (fleet.Host: the handshake, the encrypted frames, the heartbeats, load, start, drop
// and ended, docs/CONTROL.md) over a game runtime that runs no game — a started game binds no
// socket, names UDP port 9 (discard) and ends after GameLength. A lobby fronting them does
// exactly the work it does for real hosts (rtype-load -fake-hosts, docs/BENCHMARKS.md); what
// they cost is the generator's, not the lobby's. ready gets the control addresses (a -hosts
// value) once every host listens.
func FakeHosts(ctx context.Context, cfg FakeHostsConfig, ready func(hosts []string)) error {
	if cfg.Hosts < 1 {
		return fmt.Errorf("load: -fake-hosts %d", cfg.Hosts)
	}
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1"
	}
	if cfg.GameLength <= 0 {
		cfg.GameLength = time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if err := fleet.CheckAuth(cfg.Secret, nil); err != nil {
		return err
	}
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	var addrs []string
	for range cfg.Hosts {
		ln, err := net.Listen("tcp", net.JoinHostPort(cfg.Listen, "0"))
		if err != nil {
			return fmt.Errorf("load: fake host: %w", err)
		}
		lns = append(lns, ln)
		addrs = append(addrs, ln.Addr().String())
	}
	var wg sync.WaitGroup
	for _, ln := range lns {
		h := fleet.NewHost(fleet.HostConfig{Secret: cfg.Secret, Starter: fakeRuntime{cfg.GameLength}, Capacity: cfg.Capacity,
			Logger: cfg.Logger.With("fake_host", ln.Addr().String())})
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := h.Serve(ctx, ln); err != nil && !errors.Is(err, net.ErrClosed) {
				cfg.Logger.Warn("fake host stopped", "err", err)
			}
		}()
	}
	if ready != nil {
		ready(addrs)
	}
	<-ctx.Done()
	wg.Wait()
	return nil
}

// fakeRuntime is a fake host's game runtime (lobby.Starter): games that end on their own.
type fakeRuntime struct{ length time.Duration }

func (r fakeRuntime) StartGame(spec handoff.GameSpec) (handoff.Game, error) {
	g := &fakeHostGame{done: make(chan struct{})}
	time.AfterFunc(r.length, g.end)
	return g, nil
}

// fakeHostGame is a game of a fake host: no socket, no simulation.
type fakeHostGame struct {
	done chan struct{}
	once sync.Once
}

func (g *fakeHostGame) Port() int             { return 9 } // discard: nobody plays
func (g *fakeHostGame) Done() <-chan struct{} { return g.done }
func (g *fakeHostGame) Result() uint8         { return 0 }
func (g *fakeHostGame) Drop(uuid.UUID, bool)  {}
func (g *fakeHostGame) end()                  { g.once.Do(func() { close(g.done) }) }
func (g *fakeHostGame) Abort()                { g.end() }
