package game

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// docs/PROTOCOL.md §2.4.16: a boss practice starts practiceBossLead px of scroll before the
// boss's at (2 s at stage 1's scroll speed), in the music section that holds that scroll, and
// none of the waves before it spawn.
func TestBossPracticeLeadDoc(t *testing.T) {
	st, err := LoadStage("stage1")
	if err != nil {
		t.Fatal(err)
	}
	secs := strconv.FormatFloat(float64(practiceBossLead/st.ScrollSpeed), 'f', -1, 32)
	want := fmt.Sprintf("**%d px of scroll** before `boss.at`\n(never before 0; %s s at stage 1's `scrollSpeed` of %v px/s)", practiceBossLead, secs, st.ScrollSpeed)
	doc, err := os.ReadFile("../docs/PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), want) {
		t.Errorf("docs/PROTOCOL.md §2.4.16 lacks %q", want)
	}
	s := NewSim(Config{Seed: 1, Players: 1, Stage: st, Section: st.PracticeBoss()})
	at := st.Boss.At - practiceBossLead
	if got := s.Scroll(); got != at {
		t.Fatalf("a boss practice starts at scroll %v, want %v (%d px before the boss at %v)", got, at, practiceBossLead, st.Boss.At)
	}
	sec := s.c.Stage.Get(s.stageEnt).Section
	if int(sec) >= len(st.Sections) || st.Sections[sec].At > at || (int(sec)+1 < len(st.Sections) && st.Sections[sec+1].At <= at) {
		t.Errorf("a boss practice starts in section %d, which does not hold scroll %v", sec, at)
	}
	for _, sp := range s.stage.spawns[:s.spawnIdx] {
		if sp.at >= at {
			t.Fatalf("a wave at %v was skipped by a practice starting at %v", sp.at, at)
		}
	}
	if s.spawnIdx < len(s.stage.spawns) && s.stage.spawns[s.spawnIdx].at < at {
		t.Errorf("a wave at %v, before the practice's start, is still to spawn", s.stage.spawns[s.spawnIdx].at)
	}
}
