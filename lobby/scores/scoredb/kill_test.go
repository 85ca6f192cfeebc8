package scoredb

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/lobby/scores"
)

// replayFor is the replay bytes the kill -9 child writes for game id: n bytes that depend on
// the id, so that a file with another game's bytes or a cut one is told apart.
func replayFor(id uuid.UUID, n int) []byte {
	out := make([]byte, 0, n+sha256.Size)
	seed := sha256.Sum256(id[:])
	for len(out) < n {
		out = append(out, seed[:]...)
		seed = sha256.Sum256(seed[:])
	}
	return out[:n]
}

// killChild is the child process of TestKill9: it records games into the SQLite hall of the
// directory in RTYPE_SCORES_KILL_CHILD one after the other and prints "stored N" once the Nth
// is committed, until it is killed.
func killChild() {
	dir := os.Getenv(killChildEnv)
	h, err := Open(context.Background(), Config{Dir: dir, Dialect: SQLite, DSN: filepath.Join(dir, "rtype.db"),
		Logger: slog.New(slog.DiscardHandler), RetryMin: time.Millisecond, RetryMax: time.Millisecond})
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(1)
	}
	for n := 1; ; n++ {
		r := rec("stage1", time.Duration(n)*time.Second, rules.ResultDefeat, uint32(n), uint32(2*n))
		size := 20_000 + (n*7919)%300_000 // 20..320 KB: the kill lands in a write, a sync or a commit
		binary.LittleEndian.PutUint32(r.ID[:4], uint32(size))
		h.Record(r, replayFor(r.ID, size))
		for h.Stats().Recorded < uint64(n) {
			time.Sleep(100 * time.Microsecond)
		}
		fmt.Println("stored", n)
	}
}

// TestKill9 kills a process that records games with SIGKILL mid-write, three times on the same
// data directory, and checks after each kill: the database opens and passes PRAGMA
// integrity_check, every row's replay file is whole, no game acknowledged as stored is lost
// (only the one being written may be), and the next Open removes what the kill left behind.
func TestKill9(t *testing.T) {
	dir := t.TempDir()
	stored := 0
	for round := range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), killChildEnv+"="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		acked := 0
		target := 5 + round*3
		for acked < target && sc.Scan() {
			n, err := strconv.Atoi(strings.TrimPrefix(sc.Text(), "stored "))
			if err != nil {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("child said %q", sc.Text())
			}
			acked = n
		}
		// Kill a little after the latest acknowledgement: the child is writing the next game.
		time.Sleep(time.Duration(1+round*2) * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		for sc.Scan() { // lines written before the kill
			if n, err := strconv.Atoi(strings.TrimPrefix(sc.Text(), "stored ")); err == nil {
				acked = n
			}
		}
		err = cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Fatalf("child did not die of SIGKILL: %v", err)
		}
		t.Logf("round %d: killed after %d games acknowledged", round, acked)
		stored = checkAfterKill(t, dir, stored, acked)
	}
}

// checkAfterKill checks dir after a kill: before games were there, the child acknowledged acked
// more. It returns the games there now.
func checkAfterKill(t *testing.T, dir string, before, acked int) int {
	t.Helper()
	s := openStore(t, SQLite, filepath.Join(dir, "rtype.db"))
	var ok string
	if err := s.DB().QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity_check: %q %v", ok, err)
	}
	rows, err := s.replays(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rows) - before; n < acked || n > acked+1 {
		t.Fatalf("%d new games in the database after the kill, %d acknowledged: want %d or %d", n, acked, acked, acked+1)
	}
	for _, r := range rows {
		b, err := os.ReadFile(filepath.Join(dir, "replays", r.id.String()+scores.ReplayExt))
		if err != nil {
			t.Fatalf("game %s: its replay: %v", r.id, err)
		}
		want := replayFor(r.id, int(binary.LittleEndian.Uint32(r.id[:4])))
		if int64(len(b)) != r.bytes || !bytes.Equal(b, want) {
			t.Fatalf("game %s: replay of %d bytes (row says %d) is not the one written", r.id, len(b), r.bytes)
		}
	}
	s.Close()
	// What the kill left (a temporary file, a replay whose row was not committed) goes at the next
	// Open once old enough.
	later := func() time.Time { return time.Now().Add(2 * orphanAge) }
	h, err := Open(ctx(t), Config{Dir: dir, Dialect: SQLite, DSN: filepath.Join(dir, "rtype.db"), Logger: slog.New(slog.DiscardHandler), Now: later})
	if err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(filepath.Join(dir, "replays"))
	if len(ents) != len(rows) {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Fatalf("%d files in replays/ after the sweep, %d games: %v", len(ents), len(rows), names)
	}
	var total int64
	for _, r := range rows {
		total += r.bytes
	}
	if got := h.Stats().ReplayBytes; got != total {
		t.Fatalf("ReplayBytes %d, want %d", got, total)
	}
	h.Close(ctx(t))
	return len(rows)
}
