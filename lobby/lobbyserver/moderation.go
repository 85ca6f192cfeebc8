package lobbyserver

import (
	"cmp"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/lobby"
)

// Ban keeps a player out (docs/PROTOCOL.md §2.3, "Decision (moderation)"): a ban by Name
// refuses AUTHENTICATE with that name (case-insensitive); a ban by Network refuses every
// connection from an address in it. Expires is when it ends (zero: never).
type Ban struct {
	ID      string
	Name    string       // "" when it bans a network
	Network netip.Prefix // invalid when it bans a name
	Reason  string
	Expires time.Time
}

// Matches reports whether b bans a player named name connecting from ip ("" or the zero
// Addr: that part is unknown).
func (b Ban) Matches(name string, ip netip.Addr) bool {
	if b.Name != "" {
		return name != "" && strings.EqualFold(b.Name, name)
	}
	return b.Network.IsValid() && ip.IsValid() && b.Network.Contains(ip.Unmap())
}

// Refusal is the reason a banned player is told (the body of the 500 line before the close).
func (b Ban) Refusal() string {
	s := "banned from this server"
	if b.Reason != "" {
		s += ": " + b.Reason
	}
	if !b.Expires.IsZero() {
		s += " (until " + b.Expires.UTC().Format(time.RFC3339) + ")"
	}
	return s + ", closing connection"
}

// modState is the Core's moderation: the bans in force, with their end in Core time, and the
// muted names.
type modState struct {
	bans  []activeBan
	muted map[string]bool // lower-case names
}

type activeBan struct {
	Ban
	until time.Duration // Core time of Expires (0: never)
}

// PlayerInfo is one connection as the operator sees it (Core.Players).
type PlayerInfo struct {
	Conn      ConnID `json:"conn"`
	User      string `json:"user,omitempty"` // "" before AUTHENTICATE
	Name      string `json:"name,omitempty"`
	Addr      string `json:"addr"`
	Lobby     string `json:"lobby,omitempty"`
	InGame    bool   `json:"in_game"`
	Spectator bool   `json:"spectator"`
	Muted     bool   `json:"muted"`
}

// GameInfo is one running game as the operator sees it (Core.Games).
type GameInfo struct {
	Lobby      string   `json:"lobby"`
	ID         string   `json:"id"`
	Stage      string   `json:"stage"`
	Players    []string `json:"players"`
	Spectators int      `json:"spectators"`
	Practice   bool     `json:"practice"`
}

// Players lists the open connections in the order they were opened.
func (c *Core) Players() []PlayerInfo {
	out := make([]PlayerInfo, 0, len(c.conns))
	for _, cs := range c.conns {
		p := PlayerInfo{Conn: cs.id, User: cs.userString(), Addr: cs.addr, Muted: cs.authed && c.isMuted(cs.name)}
		if cs.authed {
			p.Name = cs.name
		}
		if l := cs.lobby; l != nil {
			p.Lobby, p.InGame, p.Spectator = l.code, l.running(), slices.Contains(l.spectators, cs)
		}
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b PlayerInfo) int { return cmp.Compare(a.Conn, b.Conn) })
	return out
}

// Games lists the running games, the oldest lobby first.
func (c *Core) Games() []GameInfo {
	var out []GameInfo
	for _, l := range c.order {
		if !l.running() {
			continue
		}
		g := GameInfo{Lobby: l.code, ID: l.gameID.String(), Stage: l.stage.Name, Spectators: len(l.spectators), Practice: l.practice}
		for _, m := range l.members {
			g.Players = append(g.Players, m.name)
		}
		out = append(out, g)
	}
	return out
}

// find returns the connections who names: a user UUID, or a player name (case-insensitive,
// every connection of that name).
func (c *Core) find(who string) []*connState {
	var out []*connState
	id, err := uuid.Parse(who)
	for _, cs := range c.conns {
		if !cs.authed {
			continue
		}
		if err == nil && cs.user == id || err != nil && strings.EqualFold(cs.name, who) {
			out = append(out, cs)
		}
	}
	slices.SortFunc(out, func(a, b *connState) int { return cmp.Compare(a.id, b.id) })
	return out
}

// Kick closes the connections of who (a user UUID or a player name) at now: each is told why
// (500 "kicked by the operator: REASON, closing connection") and leaves its lobby, and its
// game for good (no rejoin). It returns how many were kicked.
func (c *Core) Kick(now time.Duration, who, reason string) int {
	found := c.find(who)
	body := "kicked by the operator"
	if reason != "" {
		body += ": " + reason
	}
	for _, cs := range found {
		c.expel(cs, body+", closing connection", "kicked")
	}
	if len(found) > 0 {
		c.log.Info("lobby player kicked", "who", who, "reason", reason, "connections", len(found))
	}
	return len(found)
}

// expel takes cs out of its lobby and game for good, sends it body as a 500 line and closes it.
func (c *Core) expel(cs *connState, body, why string) {
	c.leave(cs, why)
	c.reply(cs, lobby.CodeWrongRequest, body)
	c.close(cs, why)
}

// SetBans replaces the bans in force at now (wall: the wall-clock time of now, which the bans'
// Expires are compared with) and expels, at once, every connection they ban (its name or its
// address), telling each why. Expired bans are dropped. It returns how many connections were
// expelled.
func (c *Core) SetBans(now time.Duration, wallNow time.Time, bans []Ban) int {
	c.mod.bans = c.mod.bans[:0]
	for _, b := range bans {
		ab := activeBan{Ban: b}
		if !b.Expires.IsZero() {
			if !b.Expires.After(wallNow) {
				continue
			}
			ab.until = now + b.Expires.Sub(wallNow)
		}
		c.mod.bans = append(c.mod.bans, ab)
	}
	var hit []*connState
	for _, cs := range c.conns {
		if _, banned := c.banned(now, cs.name, cs.ip); banned {
			hit = append(hit, cs)
		}
	}
	slices.SortFunc(hit, func(a, b *connState) int { return cmp.Compare(a.id, b.id) })
	for _, cs := range hit {
		b, _ := c.banned(now, cs.name, cs.ip)
		c.log.Info("lobby player banned: connection closed", "user", cs.userString(), "name", cs.name, "remote", cs.addr, "reason", b.Reason)
		c.expel(cs, b.Refusal(), "banned")
	}
	return len(hit)
}

// Bans returns the bans in force at now.
func (c *Core) Bans(now time.Duration) []Ban {
	var out []Ban
	for _, b := range c.mod.bans {
		if b.until == 0 || now < b.until {
			out = append(out, b.Ban)
		}
	}
	return out
}

// banned returns the first ban in force at now of a player named name ("" before
// AUTHENTICATE) from ip.
func (c *Core) banned(now time.Duration, name string, ip netip.Addr) (Ban, bool) {
	for _, b := range c.mod.bans {
		if (b.until == 0 || now < b.until) && b.Matches(name, ip) {
			return b.Ban, true
		}
	}
	return Ban{}, false
}

// bannedAddr is the 500 line that refuses a connection from ip at now (Open), nil if no ban
// covers it.
func (c *Core) bannedAddr(now time.Duration, ip netip.Addr) []byte {
	b, ok := c.banned(now, "", ip)
	if !ok {
		return nil
	}
	c.log.Info("lobby connection refused: banned", "remote", addrKey(ip), "reason", b.Reason)
	line, _ := lobby.AppendResponse(nil, lobby.Response{Code: lobby.CodeWrongRequest, Header: c.srv, Body: sanitize(b.Refusal())})
	return line
}

// refuseBannedName answers AUTHENTICATE with a banned name: true when cs was told why and
// closed.
func (c *Core) refuseBannedName(now time.Duration, cs *connState, name string) bool {
	b, ok := c.banned(now, name, netip.Addr{})
	if !ok {
		return false
	}
	c.log.Info("lobby authentication refused: banned", "name", name, "remote", cs.addr, "reason", b.Reason)
	c.reply(cs, lobby.CodeWrongRequest, b.Refusal())
	c.close(cs, "banned")
	return true
}

// Mute stops (on) or allows again (!on) the chat of the players named who (case-insensitive;
// it holds for their later connections too, until the server restarts). It returns how many
// connections of that name are open.
func (c *Core) Mute(who string, on bool) int {
	key := strings.ToLower(who)
	if on {
		if c.mod.muted == nil {
			c.mod.muted = map[string]bool{}
		}
		c.mod.muted[key] = true
	} else {
		delete(c.mod.muted, key)
	}
	n := 0
	for _, cs := range c.conns {
		if cs.authed && strings.EqualFold(cs.name, who) {
			n++
		}
	}
	c.log.Info("lobby chat mute", "name", who, "muted", on, "connections", n)
	return n
}

func (c *Core) isMuted(name string) bool { return c.mod.muted[strings.ToLower(name)] }

// MutedChat is the refusal of a muted player's CHAT (docs/PROTOCOL.md §2.4.9).
const MutedChat = "you are muted by the operator: your chat is not relayed"

// Players, Games, Kick, SetBans, Bans and Mute of the running server (the Core's).

func (s *Server) Players() (p []PlayerInfo) {
	s.do(func(time.Duration) { p = s.core.Players() })
	return p
}

func (s *Server) Games() (g []GameInfo) {
	s.do(func(time.Duration) { g = s.core.Games() })
	return g
}

func (s *Server) Kick(who, reason string) (n int) {
	s.do(func(now time.Duration) { n = s.core.Kick(now, who, reason) })
	return n
}

func (s *Server) SetBans(bans []Ban) (n int) {
	s.do(func(now time.Duration) { n = s.core.SetBans(now, s.epoch.Add(now), bans) })
	return n
}

func (s *Server) Bans() (b []Ban) {
	s.do(func(now time.Duration) { b = s.core.Bans(now) })
	return b
}

func (s *Server) Mute(who string, on bool) (n int) {
	s.do(func(time.Duration) { n = s.core.Mute(who, on) })
	return n
}
