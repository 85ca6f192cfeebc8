package lobby

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/google/uuid"
)

// MaxSpectators is the number of spectators a lobby (and its game) accepts at once
// (docs/PROTOCOL.md §2.4.3, §5.10).
const MaxSpectators = 8

// Rejoiner is implemented by a Game that lets a player whose connection was lost take its slot
// back (net/instance.Instance): m carries the slot, the rejoiner's user UUID and name, and a new
// token and session key. An error means the slot is not waiting for a rejoin.
type Rejoiner interface {
	Rejoin(m Member) error
}

// Spectatable is implemented by a Game that accepts spectators: m has Slot -1 and its own token
// and session key.
type Spectatable interface {
	Spectate(m Member) error
}

// RejoinProofLen is the length of REJOIN's proof: 32 lowercase hex digits (16 bytes).
const RejoinProofLen = 32

// rejoinLabel starts the MAC input of a rejoin proof (domain separation from the UDP
// CHALLENGE proof, which uses the same key).
const rejoinLabel = "rtype rejoin v1"

// RejoinProof is the proof a rejoining player sends with REJOIN (docs/PROTOCOL.md §2.4.10): the
// first 16 bytes of HMAC-SHA256(key, "rtype rejoin v1" || code || slot u8 || user UUID's 16
// bytes), in lowercase hex. key is the session key of the START push that gave the slot; user
// is the UUID AUTHENTICATE gave the rejoining connection, so a proof seen on the wire cannot be
// replayed by another connection, and the key itself never travels again.
func RejoinProof(key [16]byte, code string, slot int, user uuid.UUID) string {
	m := hmac.New(sha256.New, key[:])
	m.Write([]byte(rejoinLabel))
	m.Write([]byte(code))
	m.Write([]byte{byte(slot)})
	m.Write(user[:])
	return hex.EncodeToString(m.Sum(nil)[:RejoinProofLen/2])
}

// checkRejoinProof reports whether proof is RejoinProof(key, code, slot, user), in constant time.
func checkRejoinProof(key [16]byte, code string, slot int, user uuid.UUID, proof string) bool {
	want := RejoinProof(key, code, slot, user)
	return hmac.Equal([]byte(want), []byte(proof))
}

// REJOIN and the SPECTATE push (docs/PROTOCOL.md §2.4.10, §2.5.7).
const (
	CmdRejoin    = "REJOIN"
	PushSpectate = "SPECTATE"
)

// ownerName is the name of l's owner ("" when it has no player).
func (l *lobbyState) ownerName() string {
	if len(l.members) == 0 {
		return ""
	}
	return l.members[0].name
}

// newSession draws a token not used by l's slots and a session key.
func newSession(l *lobbyState) (token uint32, key [16]byte, err error) {
	for {
		if token, err = randToken(); err != nil {
			return 0, key, err
		}
		if !slicesContainsToken(l.slots, token) {
			break
		}
	}
	_, err = rand.Read(key[:])
	return token, key, err
}

// promoteLocked makes l's spectators players while l has room, in join order (a waiting lobby).
func (s *Server) promoteLocked(l *lobbyState) {
	for len(l.spectators) > 0 && len(l.members) < MaxPlayers {
		c := l.spectators[0]
		l.spectators = l.spectators[1:]
		l.members = append(l.members, c)
		s.log.Debug("lobby spectator becomes a player", "code", l.code, "user", c.id.String(), "name", c.name)
	}
}

// spectateLocked answers JOIN_LOBBY to a lobby that is running (or starting) a game: c becomes a
// spectator of it (docs/PROTOCOL.md §2.4.3): 200 <code>, MEMBERS and STAGE to c, then SPECTATE
// with c's token and key once the game has it. Called with s.mu held; it unlocks it.
func (s *Server) spectateLocked(c *conn, l *lobbyState) {
	fail := func(reason string) {
		s.mu.Unlock()
		c.reply(s, CodeWrongRequest, reason)
	}
	if len(l.spectators) >= MaxSpectators {
		fail("lobby " + l.code + " is running a game and has " + strconv.Itoa(MaxSpectators) + " spectators (max)")
		return
	}
	var sp Spectatable
	if l.game != nil {
		var ok bool
		if sp, ok = l.game.(Spectatable); !ok {
			fail("lobby " + l.code + " is running a game")
			return
		}
	}
	var m Member
	if sp != nil {
		tok, key, err := newSession(l)
		if err != nil {
			fail("cannot generate a session token")
			return
		}
		m = Member{UUID: c.id, Name: c.name, Slot: -1, Token: tok, Key: key}
		if err := sp.Spectate(m); err != nil {
			fail("cannot watch lobby " + l.code + ": " + err.Error())
			return
		}
	}
	drop := s.leaveLocked(c, "joined another lobby")
	l.spectators = append(l.spectators, c)
	c.lobby = l
	s.log.Debug("lobby spectator joined", "code", l.code, "user", c.id.String(), "name", c.name, "spectators", len(l.spectators))
	c.reply(s, CodeOK, l.code)
	s.pushMembersTo(c, l)
	s.pushStageLocked(c, l)
	if sp != nil {
		s.push(c, PushSpectate, strconv.Itoa(l.game.Port()), strconv.FormatUint(uint64(m.Token), 10), hex.EncodeToString(m.Key[:]))
	}
	s.mu.Unlock()
	if drop != nil {
		drop()
	}
}

// pushMembersTo sends l's MEMBERS push to c alone.
func (s *Server) pushMembersTo(c *conn, l *lobbyState) {
	args := make([]string, 0, 1+len(l.members))
	args = append(args, l.code)
	for _, m := range l.members {
		args = append(args, m.name)
	}
	s.push(c, PushMembers, args...)
}

// startSpectatorsLocked makes l's spectators spectators of its new game g: SPECTATE to each.
func (s *Server) startSpectatorsLocked(l *lobbyState, g Game, port string) {
	sp, ok := g.(Spectatable)
	if !ok {
		return
	}
	for _, c := range l.spectators {
		tok, key, err := newSession(l)
		if err != nil {
			continue
		}
		if err := sp.Spectate(Member{UUID: c.id, Name: c.name, Slot: -1, Token: tok, Key: key}); err != nil {
			s.log.Warn("spectator not added to the game", "code", l.code, "user", c.id.String(), "err", err)
			continue
		}
		s.push(c, PushSpectate, port, strconv.FormatUint(uint64(tok), 10), hex.EncodeToString(key[:]))
	}
}

// rejoin answers REJOIN <uuid>;<code>,<slot>,<proof> (docs/PROTOCOL.md §2.4.10): the sender
// takes back slot of the game running in lobby code, whose player was lost, proving with the
// session key of that slot's START push (RejoinProof). On success: 200 <code>, MEMBERS to
// every member, STAGE and a START push with a new token and key to the sender; the slot's old
// token stops working.
func (s *Server) rejoin(c *conn, cmd Command) {
	if len(cmd.Args) != 3 {
		c.reply(s, CodeWrongRequest, "REJOIN takes a lobby code, a slot and a proof")
		return
	}
	code := upper(cmd.Args[0])
	if !ValidCode(code) {
		c.reply(s, CodeWrongRequest, "invalid lobby code: 5 characters of "+CodeAlphabet)
		return
	}
	slot, err := strconv.Atoi(cmd.Args[1])
	if err != nil || slot < 0 || slot >= MaxPlayers || cmd.Args[1] != strconv.Itoa(slot) {
		c.reply(s, CodeWrongRequest, "invalid slot: 0 to 3")
		return
	}
	proof := cmd.Args[2]
	if !ValidSessionKey(proof) { // same form: 32 lowercase hex digits
		c.reply(s, CodeWrongRequest, "invalid proof: 32 lowercase hex digits")
		return
	}
	s.mu.Lock()
	l := s.lobbies[code]
	fail := func(reason string) {
		s.mu.Unlock()
		c.reply(s, CodeWrongRequest, reason)
	}
	switch {
	case l == nil:
		fail("no lobby with code " + code)
		return
	case l.phase != phaseRunning:
		fail("lobby " + code + " is not running a game")
		return
	case slot >= len(l.slots):
		fail("the game of lobby " + code + " has no slot " + strconv.Itoa(slot))
		return
	case !checkRejoinProof(l.slots[slot].Key, code, slot, c.id, proof):
		s.log.Info("rejoin refused: wrong proof", "code", code, "slot", slot, "user", c.id.String(), "remote", c.addr)
		fail("rejoin refused: wrong proof for slot " + strconv.Itoa(slot))
		return
	}
	rj, ok := l.game.(Rejoiner)
	if !ok {
		fail("this server does not support rejoining")
		return
	}
	tok, key, err := newSession(l)
	if err != nil {
		fail("cannot generate a session token")
		return
	}
	m := Member{UUID: c.id, Name: c.name, Slot: slot, Token: tok, Key: key}
	if err := rj.Rejoin(m); err != nil {
		fail("slot " + strconv.Itoa(slot) + " of lobby " + code + " is not waiting for a rejoin (its player is connected, left, or the time to rejoin is over)")
		return
	}
	prev := l.slots[slot].UUID
	l.slots[slot] = m
	var drop func()
	if c.lobby != l {
		drop = s.leaveLocked(c, "rejoined another lobby")
	}
	// The slot's previous holder (still connected to the lobby, its game session lost) and the
	// sender's own spectator place make way.
	for i, o := range l.members {
		if o.id == prev && o != c {
			l.members = append(l.members[:i], l.members[i+1:]...)
			o.lobby = nil
			break
		}
	}
	for i, o := range l.spectators {
		if o == c {
			l.spectators = append(l.spectators[:i], l.spectators[i+1:]...)
			break
		}
	}
	inMembers := false
	for _, o := range l.members {
		inMembers = inMembers || o == c
	}
	if !inMembers {
		l.members = append(l.members, c)
	}
	c.lobby = l
	s.log.Info("player rejoined", "code", code, "slot", slot, "user", c.id.String(), "name", c.name)
	c.reply(s, CodeOK, code)
	s.pushMembersLocked(l)
	s.pushStageLocked(c, l)
	s.push(c, PushStart, strconv.Itoa(l.game.Port()), strconv.FormatUint(uint64(tok), 10), hex.EncodeToString(key[:]))
	s.mu.Unlock()
	if drop != nil {
		drop()
	}
}

// Rejoin sends REJOIN: this client takes back slot of the game running in lobby code, whose
// session was lost, proving it holds key, the session key of the START push that gave it the
// slot (RejoinProof; the key itself is not sent). On success a START push with a new token and
// key follows (WaitStart), and the client is a member of the lobby again.
func (c *Client) Rejoin(code string, slot int, key [16]byte) error {
	c.mu.Lock()
	id := c.id
	c.mu.Unlock()
	code = upper(code)
	_, err := c.request(CmdRejoin, code, strconv.Itoa(slot), RejoinProof(key, code, slot, id))
	return err
}
