//go:build js

package netflow

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"syscall/js"

	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/net/session"
	"github.com/rtype/rtype/net/transport/webrtcjs"
)

// gameSocket gives a browser's session its link: a browser has no UDP, so the game's datagrams
// go over a WebRTC data channel whose offer and answer travel over the lobby connection
// (RTC_OFFER, docs/PROTOCOL.md §2.4.19). cfg.Addr becomes the address the session names its
// server by (an IP literal: a browser cannot resolve names; the path is ICE's).
func gameSocket(ctx context.Context, lc *lobby.Client, cfg *session.Config) error {
	if lc == nil {
		return errors.New("a browser plays over the lobby's WebRTC: no lobby connection")
	}
	host, port, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return err
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return err
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		ip = netip.IPv4Unspecified()
	}
	server := netip.AddrPortFrom(ip, uint16(p))
	// the host the page reached the lobby at (its own origin's): the server's address behind a NAT
	page := ""
	if loc := js.Global().Get("location"); loc.Type() == js.TypeObject {
		page = strings.Trim(loc.Get("hostname").String(), "[]")
	}
	sock, err := webrtcjs.Dial(ctx, server, page, lc.OfferRTC)
	if err != nil {
		return err
	}
	cfg.Addr, cfg.Socket, cfg.NetSim = server.String(), sock, ""
	return nil
}
