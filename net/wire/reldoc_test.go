package wire

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// PROTOCOL.md §3.6.2 lists exactly the commands ReliableCapable accepts after a REL: a client
// written from the document that drops the others must not drop what the server sends reliably
// (the list once omitted PAUSE and RESULTS, and such a client never got GAME_END).
func TestRelListMatchesDoc(t *testing.T) {
	b, err := os.ReadFile("../../docs/PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i := strings.Index(doc, "#### 3.6.2 REL")
	if i < 0 {
		t.Fatal("no §3.6.2 REL in PROTOCOL.md")
	}
	sec := doc[i:]
	start := strings.Index(sec, "Only ")
	end := strings.Index(sec, "may follow")
	if start < 0 || end < start {
		t.Fatal("§3.6.2 has no \"Only ... may follow a REL\" sentence")
	}
	listed := map[CmdID]bool{}
	for _, m := range regexp.MustCompile(`\((\d+)\)`).FindAllStringSubmatch(sec[start:end], -1) {
		n, _ := strconv.Atoi(m[1])
		listed[CmdID(n)] = true
	}
	for id := CmdID(1); id <= MaxCmd; id++ {
		if id.ReliableCapable() != listed[id] {
			t.Errorf("command %d: ReliableCapable %v, listed in §3.6.2 %v", id, id.ReliableCapable(), listed[id])
		}
	}
}
