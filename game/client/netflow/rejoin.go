package netflow

// The player-experience API of issue 13 for the UI (docs/PROTOCOL.md §2.4.10, §5.10–§5.12):
//
//   - Death and game over: session.EventDeath (Slot, Lives) comes through Link.Events as before;
//     Frame.SlotLives and Frame.OutOfLives tell, at any moment, who is out (lives 0: the HUD marks
//     them; the local player keeps watching: "GAME OVER — spectating").
//   - Results: session.EventResults (Results: every slot's score, kills, deaths, beam hits,
//     shots, hits, out/left flags, merged in slot order) arrives just before
//     session.EventGameEnd; names are Runner.Members()'s, the local row is Frame.Slot (from
//     EventWelcome), Accuracy gives the percentage.
//   - Pause: Runner.RequestPause(true/false) when Esc opens/closes the menu; the server honours
//     it only for a lone player: Frame.Paused (and session.EventPause) say whether the game is
//     really paused ("PAUSED"), otherwise the menu says "menu (the game goes on)".
//   - Connection trouble: Frame.Interrupted and Frame.Silence ("connection interrupted… 3 s");
//     the world holds still by itself. After session.ServerTimeout the session ends
//     (EventDisconnected): the lost screen offers Rejoin with Runner.Ticket.
//   - Rejoin: Runner.Ticket(slot, lostAt) after a lost game; SaveTicket/LoadTicket keep it in
//     the settings directory for "Rejoin on next start"; scene.CmdRejoin (Code, Slot, Key from
//     the ticket, after CmdDialLobby to Ticket.Server) sends REJOIN; EvJoined then CmdWaitStart:
//     the START push with a new token follows and the game resumes (EvGameStarting).
//   - Spectate: joining a running lobby (CmdJoin with its code) answers EvJoined then
//     EvGameStarting with Spectator set; Frame.Spectator, Self ecs.Nil, no input taken.

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/net/wire"
)

// RejoinWindow is how long the server keeps a lost player's slot (the protocol's value,
// wire.RejoinWindow, docs/PROTOCOL.md §5.12).
const RejoinWindow = wire.RejoinWindow

// Ticket is what the client needs to rejoin a lost game: the lobby server, the lobby code, the
// slot and the session key of the game's START push, and until when the server keeps the slot.
type Ticket struct {
	Server  string    `json:"server"`
	Code    string    `json:"code"`
	Slot    int       `json:"slot"`
	Key     []byte    `json:"key"`
	Expires time.Time `json:"expires"`
	// Names are the players' names at the game's START, in slot order ("" unknown): after a
	// rejoin the lobby's member order no longer follows the slots, so the results screen names
	// the others from here (GameNames).
	Names []string `json:"names,omitempty"`
}

// GameNames returns the players' names of a game that is starting, in slot order, and whether
// they are (SlotName): the lobby's members (names, in join order, which is slot order at START),
// or on a rejoin the names the ticket kept from the game's START (the lobby's order no longer
// follows the slots then; without them only the local player's name is known).
func GameNames(members []string, rejoining bool, t Ticket) (names []string, byOrder bool) {
	if !rejoining {
		return members, true
	}
	if len(t.Names) > 0 {
		return t.Names, true
	}
	return members, false
}

// Valid reports whether t can still be used at now.
func (t Ticket) Valid(now time.Time) bool {
	return t.Code != "" && t.Slot >= 0 && len(t.Key) == 16 && now.Before(t.Expires)
}

// Cmd is the scene command that sends REJOIN for t (after CmdDialLobby to t.Server).
func (t Ticket) Cmd() scene.Cmd {
	c := scene.Cmd{Kind: scene.CmdRejoin, Code: t.Code, Slot: t.Slot}
	copy(c.Key[:], t.Key)
	return c
}

// noteStart remembers the latest START/SPECTATE push (Ticket).
func (n *Runner) noteStart(info lobby.StartInfo) {
	n.mu.Lock()
	n.start = info
	n.mu.Unlock()
}

// Ticket is the rejoin ticket of the game started last, whose session (in slot, from
// EventWelcome) was lost at lostAt; ok is false for a spectator or when no game started.
func (n *Runner) Ticket(slot int, lostAt time.Time) (Ticket, bool) {
	n.mu.Lock()
	st := n.start
	n.mu.Unlock()
	if st.Port == 0 || st.Spectator || st.Code == "" || slot < 0 || slot > wire.MaxSlot {
		return Ticket{}, false
	}
	return Ticket{Server: n.addr, Code: st.Code, Slot: slot, Key: append([]byte(nil), st.Key[:]...),
		Expires: lostAt.Add(RejoinWindow)}, true
}

// RequestPause asks the server to pause or resume the game (PAUSE); it is honoured only when
// the local player is the game's only player (Frame.Paused tells).
func (n *Runner) RequestPause(paused bool) {
	if p, ok := n.link.(interface{ RequestPause(bool) }); ok {
		p.RequestPause(paused)
	}
}

func (n *Runner) execRejoin(c scene.Cmd) {
	code, slot, key := c.Code, c.Slot, c.Key
	n.lobbyDo(func(lc *lobby.Client) {
		if err := lc.Rejoin(code, slot, key); err != nil {
			n.post(Reply{Ev: scene.Event{Kind: scene.EvJoinFailed, Err: lobbyErr(err)}})
			return
		}
		n.post(Reply{Ev: scene.Event{Kind: scene.EvJoined, Code: code}})
	})
}

// ticketFile is the rejoin ticket's file in the settings directory.
const ticketFile = "rejoin.json"

// SaveTicket writes t to dir (the settings directory) for "Rejoin on next start". The ticket
// holds the session key: the file is readable by its owner only (mode 0600), also when it
// replaces one an older client wrote 0644 (os.WriteFile keeps an existing file's mode): it is
// written to a new file and renamed over the old one.
func SaveTicket(dir string, t Ticket) error {
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ticketFile+".*") // mode 0600
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, ticketFile))
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}

// LoadTicket reads the ticket saved in dir; ok is false when there is none or it has expired
// at now (an expired one is removed).
func LoadTicket(dir string, now time.Time) (Ticket, bool) {
	b, err := os.ReadFile(filepath.Join(dir, ticketFile))
	if err != nil {
		return Ticket{}, false
	}
	var t Ticket
	if json.Unmarshal(b, &t) != nil || !t.Valid(now) {
		_ = ClearTicket(dir)
		return Ticket{}, false
	}
	return t, true
}

// ClearTicket removes the saved ticket (after a rejoin, or when the game ended).
func ClearTicket(dir string) error {
	err := os.Remove(filepath.Join(dir, ticketFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// SlotLives returns the lives left of slot's ship as replicated (ok false when the slot has no
// ship in the mirror: not in the game, left, or away waiting for a rejoin).
func (f *Frame) SlotLives(slot int) (lives uint8, ok bool) {
	found := false
	f.World.Each(func(e ecs.Entity) {
		if p := f.C.Player.Get(e); p != nil && int(p.Slot) == slot {
			lives, found = p.Lives, true
		}
	})
	return lives, found
}

// OutOfLives reports whether slot's ship is out of lives (the HUD marks it; for the local slot:
// "GAME OVER — spectating").
func (f *Frame) OutOfLives(slot int) bool {
	l, ok := f.SlotLives(slot)
	return ok && l == 0
}

// Accuracy is e's hits per shot in percent (0 without shots).
func Accuracy(e wire.ResultEntry) float64 {
	if e.Shots == 0 {
		return 0
	}
	return 100 * float64(e.Hits) / float64(e.Shots)
}
