package bot

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/net/wire"
)

// hostileGame is the lobby's game: a UDP server in the test that welcomes the bot and then sends
// what its case says (docs/PROTOCOL.md §6 rule 9), until it is killed.
type hostileGame struct {
	conn   *net.UDPConn
	send   func(b []byte, tick uint32, n int) []byte // commands of the n-th datagram after WELCOME
	jump   uint32                                    // added to the header tick after WELCOME
	killed atomic.Bool
	done   chan struct{}
	wg     sync.WaitGroup
}

func (g *hostileGame) Port() int                                    { return int(g.conn.LocalAddr().(*net.UDPAddr).Port) }
func (g *hostileGame) Done() <-chan struct{}                        { return g.done }
func (g *hostileGame) Result() uint8                                { return 2 }
func (g *hostileGame) Drop(uuid.UUID, bool)                         {}
func (g *hostileGame) StartGame(lobby.GameSpec) (lobby.Game, error) { return g, nil }

func (g *hostileGame) run() {
	defer g.wg.Done()
	var buf [2048]byte
	n, from, err := g.conn.ReadFromUDPAddrPort(buf[:])
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
	for i := 0; !g.killed.Load(); i++ {
		_, _ = g.conn.WriteToUDPAddrPort(b, from)
		time.Sleep(time.Second / 120) // twice a real server's rate
		seq, tick = seq+1, tick+1
		if i == 10 {
			tick += g.jump
		}
		b = wire.Header{Token: h.Token, Tick: tick, Seq: seq, RelAck: 1}.Append(b[:0])
		if g.send != nil && i >= 10 {
			b = g.send(b, tick, i-10)
		}
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

// A bot playing on a hostile server (a real lobby whose game is a UDP server in the test) keeps
// its memory under 100 MB and its -timeout, whatever the server sends (issue 19): entities at
// huge indices, a header tick 2³¹−100 ahead, churn of entity generations; and it notices a killed
// server (lobby connection gone, game silent) within about a second. The peak heap of each case
// is logged (docs/BENCHMARKS.md).
func TestBotAgainstHostileServer(t *testing.T) {
	cat, err := game.LoadStageCatalogue("stage1")
	if err != nil {
		t.Fatal(err)
	}
	const bound = 100 << 20
	for _, tc := range []struct {
		name string
		send func(b []byte, tick uint32, n int) []byte
		jump uint32
		kill bool
	}{
		{name: "huge-indices", send: func(b []byte, _ uint32, n int) []byte {
			for k := 0; k < 30; k++ { // 30 new indices per datagram, from the top of ecs's range
				b = spawn(b, ent(uint32(ecs.MaxIndex-n*30-k), 1), game.KindEnemy, 900, 500)
			}
			return b
		}},
		{name: "tick-jump", jump: 1<<31 - 100}, // just short of a wrap of the input tick's target
		{name: "churn", send: func(b []byte, _ uint32, n int) []byte {
			for k := 0; k < 30; k++ { // 16 000 indices replaced by a newer generation in turn
				i := n*30 + k
				b = spawn(b, ent(uint32(10+i%16000), uint32(1+i/16000)), game.KindEnemy, 900, 500)
			}
			return b
		}},
		{name: "killed", kill: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.MustParseAddrPort("127.0.0.1:0")))
			if err != nil {
				t.Fatal(err)
			}
			g := &hostileGame{conn: conn, send: tc.send, jump: tc.jump, done: make(chan struct{})}
			g.wg.Add(1)
			go g.run()
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			srv := lobby.NewServer(lobby.ServerConfig{ServerUUID: uuid.New(), MaxLobbies: 8, IdleTimeout: time.Minute, Starter: g,
				Stages: cat, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			ctx, cancel := context.WithCancel(context.Background())
			var swg sync.WaitGroup
			swg.Add(1)
			go func() { defer swg.Done(); srv.Serve(ctx, ln) }()
			defer func() {
				g.killed.Store(true)
				conn.Close()
				g.wg.Wait()
				close(g.done)
				cancel()
				swg.Wait()
			}()

			base := heapNow()
			var peak atomic.Uint64
			stop := make(chan struct{})
			var mwg sync.WaitGroup
			mwg.Add(1)
			go func() {
				defer mwg.Done()
				var ms runtime.MemStats
				for {
					runtime.ReadMemStats(&ms)
					if ms.HeapAlloc > peak.Load() {
						peak.Store(ms.HeapAlloc)
					}
					select {
					case <-stop:
						return
					case <-time.After(20 * time.Millisecond):
					}
				}
			}()
			const timeout = 3 * time.Second
			type outcome struct {
				res []Result
				err error
			}
			out := make(chan outcome, 1)
			started := time.Now()
			go func() {
				res, err := Run(context.Background(), Config{Server: ln.Addr().String(), Players: 1, Timeout: timeout,
					Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, nil)
				out <- outcome{res, err}
			}()
			var killedAt time.Time
			if tc.kill {
				time.Sleep(time.Second)
				killedAt = time.Now()
				g.killed.Store(true)
				cancel()
			}
			var o outcome
			select {
			case o = <-out:
			case <-time.After(timeout + 5*time.Second):
				close(stop)
				t.Fatalf("the bot ignored its %v timeout (still running after %v)", timeout, time.Since(started))
			}
			close(stop)
			mwg.Wait()
			if d := time.Since(started); d > timeout+2*time.Second {
				t.Errorf("the bot returned %v after its start, past its %v timeout", d.Round(time.Millisecond), timeout)
			}
			grown := int64(peak.Load()) - int64(base)
			t.Logf("peak heap %.1f MB above the start (%.1f MB in all); result %+v after %v",
				float64(grown)/(1<<20), float64(peak.Load())/(1<<20), resultOf(o.res), time.Since(started).Round(time.Millisecond))
			if grown > bound {
				t.Errorf("the bot's heap grew by %.0f MB, want under %d MB", float64(grown)/(1<<20), bound>>20)
			}
			if tc.kill {
				if len(o.res) != 1 || o.res[0].Result != "disconnected" {
					t.Errorf("after the kill: %+v, want disconnected", resultOf(o.res))
				}
				if d := time.Since(killedAt); d > 2500*time.Millisecond {
					t.Errorf("the bot took %v to notice the killed server, want about 1 s", d)
				}
			}
		})
	}
}

func heapNow() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func resultOf(rs []Result) string {
	if len(rs) == 0 {
		return "none"
	}
	return rs[0].Result + " " + rs[0].Error
}
