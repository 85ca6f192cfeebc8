package server

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rtype/rtype/game/buildinfo"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/net/agones"
	"github.com/rtype/rtype/net/instance"
)

// Port names of the Fleet's GameServer template (deploy/k8s/fleet.json): the UDP port players
// send to (by default "default", the name Agones gives a GameServer's single port and uses in
// its examples; -agones-port names another) and the TCP control port the lobby dials.
const (
	AgonesGamePort    = "default"
	AgonesControlPort = "control"
)

// AgonesAddressTimeout bounds the wait for the GameServer's address and ports at start.
const AgonesAddressTimeout = 2 * time.Minute

// agonesHost is a host's life as an Agones GameServer.
type agonesHost struct {
	sdk        *agones.SDK
	log        *slog.Logger
	host       string // status.address
	port       int    // status.ports[game]: the host port players reach
	counter    *agones.CounterSync
	mu         sync.Mutex
	life       agones.Lifecycle
	steps      chan agones.Step
	cancel     context.CancelFunc
	done       chan struct{}
	healthDone chan struct{}
	lifeDone   chan struct{}
}

// newAgonesHost reads the address and UDP port to advertise from the GameServer's status.
func newAgonesHost(ctx context.Context, cfg Config, log *slog.Logger) (*agonesHost, error) {
	var sdk *agones.SDK
	if cfg.Fleet.AgonesSDK != "" {
		sdk = agones.NewSDK(cfg.Fleet.AgonesSDK, log)
	} else {
		var err error
		if sdk, err = agones.SDKFromEnv(log); err != nil {
			return nil, err
		}
	}
	actx, cancel := context.WithTimeout(ctx, AgonesAddressTimeout)
	defer cancel()
	portName := cfg.Fleet.AgonesPort
	if portName == "" {
		portName = AgonesGamePort
	}
	host, port, err := agones.Address(actx, sdk, portName)
	if err != nil {
		return nil, err
	}
	log.Info("agones: the GameServer's address", "address", host, "udp_port", port, "port_name", portName)
	return &agonesHost{sdk: sdk, log: log, host: host, port: port, counter: agones.NewCounterSync(sdk, agones.CounterGames, log),
		life: agones.Lifecycle{RecycleAfter: cfg.Fleet.AgonesRecycleAfter}, steps: make(chan agones.Step, 1)}, nil
}

// games is told of every change of the host's busy count (busy: its games and the ends it
// holds for an away lobby, runHost), ended of every game that ended: the lifecycle's step, if
// any, goes to the goroutine that talks to the sidecar (the latest one wins: an older step
// still queued is dropped). busy is read under a.mu: of two changes told at once, the
// lifecycle is left with the later count, not with whichever call came last.
func (a *agonesHost) games(busy func() int) {
	a.mu.Lock()
	step := a.life.Games(busy())
	a.mu.Unlock()
	a.do(step)
}
func (a *agonesHost) ended() { a.mu.Lock(); step := a.life.Ended(); a.mu.Unlock(); a.do(step) }

func (a *agonesHost) do(step agones.Step) {
	if step == agones.Stay {
		return
	}
	select {
	case a.steps <- step:
	default:
		select {
		case <-a.steps:
		default:
		}
		select {
		case a.steps <- step:
		default:
		}
	}
}

// backToReady makes the emptied GameServer Ready again once it is Allocated with the games
// counter at 0 and nothing busy (running: the games running and the ends held for an away
// lobby). The counter lags the host (CounterSync sends the new count
// a moment later) and an allocation in flight has incremented it for a game still to come: so
// while it is above 0 the check is made again every ReadyRecheck, up to ReadyWait (the sync's
// refresh corrects an increment whose game never came); a game that starts meanwhile ends it.
func (a *agonesHost) backToReady(ctx context.Context, running func() int) {
	deadline := time.Now().Add(ReadyWait)
	for {
		if running() > 0 {
			return // busy again: it stays Allocated
		}
		gs, err := a.sdk.GameServer(ctx)
		if err != nil {
			a.log.Warn("agones: GameServer not read; stays as it is", "err", err)
			return
		}
		if gs.Status.State != "Allocated" {
			return
		}
		if gs.Status.Counters[agones.CounterGames].Count == 0 {
			if err := a.sdk.Ready(ctx); err != nil {
				a.log.Warn("agones: the emptied GameServer could not be made Ready again", "err", err)
				return
			}
			a.log.Info("agones: GameServer empty, Ready again (the fleet may scale it down or roll it over)")
			return
		}
		if time.Now().After(deadline) {
			a.log.Warn("agones: an emptied GameServer's games counter stays above 0; it stays Allocated", "count", gs.Status.Counters[agones.CounterGames].Count)
			return
		}
		t := time.NewTimer(ReadyRecheck)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// How backToReady waits for the games counter to come down to 0.
const (
	ReadyRecheck = 250 * time.Millisecond
	ReadyWait    = 15 * time.Second
)

// runLifecycle carries out the lifecycle's steps until ctx ends: BackToReady calls SDK Ready
// when the GameServer is Allocated and its games counter is 0 (an allocation that came in
// meanwhile has incremented it: the host stays Allocated); Recycle stops taking games
// (rtype-accepting=false), waits for the games to end, and calls SDK Shutdown (Agones then
// stops the pod, whose SIGTERM ends the process).
func (a *agonesHost) runLifecycle(ctx context.Context, running func() int, stopTaking func()) {
	for {
		select {
		case <-ctx.Done():
			return
		case step := <-a.steps:
			switch step {
			case agones.BackToReady:
				a.backToReady(ctx, running)
			case agones.Recycle:
				a.log.Info("agones: recycling after its games", "recycle_after", a.life.RecycleAfter)
				stopTaking()
				a.drain()
				if err := a.sdk.Shutdown(ctx); err != nil {
					a.log.Warn("agones: recycle shutdown failed", "err", err)
					continue
				}
				a.log.Info("agones: Shutdown sent (recycle)")
				return
			}
		}
	}
}

// start sets the games counter's capacity, the labels, marks the GameServer Ready and starts
// the health pings (while the tick schedule is alive), the counter's sync and the lifecycle
// (busy: what keeps the host Allocated, the games running and the ends held for an away lobby).
func (a *agonesHost) start(ctx context.Context, capacity int, stages *stagefile.Catalogue, mgr *instance.Manager, busy func() int, stopTaking func()) error {
	c, zero := agones.Int64(capacity), agones.Int64(0)
	if _, err := a.sdk.UpdateCounter(ctx, agones.CounterGames, agones.CounterUpdate{Count: &zero, Capacity: &c}); err != nil {
		return fmt.Errorf("counter %s: %w", agones.CounterGames, err)
	}
	for k, v := range map[string]string{"rtype-version": buildinfo.Get(), "rtype-stages": strings.Join(stages.Names(), "."), agones.LabelAccepting: "true"} {
		if err := a.sdk.SetLabel(ctx, k, agones.LabelValue(v)); err != nil {
			a.log.Warn("agones label not set", "key", k, "err", err)
		}
	}
	if err := a.sdk.Ready(ctx); err != nil {
		return err
	}
	a.log.Info("agones: GameServer Ready", "capacity", capacity)
	rctx, cancel := context.WithCancel(context.Background())
	a.cancel, a.done, a.healthDone, a.lifeDone = cancel, make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() { defer close(a.done); a.counter.Run(rctx) }()
	go func() { defer close(a.lifeDone); a.runLifecycle(rctx, busy, stopTaking) }()
	var gate agones.TickGate
	go func() {
		defer close(a.healthDone)
		agones.RunHealth(rctx, a.sdk, agones.DefaultHealthPeriod, func() bool { return gate.Alive(mgr.Stats().Ticks, mgr.Running()) }, a.log)
	}()
	return nil
}

// drain makes the allocator pass the host over (LabelAccepting false): it takes no new game.
func (a *agonesHost) drain() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := a.sdk.SetLabel(ctx, agones.LabelAccepting, "false"); err != nil {
		a.log.Warn("agones: the draining label was not set", "err", err)
	}
}

// stop ends the pings and the counter's sync (its last value sent) and asks Agones to shut
// the GameServer down.
func (a *agonesHost) stop() {
	if a.cancel != nil {
		a.cancel()
		<-a.done
		<-a.healthDone
		<-a.lifeDone
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := a.sdk.Shutdown(ctx); err != nil {
		a.log.Warn("agones shutdown failed", "err", err)
		return
	}
	a.log.Info("agones: Shutdown sent")
}

// allocate is a lobby's way to its hosts on Agones: one allocation per game, the host's
// control address from the answer's address and port named AgonesControlPort.
func allocate(fc FleetConfig, log *slog.Logger) func(ctx context.Context) (string, error) {
	al := agones.NewAllocator(fc.Allocator, fc.Namespace, fc.FleetName, fc.AllocatorTLS, log)
	return func(ctx context.Context) (string, error) {
		r, err := al.Allocate(ctx)
		if err != nil {
			return "", err
		}
		for _, p := range r.Ports {
			if p.Name == AgonesControlPort {
				log.Debug("agones: allocated", "gameserver", r.GameServerName, "address", r.Address, "control_port", p.Port)
				return net.JoinHostPort(r.Address, strconv.Itoa(p.Port)), nil
			}
		}
		return "", fmt.Errorf("allocated GameServer %s has no port named %q", r.GameServerName, AgonesControlPort)
	}
}
