package load

import (
	"context"
	"encoding/binary"
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/net/transport"
	"github.com/rtype/rtype/net/wire"
)

// FloorConfig configures FloorServe.
type FloorConfig struct {
	Listen string // UDP address host:port
	// Batch reads and writes with recvmmsg/sendmmsg (transport.BatchConn), as the game server
	// does; otherwise one system call per datagram.
	Batch bool
	// DownRate is the datagrams sent to each client per second (default 32: a game server's
	// 30 snapshots plus pongs and the odd second datagram), DownSize their size in bytes
	// (default 130).
	DownRate float64
	DownSize int
	Logger   *slog.Logger
}

// FloorServe is the raw-UDP floor: one socket, a reader that notes each client (by the header's
// token) and a 60 Hz schedule that sends every client DownRate datagrams of DownSize bytes a
// second, with the datagram header and nothing else done. Driven by Run in Floor mode with the
// game's datagram counts, its CPU time is what the datagrams alone cost. It serves until ctx is
// done.
func FloorServe(ctx context.Context, cfg FloorConfig) error {
	if cfg.DownRate <= 0 {
		cfg.DownRate = 32
	}
	if cfg.DownSize <= 0 {
		cfg.DownSize = 130
	}
	cfg.DownSize = min(max(cfg.DownSize, wire.HeaderSize), wire.MaxDatagram)
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	sock, err := transport.ListenUDP(cfg.Listen)
	if err != nil {
		return err
	}
	var bc *transport.BatchConn
	if cfg.Batch {
		bc = transport.NewBatchConn(sock)
	}
	cfg.Logger.Info("floor server listening", "udp", sock.LocalAddr().String(), "batch", cfg.Batch,
		"down_rate", cfg.DownRate, "down_size", cfg.DownSize)
	type client struct {
		addr netip.AddrPort
		seq  uint16
		acc  float64
	}
	var mu sync.Mutex
	clients := map[uint32]*client{}
	var in, out uint64
	handle := func(b []byte, from netip.AddrPort) {
		if len(b) < wire.HeaderSize {
			return
		}
		token := binary.LittleEndian.Uint32(b[4:8])
		mu.Lock()
		in++
		c := clients[token]
		if c == nil {
			c = &client{}
			clients[token] = c
		}
		c.addr = from
		mu.Unlock()
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		if bc != nil {
			bc.ReadLoop(quit, handle)
			return
		}
		var buf [2048]byte
		transport.ReadLoop(sock, buf[:], quit, handle)
	}()
	go func() {
		defer wg.Done()
		var ob transport.Outbox
		var bw *transport.BatchWriter
		if bc != nil {
			bw = bc.NewWriter()
		}
		buf := make([]byte, 0, wire.MaxDatagram)
		t := time.NewTicker(game.TickPeriod)
		defer t.Stop()
		// Ticks the loop woke too late for are run at once (up to 5), as the game server's
		// schedule does, so the floor keeps DownRate on a busy machine.
		epoch := time.Now()
		tick := uint32(0)
		for {
			select {
			case <-quit:
				return
			case <-t.C:
			}
			due := uint32(time.Since(epoch) / game.TickPeriod)
			if due-tick > 5 {
				tick = due - 5
			}
			for ; tick < due; tick++ {
				mu.Lock()
				for token, c := range clients {
					for c.acc += cfg.DownRate / game.TickRate; c.acc >= 1; c.acc-- {
						c.seq++
						b := wire.Header{Token: token, Tick: tick + 1, Seq: c.seq}.Append(buf[:0])
						b = b[:cfg.DownSize]
						if bw != nil {
							ob.Put(b, c.addr)
						} else {
							_, _ = sock.WriteTo(b, c.addr)
						}
						out++
					}
				}
				mu.Unlock()
				if bw != nil && ob.Len() > 0 {
					bw.Flush(&ob)
				}
			}
		}
	}()
	<-ctx.Done()
	close(quit)
	_ = sock.Close()
	wg.Wait()
	cfg.Logger.Info("floor server stopped", "clients", len(clients), "datagrams_in", in, "datagrams_out", out)
	return nil
}
