package scene

import (
	"errors"
	"reflect"
	"testing"
)

// The browser keeps the offered stages; creating a lobby names the chosen stage; the room sets
// the stage (SET_STAGE) and shows a refusal; the stage of a starting game goes to the session
// dial, which resolves it.
func TestStageChoice(t *testing.T) {
	m := New("a:1", Auto{})
	m.Handle(Event{Kind: EvPlay})
	m.Handle(Event{Kind: EvSubmitAddr, Addr: "a:1"})
	m.Handle(Event{Kind: EvConnected})
	m.Handle(Event{Kind: EvLobbies, Lobbies: []Lobby{{"K7QF2", 1, false, "short", 0}}, Stages: []string{"stage1", "short"}})
	if !reflect.DeepEqual(m.Stages, []string{"stage1", "short"}) || m.Lobbies[0].Stage != "short" {
		t.Fatalf("offered stages %v, lobbies %+v", m.Stages, m.Lobbies)
	}
	cmds := m.Handle(Event{Kind: EvCreate, Stage: "short"})
	if len(cmds) != 1 || cmds[0].Kind != CmdJoin || cmds[0].Code != "" || cmds[0].Stage != "short" {
		t.Fatalf("create with a stage: %+v", cmds)
	}
	expect(t, m, m.Handle(Event{Kind: EvJoined, Code: "ABCDE"}), Room, CmdWaitStart)
	cmds = m.Handle(Event{Kind: EvSetStage, Stage: "stage1"})
	expect(t, m, cmds, Room, CmdSetStage)
	if cmds[0].Stage != "stage1" {
		t.Fatalf("SET_STAGE %+v", cmds[0])
	}
	expect(t, m, m.Handle(Event{Kind: EvStageFailed, Err: errors.New("only the lobby owner (bob) may change the stage")}), Room)
	if m.Error == "" {
		t.Fatal("a refused SET_STAGE must be shown")
	}
	cmds = m.Handle(Event{Kind: EvGameStarting, Port: 5, Token: 6, Stage: "cave", StageHash: "0123456789abcdef"})
	expect(t, m, cmds, Room, CmdDialSession)
	if cmds[0].Stage != "cave" || cmds[0].StageHash != "0123456789abcdef" {
		t.Fatalf("dial session without the stage: %+v", cmds[0])
	}
}

// -autoplay -stage creates the lobby with that stage; -lobby CODE joins (the stage is the lobby's).
func TestAutoFlowStage(t *testing.T) {
	m := New("h:1", Auto{On: true, Stage: "short"})
	m.Begin()
	cmds := m.Handle(Event{Kind: EvConnected})
	if len(cmds) != 1 || cmds[0].Kind != CmdJoin || cmds[0].Code != "" || cmds[0].Stage != "short" {
		t.Fatalf("auto create: %+v", cmds)
	}
	m = New("h:1", Auto{On: true, Lobby: "ABCDE", Stage: "short"})
	m.Begin()
	cmds = m.Handle(Event{Kind: EvConnected})
	if len(cmds) != 1 || cmds[0].Code != "ABCDE" || cmds[0].Stage != "" {
		t.Fatalf("auto join: %+v", cmds)
	}
}

// The owner's difficulty choice in the room becomes SET_DIFFICULTY.
func TestSetDifficultyInRoom(t *testing.T) {
	m := New("a:1", Auto{})
	m.Scene, m.connected = Room, true
	cmds := m.Handle(Event{Kind: EvSetDifficulty, Level: "hard"})
	if len(cmds) != 1 || cmds[0].Kind != CmdSetDifficulty || cmds[0].Level != "hard" {
		t.Fatalf("EvSetDifficulty gave %+v", cmds)
	}
}
