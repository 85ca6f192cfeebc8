package lobbyserver

import (
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/handoff"
	"github.com/rtype/rtype/net/metrics/logsample"
)

// Defaults applied by NewServer to zero ServerConfig fields (docs/PROTOCOL.md §2.3, the
// -max-lobbies, -max-conns ... flags of rtype-server, whose help and defaults read them).
const (
	DefaultMaxLobbies        = 64              // lobbies at once
	DefaultIdleTimeout       = 5 * time.Minute // a connection without a valid command for this long is closed
	DefaultMaxConns          = 1024            // connections at once
	DefaultMaxConnsPerAddr   = 16              // connections at once from one IP address
	DefaultMaxLobbiesPerAddr = 4               // lobbies owned at once by the connections of one IP address
	// DefaultMaxSpectatorsPerAddr is the spectators at once, in all lobbies, from one IP
	// address (its spectate calls in flight counted): one address cannot take a game's
	// spectator places (handoff.MaxSpectators), however often it joins again.
	DefaultMaxSpectatorsPerAddr = 2
	DefaultCommandRate          = 10               // lines per second per connection (in bursts of CommandBurstAt)
	DefaultAuthTimeout          = 10 * time.Second // a connection must AUTHENTICATE within this
)

// The hall-of-fame budget of one IP address (IPv6: per /64), all its connections together
// (docs/PROTOCOL.md §2.4.12): at most HallPerAddr questions (GET_SCORES, GET_GAMES,
// GET_REPLAY) at the database at once, and GET_SCORES and GET_GAMES at HallRate per second in
// bursts of HallBurst (GET_REPLAY's parts are not rated: a download is one question after
// the other). Over it the question is refused at once, without asking the database: one
// address cannot take the database's connections from the others (nor from recording).
const (
	HallPerAddr = 2
	HallRate    = 2
	HallBurst   = 10
)

// A replay download's GET_REPLAY lines are not counted against the command rate while the
// replay bytes of the address's connections stay within ReplayRate bytes per second in bursts
// of ReplayBurst (each part counted as scores.ReplayPartBytes): a download goes at the pace of
// the round trips (an 8 MiB replay in ~30 s rather than ~7 minutes at 10 lines a second);
// beyond, its lines are rated like any other.
const (
	ReplayRate  = 256 << 10
	ReplayBurst = 1 << 20
)

// FileReserve is how many file descriptors the server needs for what is not a lobby
// connection (listeners, the game socket, the admin address and its scrapes, logs): NewServer
// warns when MaxConns is above the process's file limit minus FileReserve.
const FileReserve = 64

// capConns is the most connections the server can hold under a file limit of nofile
// descriptors, and whether maxConns is above it.
func capConns(maxConns int, nofile uint64) (int, bool) {
	if nofile < FileReserve+1 {
		return 1, maxConns > 1
	}
	if avail := nofile - FileReserve; uint64(maxConns) > avail {
		return int(avail), true
	}
	return maxConns, false
}

// CommandBurst is how many lines a connection may send at once before its command rate
// applies, or two seconds' worth of that rate if more (CommandBurstAt).
const CommandBurst = 20

// CommandBurstAt is how many lines a connection may send at once under a command rate of rate
// lines per second: CommandBurst, or two seconds' worth of rate if more.
func CommandBurstAt(rate float64) int { return max(CommandBurst, int(2*rate)) }

// ChatBurst lines of chat may be sent at once; then one per ChatEvery
// (docs/PROTOCOL.md §2.4.9).
const (
	ChatBurst = 5
	ChatEvery = time.Second
)

// MaxRefused is how many lines in a row a connection may send over its command
// rate before the server closes it.
const MaxRefused = 50

// Limit names: the label of the rtype_lobby_limit_hits_total metric and the
// "limit" attribute of the log line.
const (
	LimitConns             = "conns"
	LimitConnsPerAddr      = "conns_per_addr"
	LimitLobbies           = "lobbies"
	LimitLobbiesPerAddr    = "lobbies_per_addr"
	LimitSpectatorsPerAddr = "spectators_per_addr"
	LimitHallPerAddr       = "hall_per_addr"
	LimitHallRate          = "hall_rate"
	LimitCommandRate       = "command_rate"
	LimitChatRate          = "chat_rate"
	LimitAuthTimeout       = "auth_timeout"
	LimitIdle              = "idle"
)

// Limits lists every limit name.
var Limits = []string{LimitConns, LimitConnsPerAddr, LimitLobbies, LimitLobbiesPerAddr, LimitSpectatorsPerAddr,
	LimitHallPerAddr, LimitHallRate, LimitCommandRate, LimitChatRate, LimitAuthTimeout, LimitIdle}

// Stats are the lobby server's figures for monitoring (net/metrics): gauges of
// the moment and counters since the server was created.
type Stats struct {
	Connections     int // open connections
	Unauthenticated int // ... of which have not sent AUTHENTICATE yet
	Lobbies         int // live lobbies
	LobbiesRunning  int // ... of which run a game
	Members         int // players in waiting lobbies
	Playing         int // players in lobbies that run a game

	Replies       map[int]uint64    // responses sent, by code (200, 401, 500)
	LimitHits     map[string]uint64 // requests or connections refused, by limit name (Limits)
	AcceptErrors  uint64            // failed Accept calls of the listener
	ConnsAccepted uint64
	ChatLines     uint64 // CHAT lines relayed
	Broadcasts    uint64 // BROADCAST pushes sent (one per Broadcast call)
}

// Open tells the Core that a connection was accepted from IP address from at now (counted
// per address, IPv6 per /64: addrKey). Over a connection limit, Open returns the one 500
// line to answer it with before closing it, and the Core forgets it; otherwise nil, and the
// connection's auth deadline starts.
func (c *Core) Open(now time.Duration, id ConnID, from netip.Addr) (refuse []byte) {
	c.stats.accepted.Add(1)
	if line := c.bannedAddr(now, from); line != nil {
		return line
	}
	addr := addrKey(from)
	limit, reason := "", ""
	switch {
	case len(c.conns) >= c.cfg.MaxConns:
		limit, reason = LimitConns, "server full: too many connections (max "+strconv.Itoa(c.cfg.MaxConns)+"), closing connection"
	case c.addrConns[addr] >= c.cfg.MaxConnsPerAddr:
		limit, reason = LimitConnsPerAddr, "too many connections from "+addr+" (max "+strconv.Itoa(c.cfg.MaxConnsPerAddr)+"), closing connection"
	}
	if limit != "" {
		c.limitHit(now, limit, addr, "lobby limit hit: connection refused")
		line, _ := lobby.AppendResponse(nil, lobby.Response{Code: lobby.CodeWrongRequest, Header: c.srv, Body: reason})
		return line
	}
	cs := &connState{id: id, addr: addr, ip: from.Unmap(),
		cmdRate:  rate.NewLimiter(rate.Limit(c.cfg.CommandRate), CommandBurstAt(c.cfg.CommandRate)),
		chatRate: rate.NewLimiter(rate.Every(ChatEvery), ChatBurst)}
	c.conns[id] = cs
	c.addrConns[addr]++
	c.log.Debug("lobby connection opened", "remote", addr)
	if c.cfg.AuthTimeout > 0 {
		c.setDeadline(cs, now, c.cfg.AuthTimeout)
	} else {
		c.setDeadline(cs, now, c.cfg.IdleTimeout)
	}
	return nil
}

// limitHit counts a hit of limit by address addr and logs it, once per burst.
func (c *Core) limitHit(now time.Duration, limit, addr, msg string, attrs ...any) {
	c.stats.limit(limit)
	c.bursts.hit(c.log, now, limit+" "+addr, msg, append([]any{"limit", limit, "remote", addr}, attrs...)...)
}

// Stats returns the Core's figures (see Stats).
func (c *Core) Stats() Stats {
	st := Stats{
		Replies:       map[int]uint64{lobby.CodeOK: c.stats.replies[0].Load(), lobby.CodeForbidden: c.stats.replies[1].Load(), lobby.CodeWrongRequest: c.stats.replies[2].Load()},
		LimitHits:     make(map[string]uint64, len(Limits)),
		AcceptErrors:  c.stats.acceptErrors.Load(),
		ConnsAccepted: c.stats.accepted.Load(),
		ChatLines:     c.stats.chat.Load(),
		Broadcasts:    c.stats.broadcasts.Load(),
		Connections:   len(c.conns),
		Lobbies:       len(c.lobbies),
	}
	for i, n := range Limits {
		st.LimitHits[n] = c.stats.limits[i].Load()
	}
	for _, cs := range c.conns {
		if !cs.authed {
			st.Unauthenticated++
		}
	}
	for _, l := range c.lobbies {
		if l.running() {
			st.LobbiesRunning++
			st.Playing += len(l.members)
		} else {
			st.Members += len(l.members)
		}
	}
	return st
}

// counters are the Stats counters.
type counters struct {
	replies      [3]atomic.Uint64  // 200, 401, 500
	limits       [11]atomic.Uint64 // by index in Limits
	acceptErrors atomic.Uint64
	accepted     atomic.Uint64
	chat         atomic.Uint64
	broadcasts   atomic.Uint64
}

func (k *counters) reply(code int) {
	switch code {
	case lobby.CodeOK:
		k.replies[0].Add(1)
	case lobby.CodeForbidden:
		k.replies[1].Add(1)
	default:
		k.replies[2].Add(1)
	}
}

func (k *counters) limit(name string) {
	for i, n := range Limits {
		if n == name {
			k.limits[i].Add(1)
		}
	}
}

// burstWindow is the shortest time between two log lines about the same
// limit and address: a flood logs one line per window, not one per request.
const burstWindow = 10 * time.Second

// burstLog logs the first event of a burst per key (logsample) and counts the others; their
// number is logged when the burst's window is over: by the next event for that key, or by
// flush, which Core.Tick calls every burstWindow (so the end of a flood is reported when it
// ends). The zero value is ready to use.
type burstLog struct {
	s *logsample.Sampler[string, burstLine]
}

// burstLine is a burst's line: its latest event's message and attributes.
type burstLine struct {
	msg   string
	attrs []any
}

func (b *burstLog) hit(log *slog.Logger, now time.Duration, key, msg string, attrs ...any) {
	if b.s == nil {
		b.s = logsample.New[string, burstLine](burstWindow)
	}
	if ok, before := b.s.Hit(now, key, burstLine{msg, attrs}); ok {
		log.Warn(msg, append(attrs, "repeats_not_logged", before.Skipped)...)
	}
}

// flush logs, for each burst whose window is over at now, the events that were not logged, and
// forgets it.
func (b *burstLog) flush(log *slog.Logger, now time.Duration) {
	if b.s == nil {
		return
	}
	b.s.Flush(now, func(_ string, r logsample.Report[burstLine]) {
		a := r.Last.attrs
		log.Warn(r.Last.msg, append(a[:len(a):len(a)], "repeats_not_logged", r.Skipped, "seconds", (now-r.Since).Seconds())...)
	})
}

// remoteIP is the IP address of a connection's peer (the zero Addr when it has none).
func remoteIP(nc net.Conn) netip.Addr {
	if a, ok := nc.RemoteAddr().(*net.TCPAddr); ok {
		return a.AddrPort().Addr().Unmap()
	}
	if ap, err := netip.ParseAddrPort(nc.RemoteAddr().String()); err == nil {
		return ap.Addr().Unmap()
	}
	return netip.Addr{}
}

// addrKey is the key of the per-address limits for a peer at ip (handoff.SourceNetwork), as the
// refusals name it: an IPv4 address ("192.0.2.7"), an IPv6 /64 ("2001:db8:1:2::/64");
// connections without an IP address share the key "".
func addrKey(ip netip.Addr) string {
	switch p := handoff.SourceNetwork(ip); {
	case !p.IsValid():
		return ""
	case p.Addr().Is4():
		return p.Addr().String()
	default:
		return p.String()
	}
}
