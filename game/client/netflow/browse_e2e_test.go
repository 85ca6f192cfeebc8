package netflow

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/client/invite"
	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/net/serverlist"
	"github.com/rtype/rtype/net/wire"
)

// driveUntil runs m's commands on n and hands it n's replies until done holds (real sockets: the
// deadline only ends a run stuck for good); each reply also goes to onEvent.
func driveUntil(t *testing.T, n *Runner, m *scene.Machine, cmds []scene.Cmd, done func() bool, onEvent func(scene.Event) []scene.Cmd) {
	t.Helper()
	for _, c := range cmds {
		n.Exec(c)
	}
	deadline := time.After(30 * time.Second)
	for !done() {
		select {
		case r := <-n.Events():
			n.Accept(r)
			cmds := m.Handle(r.Ev)
			if onEvent != nil {
				cmds = append(cmds, onEvent(r.Ev)...)
			}
			for _, c := range cmds {
				n.Exec(c)
			}
		case <-deadline:
			t.Fatalf("stuck in %v (busy %q error %q detail %q)", m.Scene, m.Busy, m.Error, m.Detail)
		}
	}
}

// TestJoinFromListAndInvite: over real sockets, the server browser reads a list served over
// HTTP (serverlist.Fetch), Enter on the listed server reaches its lobby browser, a lobby is
// created; its invite link, given to a second client as `rtype-client LINK` does (Server and
// Lobby from invite.Parse, the keyless flow), opens that lobby (JOIN_LOBBY of its code answered).
func TestJoinFromListAndInvite(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a lobby server")
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	cat, err := stagefile.LoadCatalogue("stage1", game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := startRealServer(t, cat)
	list := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"servers": []serverlist.Entry{
			{Name: "listed", Addr: addr, Protocol: wire.Version, Capacity: 16, Version: "dev"},
		}})
	}))
	defer list.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := NewRunner(ctx, quiet, "host", "")
	defer n.Close()
	n.SetServerSource(NetSource{URLs: []string{list.URL}})
	m := scene.New("", scene.Auto{})
	joined := false
	driveUntil(t, n, m, m.Handle(scene.Event{Kind: scene.EvPlay}), func() bool { return m.Scene == scene.Room && m.Busy == "" }, func(ev scene.Event) []scene.Cmd {
		switch {
		case ev.Kind == scene.EvServerList && !joined:
			rows := m.Rows()
			if len(rows) != 1 || rows[0].Name != "listed" || rows[0].Addr != addr {
				t.Fatalf("listed %+v (error %q, detail %q)", rows, m.Error, m.Detail)
			}
			joined = true
			return m.Handle(scene.Event{Kind: scene.EvSubmitAddr, Addr: rows[0].Addr}) // Enter on its row
		case ev.Kind == scene.EvLobbies && m.Scene == scene.Browser:
			return m.Handle(scene.Event{Kind: scene.EvCreate})
		}
		return nil
	})
	if len(m.Recent) != 1 || m.Recent[0] != addr {
		t.Errorf("the server joined is not recent: %v", m.Recent)
	}

	link := invite.Link(m.Addr, m.Code)
	laddr, code, err := invite.Parse(link)
	if err != nil || laddr != addr || code != m.Code {
		t.Fatalf("invite %q parsed %q %q %v", link, laddr, code, err)
	}
	n2 := NewRunner(ctx, quiet, "friend", "")
	defer n2.Close()
	m2 := scene.New(laddr, scene.Auto{On: true, Lobby: code})
	driveUntil(t, n2, m2, m2.Begin(), func() bool { return m2.Scene == scene.Room && m2.Busy == "" }, nil)
	if m2.Code != m.Code {
		t.Fatalf("the invite opened lobby %q, want %q", m2.Code, m.Code)
	}
}
