package netflow

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/lobby"
)

// ResumeBackoff is how long the client waits before each try to take its place back after the
// lobby connection went mid-game (scene.CmdResumeLobby): the last wait repeats until the game
// ends. A restarted lobby is back within seconds (docs/DEPLOY.md "Upgrading").
var ResumeBackoff = []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second}

// resumeWait is the wait before try i (0, 1, ...).
func resumeWait(i int) time.Duration {
	if i < len(ResumeBackoff) {
		return ResumeBackoff[i]
	}
	return ResumeBackoff[len(ResumeBackoff)-1]
}

// resumeFinal reports whether err ends the tries: the lobby answered and refused (the game is
// gone, the proof is wrong); a dial or a connection that fails is tried again, and so is "no
// lobby with code" (a restarted lobby learns its hosts' games within seconds, lobby.IsNoLobby).
func resumeFinal(err error) bool {
	var re *lobby.ResponseError
	return errors.As(err, &re) && !lobby.IsNoLobby(err)
}

// watchLobbyLost posts EvLobbyLost when lc fails while session l plays (the lobby restarted or
// the network went): the scene takes the place back (CmdResumeLobby) while the game plays on.
func (n *Runner) watchLobbyLost(lc *lobby.Client, l Link) {
	n.goDo(func() {
		select {
		case <-lc.Done():
			if errors.Is(lc.Err(), lobby.ErrClosed) {
				return // closed by this client
			}
			select {
			case <-l.Done():
				return // the session ended with it: the scene hears that
			default:
			}
			n.post(Reply{Ev: scene.Event{Kind: scene.EvLobbyLost, Err: lc.Err()}})
		case <-l.Done():
		case <-n.ctx.Done():
		}
	})
}

// stopResume stops the tries of CmdResumeLobby.
func (n *Runner) stopResume() {
	if n.resumeCancel != nil {
		n.resumeCancel()
		n.resumeCancel = nil
	}
}

// execResume runs CmdResumeLobby: the slot is the session's (its WELCOME), the code and the key
// the game's START push.
func (n *Runner) execResume(c scene.Cmd) {
	n.stopResume()
	slot := -1
	if n.link != nil {
		n.link.Frame(func(f *Frame) {
			if !f.Spectator {
				slot = f.Slot
			}
		})
	}
	n.mu.Lock()
	st := n.start
	n.mu.Unlock()
	if slot < 0 || st.Code == "" || st.Spectator {
		n.post(Reply{Ev: scene.Event{Kind: scene.EvResumeFailed, Err: errors.New("no place to take back (no slot of a game)")}})
		return
	}
	addr, name, code, key := c.Addr, n.name, st.Code, st.Key
	password := ""
	if n.pwAddr == addr {
		password = n.password
	}
	ctx, cancel := context.WithCancel(n.ctx)
	n.resumeCancel = cancel
	n.goDo(func() {
		for i := 0; ; i++ {
			select {
			case <-ctx.Done():
				return
			case <-time.After(resumeWait(i)):
			}
			lc, id, err := n.dialAuth(ctx, addr, name, password)
			if err != nil { // the lobby is not back yet (or refuses connections for now)
				n.log.Debug("lobby resume: dial", "addr", addr, "try", i+1, "err", err)
				continue
			}
			err = lc.Resume(code, slot, key)
			if err != nil || ctx.Err() != nil {
				lc.Close()
			}
			switch {
			case ctx.Err() != nil:
				return
			case err == nil:
				n.log.Info("lobby resumed", "addr", addr, "lobby", code, "slot", slot, "tries", i+1)
				n.post(Reply{Ev: scene.Event{Kind: scene.EvResumed, Code: code}, Lobby: lc, ID: id})
				return
			case resumeFinal(err):
				n.post(Reply{Ev: scene.Event{Kind: scene.EvResumeFailed, Err: lobbyErr(err)}})
				return
			}
			n.log.Debug("lobby resume", "addr", addr, "try", i+1, "err", err)
		}
	})
}

// dialAuth dials the lobby at addr and authenticates as name (with the server's password): at
// most 5 s.
func (n *Runner) dialAuth(ctx context.Context, addr, name, password string) (*lobby.Client, uuid.UUID, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	lc, err := lobby.Dial(ctx, addr)
	if err != nil {
		return nil, uuid.UUID{}, err
	}
	type res struct {
		id  uuid.UUID
		err error
	}
	ch := make(chan res, 1)
	go func() { id, err := lc.AuthenticatePrivate(name, password); ch <- res{id, err} }()
	select {
	case r := <-ch:
		if r.err != nil {
			lc.Close()
			return nil, uuid.UUID{}, fmt.Errorf("authenticate: %w", lobbyErr(r.err))
		}
		return lc, r.id, nil
	case <-ctx.Done():
		lc.Close()
		return nil, uuid.UUID{}, fmt.Errorf("no answer to AUTHENTICATE: %w", context.DeadlineExceeded)
	}
}
