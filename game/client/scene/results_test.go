package scene

import "testing"

func TestResultsScreen(t *testing.T) {
	m := at(Results, true)
	ignores(t, m, EvStart, EvJoin, EvMenu, EvPlay, EvContinue, EvBack) // confirm and back: not yet (ResultsGuardTicks)
	for i := 0; i < ResultsGuardTicks; i++ {
		expect(t, m, m.Handle(Event{Kind: EvTick}), Results) // no -autoplay: the results wait
	}
	expect(t, m, m.Handle(Event{Kind: EvBack}), Room, CmdWaitStart)

	m = at(Results, false) // the lobby went during the game
	m.Reason, m.timer = "The server was shut down.", ResultsGuardTicks
	expect(t, m, m.Handle(Event{Kind: EvContinue}), Title)
	if m.Reason != "" {
		t.Fatalf("reason kept: %q", m.Reason)
	}

	m = New("h:1", Auto{On: true, ResultsTicks: 3})
	m.Scene, m.connected = Results, true
	m.Handle(Event{Kind: EvTick})
	m.Handle(Event{Kind: EvTick})
	expect(t, m, m.Handle(Event{Kind: EvTick}), Room, CmdWaitStart) // -autoplay: after ResultsTicks
}
