// Package serverlist is the public server list (docs/PROTOCOL.md §11): the Entry a list server
// lists, its validation, the list server's pure core (Table: registrations, the reachability
// proof, expiry, per-network limits, a bounded table; time passed in), the list server's HTTP
// and UDP runtime (Server), the game server's side (Announce, AnswerToken) and the client's
// (Fetch).
package serverlist

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// Entry is one server as a list server lists it (docs/PROTOCOL.md §11.1).
type Entry struct {
	Name      string   `json:"name"`           // ≤ 64 bytes UTF-8, no control or bidi characters
	MOTD      string   `json:"motd,omitempty"` // ≤ 200 bytes, same rules
	Addr      string   `json:"addr"`           // lobby address host:port (TCP) as players dial it
	QueryPort int      `json:"query_port"`     // UDP port answering A2S, LAN probes and the token
	Version   string   `json:"version"`        // buildinfo.Version
	Protocol  int      `json:"protocol"`       // wire.Version
	Players   int      `json:"players"`
	Capacity  int      `json:"capacity"`
	Lobbies   int      `json:"lobbies"` // open lobbies (waiting for players)
	Stages    []string `json:"stages"`
	Password  bool     `json:"password"`
	Region    string   `json:"region,omitempty"` // operator-set, ≤ 32 bytes
	Fleet     bool     `json:"fleet"`            // runs the lobby/host split
}

// Limits of an entry's fields (docs/PROTOCOL.md §11.1), in bytes of UTF-8.
const (
	MaxName     = 64
	MaxMOTD     = 200
	MaxRegion   = 32
	MaxVersion  = 64
	MaxStages   = 32
	MaxStage    = 64      // one stage name
	MaxCount    = 1 << 16 // players, capacity, lobbies
	MaxProtocol = 255
)

// ErrInvalid is wrapped by every validation error (the list server answers it with 400).
var ErrInvalid = errors.New("invalid entry")

func invalid(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, a...))
}

// CheckText reports why s is not acceptable as a text field named field of at most max bytes:
// not UTF-8, too long, or holding a control character (C0, DEL, C1), a line or paragraph
// separator or a bidirectional formatting character (which could make a name display as
// another's). nil when it is acceptable.
func CheckText(field, s string, max int) error {
	if len(s) > max {
		return invalid("%s is %d bytes, at most %d", field, len(s), max)
	}
	if !utf8.ValidString(s) {
		return invalid("%s is not valid UTF-8", field)
	}
	for i, r := range s {
		if unicode.IsControl(r) || isBidiOrSeparator(r) {
			return invalid("%s holds the character %U at byte %d (no control or bidirectional characters)", field, r, i)
		}
	}
	return nil
}

// isBidiOrSeparator: U+061C, U+200E-U+200F, U+2028-U+202E, U+2066-U+2069 (Unicode's bidi
// controls and the line and paragraph separators).
func isBidiOrSeparator(r rune) bool {
	switch {
	case r == 0x061C, r == 0x200E, r == 0x200F:
		return true
	case r >= 0x2028 && r <= 0x202E:
		return true
	case r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// Validate reports the first reason e is not a valid entry (wrapping ErrInvalid), or nil. An
// empty host in Addr is valid: the list server fills in the registering address.
func (e *Entry) Validate() error {
	if e.Name == "" {
		return invalid("name is empty")
	}
	for _, f := range []struct {
		name, s string
		max     int
	}{{"name", e.Name, MaxName}, {"motd", e.MOTD, MaxMOTD}, {"region", e.Region, MaxRegion}, {"version", e.Version, MaxVersion}} {
		if err := CheckText(f.name, f.s, f.max); err != nil {
			return err
		}
	}
	if _, _, err := SplitAddr(e.Addr); err != nil {
		return err
	}
	if e.QueryPort < 1 || e.QueryPort > 65535 {
		return invalid("query_port %d is not 1..65535", e.QueryPort)
	}
	if e.Protocol < 0 || e.Protocol > MaxProtocol {
		return invalid("protocol %d is not 0..%d", e.Protocol, MaxProtocol)
	}
	for _, n := range []struct {
		name string
		v    int
	}{{"players", e.Players}, {"capacity", e.Capacity}, {"lobbies", e.Lobbies}} {
		if n.v < 0 || n.v > MaxCount {
			return invalid("%s %d is not 0..%d", n.name, n.v, MaxCount)
		}
	}
	if len(e.Stages) > MaxStages {
		return invalid("%d stages, at most %d", len(e.Stages), MaxStages)
	}
	for i, s := range e.Stages {
		if s == "" {
			return invalid("stage %d is empty", i)
		}
		if err := CheckText("stage "+strconv.Itoa(i), s, MaxStage); err != nil {
			return err
		}
	}
	return nil
}

// SplitAddr reads an entry's Addr: "IP:PORT", "[IPv6]:PORT" or ":PORT" (host empty: the
// registering address). The host must be an IP address (a list server proves an address, not a
// name); the port 1..65535.
func SplitAddr(s string) (host netip.Addr, port uint16, err error) {
	i := lastColon(s)
	if i < 0 {
		return netip.Addr{}, 0, invalid("addr %q is not host:port", s)
	}
	h, p := s[:i], s[i+1:]
	n, perr := strconv.Atoi(p)
	if perr != nil || n < 1 || n > 65535 {
		return netip.Addr{}, 0, invalid("addr %q: the port must be 1..65535", s)
	}
	if h == "" {
		return netip.Addr{}, uint16(n), nil
	}
	if len(h) >= 2 && h[0] == '[' && h[len(h)-1] == ']' {
		h = h[1 : len(h)-1]
	}
	a, aerr := netip.ParseAddr(h)
	if aerr != nil || a.Zone() != "" {
		return netip.Addr{}, 0, invalid("addr %q: the host must be an IP address (or empty: the address the registration comes from)", s)
	}
	return a.Unmap(), uint16(n), nil
}

func lastColon(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == ':' {
			return i
		}
	}
	return -1
}
