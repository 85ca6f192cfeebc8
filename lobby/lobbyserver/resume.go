package lobbyserver

import (
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/lobby"
)

// resume answers RESUME <uuid>;<code>,<slot>,<proof> (docs/PROTOCOL.md §2.4.20): the sender,
// whose lobby connection was lost (or whose lobby restarted and took its game back, AdoptGame)
// while its game goes on, becomes a member of lobby code again in slot, proving it holds that
// slot's session key (lobby.ResumeProof). No new token, no game call: the game session is left
// alone; the sender gets 200 <code>, every member MEMBERS, the sender STAGE (and the lobby's
// settings), and from then on the lobby's pushes, the game's END among them.
func (c *Core) resume(_ time.Duration, cs *connState, cmd lobby.Command) {
	l, code, slot, ok := c.claimSlot(cs, cmd, "resume", lobby.ResumeProof)
	if !ok {
		return
	}
	if o := l.slotHolder(slot); o != nil && o != cs {
		c.reply(cs, lobby.CodeWrongRequest, "slot "+strconv.Itoa(slot)+" of lobby "+code+" is held by a connected member ("+o.name+")")
		return
	}
	if cs.lobby != l {
		c.leave(cs, "resumed another lobby")
	}
	l.spectators = removeConn(l.spectators, cs)
	if l.slotHolder(slot) != cs {
		l.members = append(l.members, cs)
	}
	if l.resumed == nil {
		l.resumed = map[int]*connState{}
	}
	l.resumed[slot] = cs
	cs.lobby = l
	c.log.Info("player resumed its lobby", "code", code, "slot", slot, "user", cs.user.String(), "name", cs.name)
	c.reply(cs, lobby.CodeOK, code)
	c.pushMembers(l)
	c.pushSettings(cs, l)
}

// slotHolder is the member of l that holds slot of its running game: the connection that
// resumed it, or the one whose user the slot was given to (START, REJOIN); nil when none is
// connected.
func (l *lobbyState) slotHolder(slot int) *connState {
	if o := l.resumed[slot]; o != nil && o.lobby == l {
		return o
	}
	if slot >= len(l.slots) {
		return nil
	}
	for _, o := range l.members {
		if o.user == l.slots[slot].UUID {
			return o
		}
	}
	return nil
}

// gameUser is the UUID l's game knows cs by: the user of the slot cs resumed (its connection
// has another UUID), else cs's own.
func (l *lobbyState) gameUser(cs *connState) uuid.UUID {
	for slot, o := range l.resumed {
		if o == cs && slot < len(l.slots) {
			return l.slots[slot].UUID
		}
	}
	return cs.user
}

// forgetResumed takes cs out of l's resumed slots (it left the lobby).
func (l *lobbyState) forgetResumed(cs *connState) {
	for slot, o := range l.resumed {
		if o == cs {
			delete(l.resumed, slot)
		}
	}
}
