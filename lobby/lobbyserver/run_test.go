package lobbyserver

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby"
)

// The reference client follows an arcade lobby: Create("arcade") gets the run's first stage as
// the lobby's stage and every stage of the run (Run), the game started plays the run
// (GameSpec.Run), and a one-stage choice clears it. A server whose catalogue has no run refuses
// the pseudo-stage by name.
func TestClientArcadeRun(t *testing.T) {
	cat, err := stagefile.LoadCatalogue("stage1", game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.SetRun([]string{"short", "stage1", "short"}); err != nil {
		t.Fatal(err)
	}
	st := newFakeStarter()
	_, addr := startServer(t, ServerConfig{Stages: cat, Starter: st})
	c, _ := dialClient(t, addr, "alice")
	if _, err := c.Create(stagefile.Arcade); err != nil {
		t.Fatal(err)
	}
	short, stage1 := cat.ByName("short"), cat.ByName("stage1")
	want := []lobby.StageInfo{{Name: "short", Hash: short.Hash}, {Name: "stage1", Hash: stage1.Hash}, {Name: "short", Hash: short.Hash}}
	roundTrip(t, c) // the pushes of the join came before this response
	if !reflect.DeepEqual(c.Run(), want) {
		t.Errorf("Run = %+v, want %+v", c.Run(), want)
	}
	if _, s := c.Stage(); s.Name != "short" {
		t.Errorf("an arcade lobby's STAGE push names %q, want the run's first stage", s.Name)
	}
	ls, err := c.Lobbies()
	if err != nil || len(ls) != 1 || ls[0].Stage != stagefile.Arcade {
		t.Fatalf("GET_LOBBIES: %+v %v", ls, err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.WaitStart(ctx); err != nil {
		t.Fatal(err)
	}
	if call := <-st.ch; call.stage != "short,stage1,short" {
		t.Errorf("the game plays %q, want the run", call.stage)
	}

	c2, _ := dialClient(t, addr, "bob")
	if _, err := c2.Create("short"); err != nil {
		t.Fatal(err)
	}
	if err := c2.SetStage(stagefile.Arcade); err != nil {
		t.Fatal(err)
	}
	if roundTrip(t, c2); len(c2.Run()) != 3 {
		t.Errorf("SET_STAGE arcade: Run = %+v", c2.Run())
	}
	if err := c2.SetStage("stage1"); err != nil {
		t.Fatal(err)
	}
	roundTrip(t, c2)
	if _, s := c2.Stage(); c2.Run() != nil || s.Name != "stage1" {
		t.Errorf("SET_STAGE stage1: Run %+v, stage %q", c2.Run(), s.Name)
	}

	none, err := stagefile.LoadCatalogue("stage1", game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	if err := none.SetRun(nil); err != nil {
		t.Fatal(err)
	}
	_, addr2 := startServer(t, ServerConfig{Stages: none, Starter: newFakeStarter()})
	c3, _ := dialClient(t, addr2, "cyd")
	if _, err := c3.Create(stagefile.Arcade); err == nil || !strings.Contains(err.Error(), "this server offers no arcade run") {
		t.Errorf("Create(arcade) on a server without a run: %v", err)
	}
}

func TestParseRun(t *testing.T) {
	h := "0123456789abcdef"
	if r, err := lobby.ParseRun(nil); r != nil || err != nil {
		t.Errorf("no entries: %v %v", r, err)
	}
	if r, err := lobby.ParseRun([]string{"a:" + h, "a:" + h}); err != nil || len(r) != 2 {
		t.Errorf("a stage twice: %v %v", r, err)
	}
	for _, bad := range [][]string{{"a:" + h}, {"a:" + h, "b"}, {"a:" + h, "b:12"}, {"a b:" + h, "c:" + h}} {
		if _, err := lobby.ParseRun(bad); err == nil {
			t.Errorf("ParseRun(%q): no error", bad)
		}
	}
	many := make([]string, stagefile.MaxRun+1)
	for i := range many {
		many[i] = "a:" + h
	}
	if _, err := lobby.ParseRun(many); err == nil {
		t.Errorf("a run of %d stages parses", len(many))
	}
}

// roundTrip makes a request: the pushes the server sent before its response have been handled.
func roundTrip(t *testing.T, c *lobby.Client) {
	t.Helper()
	if _, err := c.Stages(); err != nil {
		t.Fatal(err)
	}
}

// Practice through the reference client: the owner of a solo lobby sets a section (Section
// follows the SECTION push), the game starts there (GameSpec.Section, Practice); a second member
// takes the lobby back to the start.
func TestClientPractice(t *testing.T) {
	st := newFakeStarter()
	_, addr := startServer(t, ServerConfig{Starter: st})
	c, _ := dialClient(t, addr, "alice")
	if _, err := c.Create("stage1"); err != nil {
		t.Fatal(err)
	}
	stage1, _ := stagefile.Embedded("stage1", game.ParseScript)
	boss := stage1.Script.PracticeBoss()
	if err := c.SetSection(boss + 1); err == nil {
		t.Error("a section past the boss was accepted")
	}
	if err := c.SetSection(boss); err != nil {
		t.Fatal(err)
	}
	if roundTrip(t, c); c.Section() != boss {
		t.Errorf("Section %d after SET_SECTION %d", c.Section(), boss)
	}
	code, _ := c.Stage()
	b, _ := dialClient(t, addr, "bob")
	if _, err := b.Join(code); err != nil {
		t.Fatal(err)
	}
	if roundTrip(t, c); c.Section() != 0 {
		t.Errorf("Section %d after a second member joined, want 0", c.Section())
	}
	if err := c.SetSection(1); err == nil || !strings.Contains(err.Error(), "solo lobby") {
		t.Errorf("SET_SECTION with two members: %v", err)
	}
	if err := b.Leave(); err != nil {
		t.Fatal(err)
	}
	if err := c.SetSection(2); err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	if call := <-st.ch; call.spec.Section != 2 || !call.spec.Practice() {
		t.Errorf("the game starts at section %d (practice %v), want 2", call.spec.Section, call.spec.Practice())
	}
}

// FuzzParseRun: any RUN push arguments parse without a panic, and a parsed run is 2..16 valid
// entries that print back to the same arguments.
func FuzzParseRun(f *testing.F) {
	f.Add("short:0123456789abcdef,tiny:3f6982c55f73aa30")
	f.Add("")
	f.Add("a:0123456789abcdef")
	f.Fuzz(func(t *testing.T, body string) {
		var args []string
		if body != "" {
			args = strings.Split(body, ",")
		}
		run, err := lobby.ParseRun(args)
		if err != nil || run == nil {
			return
		}
		if len(run) < 2 || len(run) > stagefile.MaxRun {
			t.Fatalf("%q: a run of %d stages", body, len(run))
		}
		for i, s := range run {
			if s.Name+":"+s.Hash != args[i] {
				t.Fatalf("%q: entry %d is %+v", body, i, s)
			}
		}
	})
}
