package agones

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// DefaultHealthPeriod is how often a host pings /health while its tick schedule is alive:
// well within the Fleet's health.periodSeconds (deploy/k8s/fleet.json: 5 s, failureThreshold 3).
const DefaultHealthPeriod = 2 * time.Second

// PortWait bounds how long Address waits for a port named portName once the GameServer has an
// address and ports: Agones sets them together when the pod is scheduled, so a status with
// ports but none of that name is a misconfiguration (the Fleet names its port otherwise), not
// a late sidecar.
const PortWait = 10 * time.Second

func (s *SDK) portWait() time.Duration {
	if s.PortWait > 0 {
		return s.PortWait
	}
	return PortWait
}

// ErrNoSuchPort is Address's error when the GameServer's ports have none of the name asked for.
var ErrNoSuchPort = errors.New("agones: the GameServer has no port of that name")

// Address is where a GameServer's players reach it: status.address and the port of status.ports
// named portName (Agones maps a dynamic host port to the container's port: this is the host
// port, never the one the process binds). It asks GET /gameserver until both are set (the
// sidecar may start late; the address comes once the pod is scheduled) or ctx ends; when the
// status has an address and ports but none named portName for PortWait, it fails with
// ErrNoSuchPort and the names it has.
func Address(ctx context.Context, sdk *SDK, portName string) (host string, port int, err error) {
	wait := sdk.c.backoff.First
	var portsSince time.Time // when the status first had an address and ports without portName
	logged := time.Time{}
	for {
		gs, err := sdk.GameServer(ctx)
		if err != nil {
			return "", 0, err
		}
		p := gs.Status.PortByName(portName)
		if gs.Status.Address != "" && p > 0 {
			return gs.Status.Address, p, nil
		}
		now := time.Now()
		if gs.Status.Address != "" && len(gs.Status.Ports) > 0 {
			if portsSince.IsZero() {
				portsSince = now
			}
			if now.Sub(portsSince) >= sdk.portWait() {
				return "", 0, fmt.Errorf("%w: %q, its ports are %s (name the Fleet's UDP port %q or pass that name to -agones-port)",
					ErrNoSuchPort, portName, strings.Join(gs.Status.PortNames(), ", "), portName)
			}
		}
		if now.Sub(logged) >= 10*time.Second {
			sdk.c.log.Info("agones: waiting for the GameServer's address and port", "port_name", portName, "state", gs.Status.State,
				"address", gs.Status.Address, "ports", strings.Join(gs.Status.PortNames(), ","))
			logged = now
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return "", 0, fmt.Errorf("agones: GameServer status has no address or no port named %q: %w", portName, ctx.Err())
		case <-t.C:
		}
		wait = min(2*wait, sdk.c.backoff.Max)
	}
}

// TickGate decides, once per health period, whether the host is healthy: its tick schedule
// moved since the previous period, or it has no game to tick (an idle schedule sleeps). A
// wedged schedule — games but no tick for a whole period — stops the health pings, and Agones
// replaces the GameServer. Pure: the caller passes the schedule's tick count and the games.
type TickGate struct {
	last uint64
	seen bool
}

// Alive is called once per period with the schedule's ticks and the running games.
func (g *TickGate) Alive(ticks uint64, games int) bool {
	moved := !g.seen || ticks != g.last
	g.last, g.seen = ticks, true
	return moved || games == 0
}

// RunHealth pings /health every period while alive() says so, until ctx ends. A failed ping
// is logged (the next period tries again: the calls themselves retry within the period).
func RunHealth(ctx context.Context, sdk *SDK, period time.Duration, alive func() bool, log *slog.Logger) {
	if period <= 0 {
		period = DefaultHealthPeriod
	}
	t := time.NewTicker(period)
	defer t.Stop()
	stopped := false
	for {
		if alive() {
			if stopped {
				log.Info("agones health pings resume: the tick schedule moves again")
				stopped = false
			}
			pctx, cancel := context.WithTimeout(ctx, period)
			if err := sdk.Health(pctx); err != nil && ctx.Err() == nil {
				log.Warn("agones health ping failed", "err", err)
			}
			cancel()
		} else if !stopped {
			log.Error("agones health pings stop: the tick schedule has not moved for a health period with games running")
			stopped = true
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// CounterSync keeps a counter's count equal to the host's games: Set records the value, Run
// sends it (the latest only, when it changed) and sends it again every Refresh, which also
// corrects an allocation's increment for a game that never arrived.
type CounterSync struct {
	SDK     *SDK
	Name    string
	Refresh time.Duration // 0: 5 s
	Log     *slog.Logger

	mu      sync.Mutex
	want    int
	changed chan struct{}
}

// NewCounterSync returns a CounterSync of counter name.
func NewCounterSync(sdk *SDK, name string, log *slog.Logger) *CounterSync {
	return &CounterSync{SDK: sdk, Name: name, Log: log, changed: make(chan struct{}, 1)}
}

// Set records the count to send.
func (c *CounterSync) Set(n int) {
	c.mu.Lock()
	c.want = n
	c.mu.Unlock()
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

// Run sends the count until ctx ends (then once more, with a short bound, so that the last
// value — 0 after a drain — is the counter's).
func (c *CounterSync) Run(ctx context.Context) {
	refresh := c.Refresh
	if refresh <= 0 {
		refresh = 5 * time.Second
	}
	t := time.NewTicker(refresh)
	defer t.Stop()
	sent := -1
	send := func(ctx context.Context, force bool) {
		c.mu.Lock()
		n := c.want
		c.mu.Unlock()
		if n == sent && !force {
			return
		}
		v := Int64(n)
		if _, err := c.SDK.UpdateCounter(ctx, c.Name, CounterUpdate{Count: &v}); err != nil {
			if ctx.Err() == nil {
				c.Log.Warn("agones counter update failed", "counter", c.Name, "count", n, "err", err)
			}
			return
		}
		sent = n
	}
	for {
		select {
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.Background(), time.Second)
			send(fctx, false)
			cancel()
			return
		case <-c.changed:
			send(ctx, false)
		case <-t.C:
			send(ctx, true)
		}
	}
}
