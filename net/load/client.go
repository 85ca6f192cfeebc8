package load

import (
	"net/netip"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/net/metrics/hist"
	"github.com/rtype/rtype/net/session"
	"github.com/rtype/rtype/net/transport"
	"github.com/rtype/rtype/net/wire"
)

// seatState is where a load client's session stands.
type seatState uint8

const (
	seatIdle     seatState = iota // no session (between games, before the first START)
	seatHello                     // HERE sent, no WELCOME yet
	seatPlaying                   // WELCOME received
	seatEnding                    // GAME_END received: acknowledging for session.EndAckTime
	seatDone                      // the game ended normally (GAME_END delivered)
	seatAbnormal                  // the session ended without GAME_END (BYE, silence, no WELCOME)
)

// seat is one lightweight load client: the protocol a player's session speaks (HERE until WELCOME,
// INPUT every tick stamped ahead by the RTT, PING every second, acknowledgements of everything,
// the reliable channel in order), with scripted buttons and no mirror world: snapshots are
// validated and counted, not applied. Pure core like session.Client: Receive and Tick with the
// time now, datagrams left in the group's Outbox. Counters are cumulative over the seat's games.
type seat struct {
	slot   int
	floor  bool // raw-UDP floor: no lobby, no protocol beyond the header
	token  uint32
	id     uuid.UUID
	server netip.AddrPort

	state    seatState
	why      string // seatAbnormal: why
	ep       transport.Endpoint
	started  time.Duration
	lastHere time.Duration
	pingAt   time.Duration
	endAt    time.Duration
	servTick uint32
	servAt   time.Duration
	haveTick bool
	inTick   uint32
	inputs   [16]struct {
		tick uint32
		b    game.Buttons
	}

	dgIn, dgOut, bytesIn, bytesOut, snaps uint64
	rtt                                   *hist.Histogram
	buf                                   [wire.MaxDatagram]byte
}

// begin starts a new session (a START push: token and the game's UDP address) at now.
func (s *seat) begin(now time.Duration, token uint32, id uuid.UUID, server netip.AddrPort) {
	s.token, s.id, s.server = token, id, server
	s.state, s.why = seatHello, ""
	s.ep = transport.Endpoint{}
	s.started, s.lastHere, s.pingAt = now, now-time.Hour, now
	s.haveTick, s.servTick, s.inTick = false, 0, 0
	s.inputs = [16]struct {
		tick uint32
		b    game.Buttons
	}{}
	if s.floor {
		s.state = seatPlaying
	}
}

// active reports whether the seat has a session that is not over.
func (s *seat) active() bool { return s.state >= seatHello && s.state <= seatEnding }

// Script is the buttons a load client holds at input tick t (net/server's
// BenchmarkInstanceTick/stage1-load plays the same, the game's own compute in make capacity): a walk through the eight directions
// and standing still (a new move every 45 ticks, each slot out of phase), fire tapped 4 ticks out
// of 8 (shots, no charge), and the Force detached and recalled now and then.
func Script(slot int, t uint32) game.Buttons {
	moves := [...]game.Buttons{game.BtnUp, game.BtnUp | game.BtnRight, game.BtnRight, game.BtnDown | game.BtnRight,
		game.BtnDown, game.BtnDown | game.BtnLeft, game.BtnLeft, game.BtnUp | game.BtnLeft, 0, 0}
	b := moves[(int(t/45)+3*slot)%len(moves)]
	if (t/4)%2 == 0 {
		b |= game.BtnFire
	}
	if t%600 == 300 {
		b |= game.BtnForce
	}
	return b
}

func (s *seat) header(buf []byte, now time.Duration) []byte {
	seq, ack, bits, rel := s.ep.HeaderFields(now)
	return wire.Header{Token: s.token, Tick: s.servTick, Seq: seq, Ack: ack, AckBits: bits, RelAck: rel}.Append(buf)
}

func (s *seat) write(out *transport.Outbox, b []byte) {
	out.Put(b, s.server)
	s.dgOut++
	s.bytesOut += uint64(len(b))
}

func pingNonce(now time.Duration) uint32 { return uint32(now / time.Microsecond) }

// tick is the seat's 60 Hz step at now.
func (s *seat) tick(now time.Duration, out *transport.Outbox) {
	switch s.state {
	case seatHello:
		if now-s.started > session.WelcomeTimeout {
			s.state, s.why = seatAbnormal, "no WELCOME"
			return
		}
		if now-s.lastHere >= session.HereInterval {
			s.lastHere = now
			b := s.header(s.buf[:0], now)
			b = wire.Here{UUID: s.id}.Append(b)
			b = wire.Ping{Nonce: pingNonce(now)}.Append(b)
			s.write(out, b)
		}
	case seatEnding:
		if now-s.endAt > session.EndAckTime {
			s.state = seatDone
			return
		}
		if now-s.lastHere >= session.EndAckInterval {
			s.lastHere = now
			s.write(out, s.header(s.buf[:0], now))
		}
	case seatPlaying:
		if s.haveTick && now-s.ep.LastReceive > session.ServerTimeout {
			s.state, s.why = seatAbnormal, "server silent"
			return
		}
		s.sendInput(now, out)
	}
}

// sendInput stamps the next input tick (the server's tick as estimated here plus the RTT and two
// ticks, as session.Client aims) and sends INPUT with the inputs the server has not reached, a
// PING every second.
func (s *seat) sendInput(now time.Duration, out *transport.Outbox) {
	if s.haveTick {
		est := float64(s.servTick) + (now-s.servAt).Seconds()*game.TickRate
		target := uint32(est+s.ep.RTT().Seconds()*game.TickRate) + 2
		switch {
		case s.inTick == 0 || int32(target-s.inTick) > 6:
			s.inTick = target
		case int32(s.inTick-target) <= 1:
			s.inTick++
		}
		r := &s.inputs[s.inTick%uint32(len(s.inputs))]
		r.tick, r.b = s.inTick, Script(s.slot, s.inTick)
	}
	b := s.header(s.buf[:0], now)
	var in wire.Input
	for t := s.inTick; s.inTick != 0 && in.Count < session.MaxInputsPerDatagram && int32(t-s.servTick) > 0; t-- {
		r := s.inputs[t%uint32(len(s.inputs))]
		if r.tick != t {
			break
		}
		in.Ticks[in.Count], in.Buttons[in.Count] = t, uint8(r.b)
		in.Count++
	}
	if in.Count > 0 {
		b = in.Append(b)
	}
	if now-s.pingAt >= session.PingInterval {
		s.pingAt = now
		b = wire.Ping{Nonce: pingNonce(now)}.Append(b)
	}
	s.write(out, b)
}

// receive handles one datagram from the server at now (already matched to this seat's token).
func (s *seat) receive(now time.Duration, b []byte, measuring bool) {
	if !s.active() {
		return
	}
	s.dgIn++
	s.bytesIn += uint64(len(b))
	var h wire.Header
	if s.floor {
		s.ep.LastReceive = now // the floor speaks no protocol: any datagram says it is there
		if _, err := h.Parse(b); err == nil && (!s.haveTick || int32(h.Tick-s.servTick) > 0) {
			s.servTick, s.servAt, s.haveTick = h.Tick, now, true
			s.snaps++
		}
		return
	}
	r, err := wire.Open(b, &h)
	if err != nil {
		return
	}
	if s.ep.Receive(h.Seq, h.Ack, h.AckBits, h.RelAck, now) {
		return // duplicate
	}
	if !s.haveTick || int32(h.Tick-s.servTick) > 0 {
		s.servTick, s.servAt, s.haveTick = h.Tick, now, true
		s.snaps++
	}
	for d := s.ep.Deliver(r); d.Next(); {
		s.apply(now, d.ID(), d.Cmd(), measuring)
	}
}

// apply handles the commands a load client cares about: WELCOME, GAME_END, BYE and PING echoes
// (RTT); state (ENTITY, DEL_ENT, ...) and game events are only counted as bytes.
func (s *seat) apply(now time.Duration, id wire.CmdID, cmd []byte, measuring bool) {
	switch id {
	case wire.CmdWelcome:
		if s.state == seatHello {
			s.state = seatPlaying
		}
	case wire.CmdGameEnd:
		if s.state == seatPlaying || s.state == seatHello {
			s.state, s.endAt, s.lastHere = seatEnding, now, now
		}
	case wire.CmdBye:
		if s.state != seatEnding {
			s.state, s.why = seatAbnormal, "BYE from the server"
		}
	case wire.CmdPing:
		var c wire.Ping
		if _, err := c.Parse(cmd); err == nil && measuring {
			d := time.Duration(pingNonce(now)-c.Nonce) * time.Microsecond
			if d >= 0 && d < 10*time.Second {
				s.rtt.Add(d)
			}
		}
	}
}

// leave ends a session that is still going at the end of the run: two datagrams with BYE, as a
// player's client does when it quits.
func (s *seat) leave(now time.Duration, out *transport.Outbox) {
	if s.state == seatPlaying && !s.floor {
		for range 2 {
			s.write(out, wire.Bye{Reason: wire.ByeLeft}.Append(s.header(s.buf[:0], now)))
		}
	}
	if s.active() {
		s.state = seatDone
	}
}
