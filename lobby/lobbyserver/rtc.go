package lobbyserver

import (
	"context"
	"errors"
	"net/netip"
	"time"

	"github.com/rtype/rtype/lobby"
)

// The game over a WebRTC data channel (docs/PROTOCOL.md §2.4.19, §2.8.1): a browser sends its
// offer with RTC_OFFER and gets the server's answer in the 200. The Core checks the command and
// leaves a Request whose RTC is set; the runtime hands it to ServerConfig.RTC on a goroutine (at
// most HallTimeout) and the answer comes back with Answered, like a hall-of-fame question: the
// connection's later lines wait behind it, so responses keep their order.

// RTCAnswerer answers WebRTC offers (net/server: pion peers on the game's UDP port). It bounds
// the peers waiting to connect (per address and in all) itself: a refusal is an *RTCRefusal,
// whose Reason the player gets.
type RTCAnswerer interface {
	// AnswerRTC returns the SDP answer to offer, from a lobby connection of address from.
	AnswerRTC(ctx context.Context, from netip.Addr, offer string) (answer string, err error)
}

// RTCRefusal is an RTCAnswerer's refusal with the reason the player gets in the 500 (printable
// ASCII: a limit, a malformed offer).
type RTCRefusal struct{ Reason string }

func (e *RTCRefusal) Error() string { return "webrtc: " + e.Reason }

// RTCRequest is an offer for the runtime's RTCAnswerer (Request.RTC).
type RTCRequest struct {
	From  netip.Addr // the lobby connection's address (the answerer's per-address limit)
	Offer string     // the SDP text, checked by lobby.ParseRTCSDP
}

// rtcOffer answers RTC_OFFER <uuid>;<base64 offer> (docs/PROTOCOL.md §2.4.19).
func (c *Core) rtcOffer(now time.Duration, cs *connState, cmd lobby.Command) {
	if len(cmd.Args) != 1 {
		c.reply(cs, lobby.CodeWrongRequest, "RTC_OFFER takes one argument, the base64 of the SDP offer")
		return
	}
	if c.cfg.RTC == nil {
		c.reply(cs, lobby.CodeWrongRequest, lobby.RTCOff)
		return
	}
	offer, err := lobby.ParseRTCSDP(cmd.Args[0])
	if err != nil {
		var se *lobby.SyntaxError
		if errors.As(err, &se) {
			c.reply(cs, lobby.CodeWrongRequest, "RTC_OFFER: "+se.Reason)
			return
		}
		c.reply(cs, lobby.CodeWrongRequest, "RTC_OFFER: bad offer")
		return
	}
	c.asked++
	a := ask{id: c.asked, cmd: lobby.CmdRTCOffer, due: now + askTimeout}
	cs.waiting = &a
	cs.lastCode = 0
	c.asks = append(c.asks, askDue{conn: cs.id, id: a.id, due: a.due})
	c.out = append(c.out, Out{Conn: cs.id, Request: &Request{ID: a.id, RTC: &RTCRequest{From: cs.ip, Offer: offer}}})
}

// answerRTC replies to an RTC_OFFER with the runtime's answer a.
func (c *Core) answerRTC(now time.Duration, cs *connState, a Answer) {
	var re *RTCRefusal
	switch {
	case a.Err == nil && len(a.RTC) > 0 && len(a.RTC) <= lobby.MaxRTCSDP:
		c.reply(cs, lobby.CodeOK, string(lobby.AppendRTCSDP(nil, a.RTC)))
	case a.Err == nil:
		c.bursts.hit(c.log, now, "rtc", "WebRTC answer too large for a line", "bytes", len(a.RTC))
		c.reply(cs, lobby.CodeWrongRequest, "RTC_OFFER: the server's answer does not fit a line")
	case errors.As(a.Err, &re):
		c.reply(cs, lobby.CodeWrongRequest, "RTC_OFFER: "+re.Reason)
	default:
		c.bursts.hit(c.log, now, "rtc", "WebRTC offer not answered", "err", a.Err)
		c.reply(cs, lobby.CodeWrongRequest, "RTC_OFFER: the server could not answer the offer")
	}
}
