package session_test

import (
	"context"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/lobby/handoff"
	"github.com/rtype/rtype/net/instance"
	"github.com/rtype/rtype/net/session"
)

// TestSetInputInsideView: the bot (net/bot play) and any autopilot read the mirror in View and
// set the buttons from inside the callback:
//
//	s.View(func(v *session.View) { s.SetInput(game.Autopilot(v.World, v.C, nil, v.Self, v.Tick).Buttons) })
//
// View holds the session lock while fn runs, so SetInput must not take that lock again: a
// change of buttons must not deadlock the session (which then stops sending and is dropped by
// the server as silent).
func TestSetInputInsideView(t *testing.T) {
	stage, err := game.LoadStage("short")
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := instance.NewManager(instance.Config{Host: "127.0.0.1", Stage: stage})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = mgr.Shutdown(ctx)
	}()
	id := uuid.New()
	g, err := mgr.StartGame(handoff.GameSpec{Code: "TEST2", Stage: "", Members: []handoff.Member{{UUID: id, Name: "p", Slot: 0, Token: 77}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := session.Dial(ctx, session.Config{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(g.Port())), UUID: id, Token: 77})
	if err != nil {
		t.Fatal(err)
	}
	// wait for a first snapshot so the session has a server tick to stamp inputs with
	deadline := time.Now().Add(5 * time.Second)
	for {
		var tick uint32
		s.View(func(v *session.View) { tick = uint32(v.Tick) })
		if tick > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, b := range []game.Buttons{game.BtnUp, game.BtnDown | game.BtnFire, 0} {
			s.View(func(v *session.View) { s.SetInput(b) })
			time.Sleep(20 * time.Millisecond)
		}
	}()
	select {
	case <-done:
		s.Close()
		s.Wait()
	case <-time.After(3 * time.Second):
		// the session is deadlocked: its goroutines cannot be released
		t.Fatal("SetInput called inside View did not return within 3 s: self-deadlock on the session lock")
	}
}
