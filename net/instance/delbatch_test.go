package instance

import (
	"testing"

	"github.com/rtype/rtype/net/transport"
	"github.com/rtype/rtype/net/wire"
)

// A tick's deletions go out as DEL_ENTS commands that each fit a reliable slot
// (transport.RelMaxCmd), every entity once and in order; a deletion costs its id, not a
// command.
func TestDelBatch(t *testing.T) {
	var b DelBatch
	if b.Cmd() != nil || b.Full(1<<32|5) {
		t.Fatal("an empty batch has a command or is full")
	}
	var want, got []uint64
	var cmds int
	check := func(cmd []byte) {
		cmds++
		if len(cmd) > transport.RelMaxCmd {
			t.Fatalf("DEL_ENTS of %d bytes, reliable slots hold %d", len(cmd), transport.RelMaxCmd)
		}
		var d wire.DelEnts
		if n, err := d.Parse(cmd); err != nil || n != len(cmd) {
			t.Fatalf("DEL_ENTS % x: %d, %v", cmd, n, err)
		}
		for it := d.Entities(); ; {
			e, ok := it.Next()
			if !ok {
				break
			}
			got = append(got, e)
		}
	}
	for i := uint64(0); i < 100; i++ {
		e := (1+i*7)<<32 | (i * 37) // varints of one to three bytes
		want = append(want, e)
		if b.Full(e) {
			check(b.Cmd())
			b.Reset()
		}
		b.Add(e)
	}
	check(b.Cmd())
	b.Reset()
	if b.Cmd() != nil {
		t.Fatal("a reset batch has a command")
	}
	if len(got) != len(want) {
		t.Fatalf("%d entities deleted, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("deletion %d: %#x, want %#x", i, got[i], want[i])
		}
	}
	if cmds > 100*5/(transport.RelMaxCmd-wire.DelEntsOverhead)+1 {
		t.Fatalf("100 deletions in %d commands", cmds)
	}
	if a := testing.AllocsPerRun(100, func() {
		b.Add(1<<32 | 300)
		_ = b.Cmd()
		b.Reset()
	}); a != 0 {
		t.Fatalf("%v allocs", a)
	}
}
