package lobbyserver

import (
	"context"
	"encoding/base64"
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/rtype/rtype/lobby"
)

// vrtc is the RTCAnswerer of a virtual lobby: the Core never calls it (the test answers).
type vrtc struct{}

func (vrtc) AnswerRTC(context.Context, netip.Addr, string) (string, error) {
	panic("the Core called its RTCAnswerer")
}

const testOffer = "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n"

// TestCoreRTCOffer: RTC_OFFER is for authenticated users; a server without WebRTC refuses it
// with one clear reason; a bad argument is refused before the runtime is asked; a good offer
// goes to the runtime with the connection's address, the connection's later lines wait behind
// it, and the answer comes back base64 in the 200, or the answerer's refusal in a 500.
func TestCoreRTCOffer(t *testing.T) {
	b64 := base64.StdEncoding.EncodeToString([]byte(testOffer))
	off := newVLobby(t, ServerConfig{})
	a := hallPlayer(off, "10.0.0.1", "alice")
	if got := a.fail(lobby.CmdRTCOffer, b64); got != lobby.RTCOff {
		t.Fatalf("without WebRTC: %q, want %q", got, lobby.RTCOff)
	}
	if got := off.open("10.0.0.2").send("RTC_OFFER ;" + b64); len(got) != 1 || !strings.HasPrefix(got[0], "401 ") {
		t.Fatalf("unauthenticated: %q, want a 401", got)
	}

	v := newVLobby(t, ServerConfig{RTC: vrtc{}, CommandRate: 1000})
	a = hallPlayer(v, "10.0.0.1", "alice")
	for _, c := range []struct{ args []string }{{nil}, {[]string{b64, b64}}, {[]string{"not*base64"}}, {[]string{strings.Repeat("QUFB", 1001)}},
		{[]string{base64.StdEncoding.EncodeToString([]byte{0, 1, 2})}}} {
		if got := a.ask(lobby.CmdRTCOffer, c.args...); got == "" || !strings.HasPrefix(got, "RTC_OFFER") {
			t.Errorf("RTC_OFFER %.40q: %q, want a refusal", c.args, got)
		}
	}
	a.take()
	if len(v.reqs) != 0 {
		t.Fatalf("bad offers went to the runtime: %v", v.reqs)
	}
	if got := a.ask(lobby.CmdRTCOffer, b64); got != "" {
		t.Fatalf("RTC_OFFER: %q, want a request", got)
	}
	o := v.takeReq()
	if o.Request.RTC == nil || o.Request.RTC.Offer != testOffer || o.Request.RTC.From != netip.MustParseAddr("10.0.0.1") {
		t.Fatalf("request %+v", o.Request)
	}
	if got := a.send(lobby.CmdGetStages + " " + a.user + ";"); len(got) != 0 {
		t.Fatalf("a line answered before the RTC_OFFER: %q", got)
	}
	v.answer(o, Answer{RTC: "v=0\r\nanswer\r\n"})
	got := a.take()
	if len(got) != 2 || got[0] != "200 "+vSrv+" "+base64.StdEncoding.EncodeToString([]byte("v=0\r\nanswer\r\n"))+"\r\n" || !strings.HasPrefix(got[1], "200 ") {
		t.Fatalf("after the answer: %q, want the 200 with the answer then GET_STAGES'", got)
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{&RTCRefusal{Reason: "too many WebRTC peers"}, "RTC_OFFER: too many WebRTC peers"},
		{errors.New("pion: boom"), "RTC_OFFER: the server could not answer the offer"},
	} {
		a.ask(lobby.CmdRTCOffer, b64)
		a.take()
		v.answer(v.takeReq(), Answer{Err: c.err})
		if got := a.take(); len(got) != 1 || got[0] != "500 "+vSrv+" "+c.want+"\r\n" {
			t.Errorf("answered %v: %q, want %q", c.err, got, c.want)
		}
	}
	// no answer from the runtime: the Core answers 500 at its deadline
	a.ask(lobby.CmdRTCOffer, b64)
	a.take()
	v.takeReq()
	v.advance(askTimeout)
	if got := a.take(); len(got) != 1 || got[0] != "500 "+vSrv+" RTC_OFFER: the server could not answer the offer\r\n" {
		t.Fatalf("no answer: %q", got)
	}
}
