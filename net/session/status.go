package session

import (
	"time"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/net/wire"
)

// InterruptedAfter is how long without any datagram from the server makes the link
// "interrupted": the view stops moving (no prediction, no interpolation past the last state)
// and a client shows "connection interrupted" with Silence counting, until datagrams come back
// or ServerTimeout ends the session.
const InterruptedAfter = time.Second

// LobbyLost tells the session, at now, that the lobby's TCP connection to the same server ended
// without the client closing it (reset or closed by the server). A server killed outright resets
// its TCP connections at once, while its UDP game just goes silent: from now on a silence of
// InterruptedAfter (1 s) ends the session ("server gone") instead of ServerTimeout (10 s). A
// game whose datagrams still come goes on.
func (c *Client) LobbyLost(now time.Duration) {
	if !c.lobbyLost {
		c.lobbyLost, c.lobbyLostAt = true, now
	}
}

// Silence is how long no datagram has come from the server, at now (0 before the first one).
func (c *Client) Silence(now time.Duration) time.Duration {
	if !c.haveTick {
		return 0
	}
	return now - c.ep.LastReceive
}

// Interrupted reports whether the link is interrupted at now (Silence > InterruptedAfter, the
// game not over).
func (c *Client) Interrupted(now time.Duration) bool {
	return !c.ended && c.Silence(now) > InterruptedAfter
}

// frozen: the world does not move on (paused by the server, or the link interrupted).
func (c *Client) frozen(now time.Duration) bool { return c.paused || c.Interrupted(now) }

// Spectator reports whether the server welcomed this client as a spectator (no ship, no input).
func (c *Client) Spectator() bool { return c.spectator }

// Paused reports whether the server paused the game (PAUSE, docs/PROTOCOL.md §5.11).
func (c *Client) Paused() bool { return c.paused }

// RequestPause asks the server to pause (true) or resume the game (PAUSE, reliable). The server
// honours it only when this client is the game's only player; Paused and EventPause tell the
// outcome.
func (c *Client) RequestPause(paused bool) {
	if !c.welcomed || c.ended || c.spectator {
		return
	}
	var v uint8
	if paused {
		v = 1
	}
	_ = c.ep.SendReliable(wire.Pause{Paused: v}.Append(c.buf[:0]))
}

// mergeResult puts e into r in slot order, replacing an entry of the same slot.
func mergeResult(r wire.Results, e wire.ResultEntry) wire.Results {
	i := 0
	for i < int(r.Count) && r.Entries[i].Slot < e.Slot {
		i++
	}
	if i < int(r.Count) && r.Entries[i].Slot == e.Slot {
		r.Entries[i] = e
		return r
	}
	if int(r.Count) == len(r.Entries) {
		return r
	}
	copy(r.Entries[i+1:], r.Entries[i:r.Count])
	r.Entries[i] = e
	r.Count++
	return r
}

// Results returns the RESULTS the server sent before GAME_END, merged by slot (the reference
// server sends one command per player), ok false if none came.
func (c *Client) Results() (wire.Results, bool) { return c.results, c.results.Count > 0 }

// applyUX handles the commands of this file's features: WELCOME to a spectator, PAUSE and
// RESULTS. It reports whether it handled id.
func (c *Client) applyUX(id wire.CmdID, cmd []byte) bool {
	switch id {
	case wire.CmdPause:
		var cm wire.Pause
		if _, err := cm.Parse(cmd); err == nil && (cm.Paused == 1) != c.paused {
			c.paused = cm.Paused == 1
			if !c.paused {
				c.servAt = c.t // the server tick starts moving again from here
			}
			c.queue = append(c.queue, Event{Kind: EventPause, Paused: c.paused})
		}
		return true
	case wire.CmdResults:
		var cm wire.Results
		if _, err := cm.Parse(cmd); err == nil {
			for _, e := range cm.Entries[:cm.Count] {
				c.results = mergeResult(c.results, e)
			}
			c.queue = append(c.queue, Event{Kind: EventResults, Results: c.results})
		}
		return true
	case wire.CmdWelcome:
		var cm wire.Welcome
		if _, err := cm.Parse(cmd); err == nil && !c.welcomed && cm.Slot == wire.SpectatorSlot {
			c.welcomed, c.spectator, c.self, c.slot = true, true, ecs.Nil, -1
			c.queue = append(c.queue, Event{Kind: EventWelcome, Slot: cm.Slot, Spectator: true})
			return true
		}
	}
	return false
}

// Silence is how long no datagram has come from the server (Client.Silence).
func (s *Session) Silence() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.c.Silence(s.now())
}

// Interrupted reports whether the link is interrupted (Client.Interrupted).
func (s *Session) Interrupted() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.c.Interrupted(s.now())
}

// RequestPause asks the server to pause or resume the game (Client.RequestPause).
func (s *Session) RequestPause(paused bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.c.RequestPause(paused)
}

// Paused reports whether the server paused the game.
func (s *Session) Paused() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.c.Paused()
}

// Spectator reports whether the session watches the game without a ship.
func (s *Session) Spectator() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.c.Spectator()
}

// Results returns the RESULTS of the game (Client.Results).
func (s *Session) Results() (wire.Results, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.c.Results()
}

// Abandon ends the session as a crash would: no BYE (the server keeps the slot for a rejoin,
// docs/PROTOCOL.md §5.12); tests and the bot's crash hook use it.
func (s *Session) Abandon() { s.shutdown(false, "abandoned") }
