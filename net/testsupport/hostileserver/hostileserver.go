// Package hostileserver is test support: a real lobby (lobbyserver.Server) whose game is a hostile UDP
// server, for the tests of the clients that join strangers' servers (the bot, net/bot; the
// rtype-client binary, game/client) against the cases of issue 19 (docs/PROTOCOL.md §6 rule 9).
// The game welcomes the first client that sends it a datagram, then sends what its Case says at
// twice a real server's rate until it is killed; it never ends the game itself.
package hostileserver

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby/handoff"
	"github.com/rtype/rtype/lobby/lobbyserver"
	"github.com/rtype/rtype/net/wire"
)

// Rate is the hostile game's datagrams per second: twice a real server's.
const Rate = 2 * game.TickRate

// Case is one hostile behaviour of the game server.
type Case struct {
	Name string
	// Send appends the commands of the n-th datagram after the 10 that follow WELCOME (nil: none).
	Send func(b []byte, tick uint32, n int) []byte
	// Jump is added to the header tick after those 10 datagrams.
	Jump uint32
	// Kill: the test kills the server (Server.Kill) while the client plays.
	Kill bool
	// Lasts is the least time a client must play for the case to do what it is for (0: a
	// second or two is enough).
	Lasts time.Duration
}

// churnIndices are the indices the churn case places, then replaces by a newer generation.
const churnIndices = 16000

// Cases are the hostile cases of issue 19: 30 new entities per datagram from the top of ecs's
// index range down; a header tick 2³¹−100 ahead (just short of a wrap of the input tick's
// target); churn of 16 000 indices replaced by a newer generation in turn (Churn; placing them
// takes 4.5 s); the server killed.
func Cases() []Case {
	return []Case{
		{Name: "huge-indices", Send: func(b []byte, _ uint32, n int) []byte {
			for k := 0; k < 30; k++ {
				b = spawn(b, ent(uint32(ecs.MaxIndex-n*30-k), 1), game.KindEnemy, 900, 500)
			}
			return b
		}},
		{Name: "tick-jump", Jump: 1<<31 - 100},
		{Name: "churn", Send: Churn(churnIndices), Lasts: (churnIndices/30 + 10 + Rate) * time.Second / Rate}, // all placed, then 1 s of replacements
		{Name: "killed", Kill: true},
	}
}

// ChurnPerDatagram is how many entities each datagram of Churn places.
const ChurnPerDatagram = 30

// Churn is the Send of the churn case over indices entity indices (10 up): each datagram places
// the next ChurnPerDatagram of them with a newer generation than the last time round, so once
// all are placed every entity is replaced by a new one. Even datagrams carry one ENTITY per
// entity, odd ones a single STATE (docs/PROTOCOL.md §3.4.10): both forms are churned. A
// virtual-time test feeds it straight into a client core (net/session).
func Churn(indices int) func(b []byte, tick uint32, n int) []byte {
	return func(b []byte, _ uint32, n int) []byte {
		if n%2 == 1 {
			var start int
			b, start = wire.BeginState(b)
			for k := 0; k < ChurnPerDatagram; k++ {
				i := n*ChurnPerDatagram + k
				b = wire.AppendRecordHead(b, uint64(ent(uint32(10+i%indices), uint32(1+i/indices))), wire.MaskOf(wire.CompSpawn))
				b = append(b, byte(game.KindEnemy), 0)
				b, _ = wire.AppendMotion(b, 900, 500, -60, 0)
			}
			return wire.EndState(b, start)
		}
		for k := 0; k < ChurnPerDatagram; k++ {
			i := n*ChurnPerDatagram + k
			b = spawn(b, ent(uint32(10+i%indices), uint32(1+i/indices)), game.KindEnemy, 900, 500)
		}
		return b
	}
}

func spawn(b []byte, e ecs.Entity, kind game.EntityKind, x, y float32) []byte {
	b, start := wire.BeginEntity(b, uint64(e))
	b = wire.AppendComponentHeader(b, wire.CompSpawn, wire.ComponentSize(wire.CompSpawn))
	b = append(b, byte(kind), 0)
	b, _ = wire.AppendMotion(b, x, y, -60, 0)
	return wire.EndEntity(b, start, 1)
}

func ent(index, gen uint32) ecs.Entity { return ecs.Entity(uint64(gen)<<32 | uint64(index)) }

// Server is a real lobby on loopback whose every game is the hostile UDP game of its Case.
type Server struct {
	c      Case
	conn   *net.UDPConn
	ln     net.Listener
	killed atomic.Bool
	sent   atomic.Int64
	done   chan struct{}
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once
}

// Start starts the game's UDP socket and the lobby (stage catalogue stagefile.Default) on 127.0.0.1.
func Start(c Case) (*Server, error) {
	cat, err := stagefile.LoadCatalogue(stagefile.Default, game.ParseScript)
	if err != nil {
		return nil, err
	}
	conn, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.MustParseAddrPort("127.0.0.1:0")))
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		conn.Close()
		return nil, err
	}
	s := &Server{c: c, conn: conn, ln: ln, done: make(chan struct{})}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := lobbyserver.NewServer(lobbyserver.ServerConfig{ServerUUID: uuid.New(), MaxLobbies: 8, IdleTimeout: time.Minute,
		Starter: starter{s}, Stages: cat, Logger: quiet})
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	s.wg.Add(2)
	go s.run()
	go func() { defer s.wg.Done(); _ = srv.Serve(ctx, ln) }()
	return s, nil
}

// Addr is the lobby's TCP address.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Sent is the number of datagrams the game has sent (a loaded machine sends fewer than Rate a
// second: a test that needs the whole case waits for Case.Lasts × Rate of them).
func (s *Server) Sent() int64 { return s.sent.Load() }

// Kill is kill -9 of the server: the game stops sending and the lobby closes its listener and
// every connection (each client sees a reset).
func (s *Server) Kill() {
	s.killed.Store(true)
	s.cancel()
}

// Close kills the server and waits for its goroutines.
func (s *Server) Close() {
	s.Kill()
	s.conn.Close()
	s.once.Do(func() { close(s.done) })
	s.wg.Wait()
}

// starter is the lobby's handoff.Starter: every START gets the one hostile game.
type starter struct{ s *Server }

func (st starter) StartGame(handoff.GameSpec) (handoff.Game, error) {
	if st.s.killed.Load() {
		return nil, errors.New("hostileserver: killed")
	}
	return hostileGame(st), nil
}

// hostileGame is the handoff.Game: it never ends by itself (Done is closed by Close).
type hostileGame struct{ s *Server }

func (g hostileGame) Port() int             { return g.s.conn.LocalAddr().(*net.UDPAddr).Port }
func (g hostileGame) Done() <-chan struct{} { return g.s.done }
func (g hostileGame) Result() uint8         { return 2 }
func (g hostileGame) Drop(uuid.UUID, bool)  {}

// run welcomes the first datagram's sender (its header's token) and sends until killed.
func (s *Server) run() {
	defer s.wg.Done()
	var buf [2048]byte
	n, from, err := s.conn.ReadFromUDPAddrPort(buf[:])
	if err != nil {
		return
	}
	var h wire.Header
	if _, err := wire.Open(buf[:n], &h); err != nil {
		return
	}
	seq, tick := uint16(1), uint32(100)
	b := wire.Header{Token: h.Token, Tick: tick, Seq: seq}.Append(make([]byte, 0, wire.MaxDatagram))
	b = wire.Rel{ID: 1}.Append(b)
	b = wire.Welcome{Entity: 1<<32 | 1, Slot: 0, Tick: tick, TickRate: game.TickRate}.Append(b)
	next := time.Now()
	for i := 0; !s.killed.Load(); i++ {
		_, _ = s.conn.WriteToUDPAddrPort(b, from)
		s.sent.Add(1)
		// on a schedule, not a sleep per datagram: a loaded machine oversleeps each one (down
		// to 50 a second under -race at load 10); behind by more than 1/4 s, start again
		next = next.Add(time.Second / Rate)
		if d := time.Until(next); d > 0 {
			time.Sleep(d)
		} else if d < -time.Second/4 {
			next = time.Now()
		}
		seq, tick = seq+1, tick+1
		if i == 10 {
			tick += s.c.Jump
		}
		b = wire.Header{Token: h.Token, Tick: tick, Seq: seq, RelAck: 1}.Append(b[:0])
		if s.c.Send != nil && i >= 10 {
			b = s.c.Send(b, tick, i-10)
		}
	}
}
