package rules

import "testing"

func TestParseDifficulty(t *testing.T) {
	for _, d := range Difficulties {
		got, err := ParseDifficulty(d.String())
		if err != nil || got != d {
			t.Errorf("ParseDifficulty(%q) = %v, %v", d.String(), got, err)
		}
	}
	if _, err := ParseDifficulty("insane"); err == nil {
		t.Error("an unknown level parsed")
	}
	if Difficulty(0) != DifficultyNormal {
		t.Error("the zero Difficulty is not Normal")
	}
}

// A game's result names itself in logs and summaries (String).
func TestResultNames(t *testing.T) {
	for r, want := range map[Result]string{ResultDefeat: "defeat", ResultVictory: "victory", ResultAborted: "aborted", 3: "unknown"} {
		if got := r.String(); got != want {
			t.Errorf("Result(%d).String() = %q, want %q", r, got, want)
		}
	}
}
