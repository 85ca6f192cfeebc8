// Package metrics is the rtype server's Prometheus registry (github.com/prometheus/client_golang):
// the TCP lobby's figures (lobbyserver.Server.Stats) and the game runtime's (net/instance.Manager: games,
// UDP traffic, drops by reason, reliable resends, tick lateness), read at each scrape, plus the Go
// runtime and process collectors. The server serves it on its opt-in admin address (-admin,
// net/server); docs/HOSTING.md "Operating a server" lists the names.
package metrics

import (
	"math"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/rtype/rtype/game/buildinfo"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/lobbyserver"
	"github.com/rtype/rtype/lobby/scores/scoredb"
	"github.com/rtype/rtype/net/fleet"
	"github.com/rtype/rtype/net/instance"
	"github.com/rtype/rtype/net/metrics/hist"
)

// Registry holds every metric of one server.
type Registry struct {
	reg   *prometheus.Registry
	games *gameCollector
}

// New returns the registry of a server made of the lobby lob and the game runtime mgr. The game
// runtime's counters include the games that have ended only if GameEnded is called with each of
// them (net/server chains it into instance.Config.OnGameEnd). A split server has one of the
// two (rtype-server -role lobby: lob only; -role host: mgr only): a nil one's metrics are left
// out.
func New(lob *lobbyserver.Server, mgr *instance.Manager) *Registry {
	r := &Registry{reg: prometheus.NewRegistry(), games: &gameCollector{mgr: mgr, ended: map[*instance.Instance]bool{}}}
	build := prometheus.NewGauge(prometheus.GaugeOpts{Name: "rtype_build_info",
		Help:        "Always 1: the server's version (-version, stamped at build time) and Go version as labels.",
		ConstLabels: prometheus.Labels{"version": buildinfo.Get(), "goversion": runtime.Version()}})
	build.Set(1)
	r.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), build)
	if lob != nil {
		r.reg.MustRegister(&lobbyCollector{lob: lob})
	}
	if mgr != nil {
		r.reg.MustRegister(r.games)
	}
	return r
}

// WatchHall adds the hall of fame's figures (lobby/scoredb.Hall.Stats, read at each scrape):
// games recorded, record failures, games not kept, replays pruned, the queue and the replay
// bytes stored.
func (r *Registry) WatchHall(stats func() scoredb.Stats) {
	r.reg.MustRegister(&hallCollector{stats: stats})
}

var (
	descRecorded   = desc("rtype_scores_games_recorded_total", "Finished games stored in the hall of fame (row committed, replay file written).")
	descRecFail    = desc("rtype_scores_record_failures_total", "Failed attempts to store a finished game (the database or the data directory failed; each retry counts).")
	descRecDropped = desc("rtype_scores_games_dropped_total", "Finished games not kept: the recording queue was full, or the database refused the game.")
	descPruned     = desc("rtype_scores_replays_pruned_total", "Replay files removed by retention (-keep-days, -keep-bytes).")
	descRecQueue   = desc("rtype_scores_queue", "Finished games waiting to be stored.")
	descRecBytes   = desc("rtype_scores_replay_bytes", "Bytes of the replay files kept in the data directory.")
	descRecFailing = desc("rtype_scores_failing", "1 while recording is stopped (the latest attempt to store a game failed), else 0.")
	descUnverified = desc("rtype_scores_games_unverified_total", "Finished games kept out of the hall of fame because their replay does not reproduce them (hashes or results differ).")
	descVerified   = desc("rtype_scores_games_verified_total", "Finished games whose replay was played to its end and reproduced them before they were stored.")
	descVerifyTime = desc("rtype_scores_verify_seconds_total", "Time spent replaying finished games to verify them (the recorder goroutine's, one game at a time).")
)

type hallCollector struct{ stats func() scoredb.Stats }

func (c *hallCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descRecorded, descRecFail, descRecDropped, descPruned, descRecQueue, descRecBytes, descRecFailing, descUnverified, descVerified, descVerifyTime} {
		ch <- d
	}
}

func (c *hallCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.stats()
	counter := func(d *prometheus.Desc, v uint64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v))
	}
	gauge := func(d *prometheus.Desc, v float64) { ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v) }
	counter(descRecorded, st.Recorded)
	counter(descRecFail, st.Failures)
	counter(descRecDropped, st.Dropped)
	counter(descPruned, st.Pruned)
	gauge(descRecQueue, float64(st.Queued))
	gauge(descRecBytes, float64(st.ReplayBytes))
	failing := 0.0
	if st.Failing {
		failing = 1
	}
	gauge(descRecFailing, failing)
	counter(descUnverified, st.Unverified)
	counter(descVerified, st.Verified)
	ch <- prometheus.MustNewConstMetric(descVerifyTime, prometheus.CounterValue, st.VerifyTime.Seconds())
}

// WatchFleet adds the lobby's view of its game hosts (net/fleet.Remote.Hosts, read at each
// scrape): whether each is up, suspect (it missed a start's deadline lately) and how many
// times it was, its games, capacity and drain as it last reported them, and the starts it
// refused or failed.
func (r *Registry) WatchFleet(hosts func() []fleet.HostView) {
	r.reg.MustRegister(&fleetCollector{hosts: hosts})
}

var (
	descHostUp        = desc("rtype_fleet_host_up", "1 while the lobby's control connection to the game host is up, else 0.", "host")
	descHostSuspect   = desc("rtype_fleet_host_suspect", "1 while the game host is suspect (it missed a start's deadline lately: starts go to other hosts first), else 0.", "host")
	descHostSuspected = desc("rtype_fleet_host_suspected_total", "Starts the game host did not answer within the per-host deadline (each made it suspect).", "host")
	descHostGames     = desc("rtype_fleet_host_games", "Games running on the game host, as it last reported them.", "host")
	descHostCapacity  = desc("rtype_fleet_host_capacity", "Games the game host takes at once, as it last reported them.", "host")
	descHostDraining  = desc("rtype_fleet_host_draining", "1 while the game host drains (it takes no new game), else 0.", "host")
	descHostFailed    = desc("rtype_fleet_host_start_failures_total", "Starts (and Agones allocations) the game host refused or failed: full, draining, a bad stage, its connection lost (its misses are rtype_fleet_host_suspected_total).", "host")
)

type fleetCollector struct{ hosts func() []fleet.HostView }

func (c *fleetCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- descHostUp
	ch <- descHostSuspect
	ch <- descHostSuspected
	ch <- descHostGames
	ch <- descHostCapacity
	ch <- descHostDraining
	ch <- descHostFailed
}

func (c *fleetCollector) Collect(ch chan<- prometheus.Metric) {
	b := func(v bool) float64 {
		if v {
			return 1
		}
		return 0
	}
	for _, h := range c.hosts() {
		ch <- prometheus.MustNewConstMetric(descHostUp, prometheus.GaugeValue, b(h.Up), h.Addr)
		ch <- prometheus.MustNewConstMetric(descHostSuspect, prometheus.GaugeValue, b(h.Suspect), h.Addr)
		ch <- prometheus.MustNewConstMetric(descHostSuspected, prometheus.CounterValue, float64(h.Suspected), h.Addr)
		ch <- prometheus.MustNewConstMetric(descHostGames, prometheus.GaugeValue, float64(h.Load.Games), h.Addr)
		ch <- prometheus.MustNewConstMetric(descHostCapacity, prometheus.GaugeValue, float64(h.Load.Capacity), h.Addr)
		ch <- prometheus.MustNewConstMetric(descHostDraining, prometheus.GaugeValue, b(h.Load.Draining), h.Addr)
		ch <- prometheus.MustNewConstMetric(descHostFailed, prometheus.CounterValue, float64(h.Failed), h.Addr)
	}
}

// GameEnded adds the final figures of an ended game to the runtime's totals.
func (r *Registry) GameEnded(in *instance.Instance) { r.games.gameEnded(in) }

// Handler serves the metrics in the Prometheus exposition format (GET /metrics).
func (r *Registry) Handler() http.Handler {
	return promhttp.HandlerFor(r.reg, promhttp.HandlerOpts{Registry: r.reg})
}

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, labels, nil)
}

var (
	descConns        = desc("rtype_lobby_connections", "Open TCP lobby connections.")
	descUnauth       = desc("rtype_lobby_connections_unauthenticated", "Open lobby connections that have not sent AUTHENTICATE yet.")
	descAccepted     = desc("rtype_lobby_connections_accepted_total", "Lobby connections accepted (refused ones included).")
	descAcceptErrors = desc("rtype_lobby_accept_errors_total", "Failed accepts of the lobby listener (e.g. EMFILE: out of file descriptors).")
	descLobbies      = desc("rtype_lobbies", "Live lobbies, by state (waiting, running).", "state")
	descPlayers      = desc("rtype_players", "Players in lobbies, by state of their lobby (waiting, running: in game).", "state")
	descReplies      = desc("rtype_lobby_replies_total", "Lobby responses sent, by code (200, 401, 500).", "code")
	descLimitHits    = desc("rtype_lobby_limit_hits_total", "Requests or connections refused by a limit, by limit (docs/PROTOCOL.md §2.3).", "limit")
	descChat         = desc("rtype_lobby_chat_lines_total", "CHAT lines relayed.")
	descBroadcasts   = desc("rtype_lobby_broadcasts_total", "Operator broadcasts sent.")

	descGames       = desc("rtype_games", "Running game instances.")
	descSpectators  = desc("rtype_spectators", "Spectators watching running games.")
	descDatagrams   = desc("rtype_udp_datagrams_total", "UDP datagrams of games, by direction (in, out).", "direction")
	descBytes       = desc("rtype_udp_bytes_total", "UDP bytes of games, by direction (in, out).", "direction")
	descResends     = desc("rtype_reliable_resends_total", "Reliable commands sent again (docs/PROTOCOL.md §5.1).")
	descDropped     = desc("rtype_udp_dropped_total", "Datagrams dropped, by reason (instance.DropReasons: the wire's validation reasons, then unknown_token, ended, rate, address, response, gone, panic).", "reason")
	descKernelDrops = desc("rtype_udp_kernel_drops_total", "Datagrams the kernel dropped at the game socket before the server read them (its receive buffer was full: the server is not keeping up; Linux only).")
	descPlayersGone = desc("rtype_game_players_dropped_total", "Players dropped from a game before its end (left, silent, never said HERE).")
	descLateness    = desc("rtype_tick_lateness_seconds", "How late the 60 Hz tick schedule fires (time past each tick's due moment).")
	descDuration    = desc("rtype_tick_duration_seconds", "How long a game tick takes to run (simulation step, replication and snapshots to every client).")
	descOverruns    = desc("rtype_tick_overruns_total", "Ticks a game skipped because it fell more than 5 ticks behind.")
)

// lobbyCollector reads lobbyserver.Server.Stats at each scrape.
type lobbyCollector struct{ lob *lobbyserver.Server }

func (c *lobbyCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descConns, descUnauth, descAccepted, descAcceptErrors, descLobbies, descPlayers,
		descReplies, descLimitHits, descChat, descBroadcasts} {
		ch <- d
	}
}

func (c *lobbyCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.lob.Stats()
	gauge := func(d *prometheus.Desc, v int, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(v), labels...)
	}
	counter := func(d *prometheus.Desc, v uint64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	gauge(descConns, st.Connections)
	gauge(descUnauth, st.Unauthenticated)
	counter(descAccepted, st.ConnsAccepted)
	counter(descAcceptErrors, st.AcceptErrors)
	gauge(descLobbies, st.Lobbies-st.LobbiesRunning, "waiting")
	gauge(descLobbies, st.LobbiesRunning, "running")
	gauge(descPlayers, st.Members, "waiting")
	gauge(descPlayers, st.Playing, "running")
	for _, code := range []int{lobby.CodeOK, lobby.CodeForbidden, lobby.CodeWrongRequest} {
		counter(descReplies, st.Replies[code], strconv.Itoa(code))
	}
	for _, l := range lobbyserver.Limits {
		counter(descLimitHits, st.LimitHits[l], l)
	}
	counter(descChat, st.ChatLines)
	counter(descBroadcasts, st.Broadcasts)
}

// gameTotals are the cumulative figures of a set of games.
type gameTotals struct {
	dgIn, dgOut, bytesIn, bytesOut, resends, gone uint64
}

func (t *gameTotals) add(in *instance.Instance) {
	for _, p := range in.Stats() {
		t.dgIn += p.DatagramsIn
		t.dgOut += p.DatagramsOut
		t.bytesIn += p.BytesIn
		t.bytesOut += p.BytesOut
		t.resends += p.Resends
		if p.Gone {
			t.gone++
		}
	}
}

// gameCollector reads the Manager's live instances at each scrape and adds the totals of the
// games that ended (gameEnded), so that its counters never go down.
type gameCollector struct {
	mgr *instance.Manager

	mu    sync.Mutex
	ended map[*instance.Instance]bool // ended, still in the Manager's live set
	total gameTotals                  // of every ended game
}

func (c *gameCollector) gameEnded(in *instance.Instance) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended[in] {
		return
	}
	c.ended[in] = true
	c.total.add(in)
}

func (c *gameCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descGames, descSpectators, descDatagrams, descBytes, descResends, descDropped, descKernelDrops, descPlayersGone,
		descLateness, descDuration, descOverruns} {
		ch <- d
	}
}

// latenessBounds are the upper bounds (seconds) of the tick lateness histogram's buckets.
var latenessBounds = []float64{0.0005, 0.001, 0.002, 0.004, 0.008, 1.0 / 60, 0.033, 0.05}

func (c *gameCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	t := c.total
	live := c.mgr.Instances()
	running := 0
	seen := make(map[*instance.Instance]bool, len(live))
	for _, in := range live {
		seen[in] = true
		if !c.ended[in] {
			t.add(in)
			running++
		}
	}
	for in := range c.ended {
		if !seen[in] {
			delete(c.ended, in) // gone from the live set: its figures stay in total
		}
	}
	c.mu.Unlock()

	counter := func(d *prometheus.Desc, v uint64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	ch <- prometheus.MustNewConstMetric(descGames, prometheus.GaugeValue, float64(running))
	ch <- prometheus.MustNewConstMetric(descSpectators, prometheus.GaugeValue, float64(c.mgr.Spectators()))
	counter(descDatagrams, t.dgIn, "in")
	counter(descDatagrams, t.dgOut, "out")
	counter(descBytes, t.bytesIn, "in")
	counter(descBytes, t.bytesOut, "out")
	counter(descResends, t.resends)
	counter(descPlayersGone, t.gone)
	drops := c.mgr.Drops() // the runtime's and every game's, ended ones included
	for i, name := range instance.DropReasons {
		counter(descDropped, drops[i], name)
	}
	if k, ok := c.mgr.KernelDrops(); ok {
		counter(descKernelDrops, k)
	}

	l := c.mgr.TickLateness()
	n, buckets := histogram(l, latenessBounds)
	ch <- prometheus.MustNewConstHistogram(descLateness, n, l.Sum.Seconds(), buckets)
	counter(descOverruns, c.mgr.Overruns())
	d := c.mgr.TickDuration()
	n, buckets = histogram(d, durationBounds)
	ch <- prometheus.MustNewConstHistogram(descDuration, n, d.Sum.Seconds(), buckets)
}

// durationBounds are the upper bounds (s) of rtype_tick_duration_seconds: a game tick takes
// tens of µs; the 16.7 ms tick period is the last bound.
var durationBounds = []float64{10e-6, 25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2e-3, 5e-3, 16.7e-3}

// histogram turns a runtime histogram into the count and cumulative buckets of a Prometheus
// histogram with the given upper bounds (s).
func histogram(s hist.Snapshot, bounds []float64) (uint64, map[float64]uint64) {
	ds := make([]time.Duration, len(bounds))
	for i, b := range bounds {
		ds[i] = time.Duration(math.Round(b * float64(time.Second)))
	}
	cum := s.Cumulative(ds)
	buckets := make(map[float64]uint64, len(bounds))
	for i, b := range bounds {
		buckets[b] = cum[i]
	}
	return s.N(), buckets
}
