package scene

import (
	"errors"
	"testing"
)

func TestReplaysScreen(t *testing.T) {
	m := at(Replays, false)
	m.Busy, m.watchFrom = "Loading replays", Replays
	ignores(t, m, EvStart, EvJoin, EvMenu, EvPlay, EvTick, EvGameEnd)
	expect(t, m, m.Handle(Event{Kind: EvWatch, Path: "/r/a.rtr"}), Replays) // still listing
	rows := []ReplayInfo{{Path: "/r/a.rtr", Stage: "stage1"}}
	expect(t, m, m.Handle(Event{Kind: EvReplayList, Replays: rows}), Replays)
	if m.Busy != "" || len(m.Replays) != 1 {
		t.Fatalf("list: busy %q rows %v", m.Busy, m.Replays)
	}
	cmds := m.Handle(Event{Kind: EvWatch, Path: "/r/a.rtr"})
	expect(t, m, cmds, Replays, CmdOpenReplay)
	if cmds[0].Path != "/r/a.rtr" {
		t.Fatalf("open %+v", cmds[0])
	}
	expect(t, m, m.Handle(Event{Kind: EvWatchFailed, Err: errors.New("bad header")}), Replays, CmdListReplays)
	if m.Error == "" || m.Busy != "" {
		t.Fatalf("failure: error %q busy %q", m.Error, m.Busy)
	}
	m.Handle(Event{Kind: EvWatch, Path: "/r/a.rtr"})
	expect(t, m, m.Handle(Event{Kind: EvWatchReady}), Watching)

	m = at(Replays, false)
	expect(t, m, m.Handle(Event{Kind: EvReplayList, Err: errors.New("permission denied")}), Replays)
	if m.Error == "" {
		t.Fatal("an unreadable folder is said")
	}
	expect(t, m, m.Handle(Event{Kind: EvBack}), Title)
}
