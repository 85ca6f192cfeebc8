package scene

import "testing"

func TestWatchingScreen(t *testing.T) {
	m := at(Watching, false)
	m.watchFrom = Replays
	ignores(t, m, EvStart, EvJoin, EvMenu, EvPlay, EvTick, EvGameEnd, EvContinue)
	expect(t, m, m.Handle(Event{Kind: EvBack}), Replays, CmdCloseReplay, CmdListReplays) // the list again
	m = at(Watching, true)
	m.watchFrom = HallOfFame
	expect(t, m, m.Handle(Event{Kind: EvBack}), HallOfFame, CmdCloseReplay)
	m = at(Watching, true)
	m.watchFrom = HallOfFame
	expect(t, m, m.Handle(Event{Kind: EvLobbyLost, Err: errRefused}), Watching) // a replay needs no lobby
	expect(t, m, m.Handle(Event{Kind: EvBack}), Title, CmdCloseReplay)
}
