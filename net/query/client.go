package query

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"time"

	"golang.org/x/net/ipv4"

	"github.com/rtype/rtype/lobby"
)

// ResendEvery is how long the client waits for a reply before it sends its request again (Ping)
// or probes again (DiscoverLAN), until its context ends.
const ResendEvery = time.Second

// maxChallenges bounds the challenges Ping follows: a server that keeps answering with new ones
// is not answering.
const maxChallenges = 4

// ErrNoAnswer: the context ended before the server answered.
var ErrNoAnswer = errors.New(errPrefix + "no answer")

// Ping asks addr's A2S_INFO (with its challenge) and returns the server's Info (Addr set to the
// queried host and the lobby's port) and the round trip of the final request, measured here. It
// sends again every ResendEvery until ctx ends (give it a deadline).
func Ping(ctx context.Context, addr netip.AddrPort) (Info, time.Duration, error) {
	addr = unmapped(addr)
	var in Info
	rtt, err := ask(ctx, addr, 0, AppendInfoRequest, func(b []byte) bool {
		v, err := ParseInfo(b)
		in = v
		return err == nil
	})
	if err != nil {
		return Info{}, 0, err
	}
	in.Addr = net.JoinHostPort(addr.Addr().String(), strconv.Itoa(in.LobbyPort))
	return in, rtt, nil
}

// Players asks addr's A2S_PLAYER (with its challenge), until ctx ends.
func Players(ctx context.Context, addr netip.AddrPort) ([]Player, error) {
	addr = unmapped(addr)
	var ps []Player
	_, err := ask(ctx, addr, NoChallenge, AppendPlayerRequest, func(b []byte) bool {
		v, err := ParsePlayers(b)
		ps = v
		return err == nil
	})
	return ps, err
}

// ask is the request loop of Ping and Players: it sends the request that appendReq builds (first
// the challenge first, then each challenge the server answers with, at most maxChallenges), again
// every ResendEvery, until take accepts a reply (other datagrams are ignored) or ctx ends. It
// returns the round trip of the request that was answered.
func ask(ctx context.Context, addr netip.AddrPort, first uint32, appendReq func(dst []byte, challenge uint32) []byte, take func(b []byte) bool) (time.Duration, error) {
	c, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(addr))
	if err != nil {
		return 0, fmt.Errorf("query %s: %w", addr, err)
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.SetReadDeadline(time.Now()) })
	defer stop()
	buf := make([]byte, maxReply+1)
	req := appendReq(nil, first)
	for challenges := 0; ctx.Err() == nil; {
		sent := time.Now()
		if _, err := c.Write(req); err != nil {
			return 0, fmt.Errorf("query %s: %w", addr, err)
		}
		c.SetReadDeadline(sent.Add(ResendEvery))
		if ctx.Err() != nil {
			break // it may have ended before the deadline was set
		}
		for {
			n, err := c.Read(buf)
			if err != nil {
				var ne net.Error
				if ctx.Err() != nil {
					return 0, fmt.Errorf("query %s: %w", addr, ErrNoAnswer)
				}
				if errors.As(err, &ne) && ne.Timeout() {
					break // send again
				}
				continue // e.g. ICMP port unreachable: the server may start yet
			}
			b := buf[:n]
			if v, err := ParseChallenge(b); err == nil {
				if challenges++; challenges > maxChallenges {
					return 0, fmt.Errorf("query %s: %d challenges and no answer", addr, challenges-1)
				}
				req = appendReq(req[:0], v)
				break // send again at once, with it
			}
			if take(b) {
				return time.Since(sent), nil
			}
		}
	}
	return 0, fmt.Errorf("query %s: %w", addr, ErrNoAnswer)
}

// LANTarget is where DiscoverLAN sends a probe: an address, and the interface a broadcast leaves
// by (0: the route's).
type LANTarget struct {
	Addr    netip.AddrPort
	IfIndex int
}

// LANTargets are the probes' destinations for ports: the IPv4 limited broadcast
// 255.255.255.255 on each interface that is up and broadcasts (sent by that interface, so no
// route is needed), and the loopback address (a server on this machine).
func LANTargets(ports []int) []LANTarget {
	var ts []LANTarget
	ifs, _ := net.Interfaces()
	for _, port := range ports {
		p := uint16(port)
		for _, ifc := range ifs {
			if ifc.Flags&net.FlagUp != 0 && ifc.Flags&net.FlagBroadcast != 0 && hasIPv4(&ifc) {
				ts = append(ts, LANTarget{Addr: netip.AddrPortFrom(netip.AddrFrom4([4]byte{255, 255, 255, 255}), p), IfIndex: ifc.Index})
			}
		}
		ts = append(ts, LANTarget{Addr: netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), p)})
	}
	return ts
}

func hasIPv4(ifc *net.Interface) bool {
	as, err := ifc.Addrs()
	if err != nil {
		return false
	}
	for _, a := range as {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil {
			return true
		}
	}
	return false
}

// DiscoverLAN probes the local network for servers on ports (none: lobby.DefaultPort) and
// returns those that answered before ctx ended (each once, by Addr: the answering host and its
// lobby port), probing again every ResendEvery. Give it a deadline of a second or two.
func DiscoverLAN(ctx context.Context, ports []int) ([]Info, error) {
	if len(ports) == 0 {
		ports = []int{lobby.DefaultPort}
	}
	return DiscoverLANTo(ctx, LANTargets(ports))
}

// DiscoverLANTo is DiscoverLAN with the probes' destinations given.
func DiscoverLANTo(ctx context.Context, targets []LANTarget) ([]Info, error) {
	lc := net.ListenConfig{Control: setBroadcast}
	pc, err := lc.ListenPacket(ctx, "udp4", "0.0.0.0:0")
	if err != nil {
		return nil, fmt.Errorf("LAN discovery: %w", err)
	}
	defer pc.Close()
	c := pc.(*net.UDPConn)
	p := ipv4.NewPacketConn(c)
	var nb [8]byte
	rand.Read(nb[:])
	nonce := binary.LittleEndian.Uint64(nb[:])
	probe := AppendLANProbe(nil, nonce)
	stop := context.AfterFunc(ctx, func() { c.SetReadDeadline(time.Now()) })
	defer stop()
	seen := map[string]bool{}
	var found []Info
	var errs []error
	buf := make([]byte, LANProbeSize+1)
	for ctx.Err() == nil {
		sentAny := false
		for _, t := range targets {
			var cm *ipv4.ControlMessage
			if t.IfIndex != 0 {
				cm = &ipv4.ControlMessage{IfIndex: t.IfIndex}
			}
			if _, err := p.WriteTo(probe, cm, net.UDPAddrFromAddrPort(t.Addr)); err != nil {
				errs = append(errs, err)
			} else {
				sentAny = true
			}
		}
		if !sentAny && len(targets) > 0 {
			return found, fmt.Errorf("LAN discovery: no probe could be sent: %w", errors.Join(errs...))
		}
		c.SetReadDeadline(time.Now().Add(ResendEvery))
		if ctx.Err() != nil {
			break // it may have ended before the deadline was set
		}
		for {
			n, from, err := c.ReadFromUDPAddrPort(buf)
			if err != nil {
				var ne net.Error
				if ctx.Err() != nil || (errors.As(err, &ne) && ne.Timeout()) {
					break // probe again, or done
				}
				continue // e.g. an ICMP error from a target: the others may answer
			}
			got, in, err := ParseLANAnswer(buf[:n])
			if err != nil || got != nonce {
				continue
			}
			in.Addr = net.JoinHostPort(from.Addr().Unmap().String(), strconv.Itoa(in.LobbyPort))
			if !seen[in.Addr] {
				seen[in.Addr] = true
				found = append(found, in)
			}
		}
	}
	return found, nil
}
