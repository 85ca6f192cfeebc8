package lobby

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// CmdRTCOffer (extension, docs/PROTOCOL.md §2.4.19): a browser's WebRTC offer for the game's
// data channel; the 200 response carries the server's answer.
const CmdRTCOffer = "RTC_OFFER"

// MaxRTCSDP is the largest SDP text (an offer or an answer) RTC_OFFER carries, in bytes before
// base64: its base64 (4000 characters) keeps the command line and the response line within
// MaxLine (docs/PROTOCOL.md §2.4.19), so the line limit stays one for every line. A
// data-channel offer is about 500 bytes and its candidates about 100 each; the server needs none
// of them (it learns the browser's address from its connectivity checks), so a client whose
// offer is larger may drop its a=candidate lines.
const MaxRTCSDP = 3000

// RTCOff is the reason of the 500 an RTC_OFFER gets from a server without WebRTC (one
// started without -web).
const RTCOff = "WebRTC is off on this server (it serves no web address: -web)"

// AppendRTCSDP appends sdp as RTC_OFFER's argument or its 200 response's body: standard base64
// (RFC 4648 §4, with padding) of the SDP text.
func AppendRTCSDP(buf []byte, sdp string) []byte {
	return base64.StdEncoding.AppendEncode(buf, []byte(sdp))
}

// ParseRTCSDP reads an RTC_OFFER argument or its 200 body: standard base64 of 1..MaxRTCSDP
// bytes of SDP text (printable ASCII, CR and LF: RFC 8866's text is UTF-8 in places, which a
// WebRTC offer does not use).
func ParseRTCSDP(b64 string) (string, error) {
	if len(b64) == 0 || len(b64) > base64.StdEncoding.EncodedLen(MaxRTCSDP) {
		return "", syntaxErr("the SDP must be 1..%d bytes of base64 (%d bytes of SDP)", base64.StdEncoding.EncodedLen(MaxRTCSDP), MaxRTCSDP)
	}
	b, err := base64.StdEncoding.Strict().DecodeString(b64)
	if err != nil || strings.ContainsAny(b64, "\r\n") {
		return "", syntaxErr("the SDP is not standard base64")
	}
	if len(b) > MaxRTCSDP {
		return "", syntaxErr("the SDP is longer than %d bytes", MaxRTCSDP)
	}
	for _, c := range b {
		if (c < 0x20 || c > 0x7e) && c != '\r' && c != '\n' && c != '\t' {
			return "", syntaxErr("the SDP holds byte 0x%02x: not SDP text", c)
		}
	}
	return string(b), nil
}

// ErrRTCOfferTooLarge is OfferRTC's error for an offer over MaxRTCSDP bytes (not sent).
var ErrRTCOfferTooLarge = errors.New("lobby: WebRTC offer longer than 3000 bytes (drop its a=candidate lines: the server needs none)")

// OfferRTC sends RTC_OFFER with offer, a WebRTC session description's SDP text (the browser's
// RTCPeerConnection offer with one data channel, docs/PROTOCOL.md §2.8.1), and returns the
// server's answer (the SDP text to set as the remote description). A server without WebRTC
// answers 500 (a *ResponseError whose Reason is RTCOff); a body that is not base64 SDP is a
// protocol violation (the connection is closed).
func (c *Client) OfferRTC(offer string) (answer string, err error) {
	if len(offer) > MaxRTCSDP {
		return "", ErrRTCOfferTooLarge
	}
	if offer == "" {
		return "", errors.New("lobby: empty WebRTC offer")
	}
	r, err := c.request(CmdRTCOffer, string(AppendRTCSDP(nil, offer)))
	if err != nil {
		return "", err
	}
	answer, err = ParseRTCSDP(r.Body)
	if err != nil {
		return "", c.fail(fmt.Errorf("%w: RTC_OFFER: %v", ErrProtocol, err))
	}
	return answer, nil
}
