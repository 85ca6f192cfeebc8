package lobby

import (
	"strings"
	"testing"
	"time"
)

// parseClosing reads an unknown reason as a shutdown and refuses malformed pushes (docs/PROTOCOL.md §2.5.13).
func TestParseClosing(t *testing.T) {
	for in, want := range map[string]Closing{
		"later,0":         {Why: ClosingShutdown},
		"shutdown,7,a%25": {Why: ClosingShutdown, Left: 7 * time.Second, Text: "a%"},
	} {
		got, err := parseClosing(strings.Split(in, ","))
		if err != nil || got != want {
			t.Errorf("parseClosing(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"shutdown", "shutdown,-1", "shutdown,01", "shutdown,86401", "shutdown,1,%zz"} {
		if got, err := parseClosing(strings.Split(in, ",")); err == nil {
			t.Errorf("parseClosing(%q) = %+v, want an error", in, got)
		}
	}
}
