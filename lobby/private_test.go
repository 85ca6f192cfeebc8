package lobby

import (
	"errors"
	"testing"
)

// TestPasswordRefusal: the refusals a private server and a private lobby answer are read as
// what to ask the player; any other answer is not.
func TestPasswordRefusal(t *testing.T) {
	for _, tc := range []struct {
		reason string
		want   PasswordAsk
	}{
		{NeedServerPassword, AskServer},
		{WrongServerPassword, AskServerAgain},
		{NeedLobbyPassword("K7QF2"), AskLobby},
		{WrongLobbyPassword("K7QF2"), AskLobbyAgain},
		{"unknown lobby K7QF2", AskNone},
		{"invalid lobby password: " + PasswordRule, AskNone},
	} {
		if got := PasswordRefusal(&ResponseError{Code: CodeWrongRequest, Reason: tc.reason}); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.reason, got, tc.want)
		}
	}
	if got := PasswordRefusal(errors.New(NeedServerPassword)); got != AskNone {
		t.Errorf("a plain error: %v, want none", got)
	}
}
