package scoredb

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby/scores"
)

// Arcade runs recorded before schema version 2 (migrations.go) were kept under their first
// stage. The Hall tells them at Open from their replay's header (docs/REPLAY.md "Layout": mode 1
// is an arcade run, with its stages), once per game: a game whose replay is gone stays a
// one-stage game.

// replayRun reads the stages of an arcade run from the header of a replay file (docs/REPLAY.md
// "Layout"): nil for a one-stage game. The lobby does not link the replay package (MaxReplayBytes),
// so this reads the few fields before the run itself; TestReplayRun checks it against replays
// the replay package writes.
func replayRun(b []byte) ([]string, error) {
	r := bytes.NewReader(b)
	bad := errors.New("not a replay header")
	magic := make([]byte, 5)
	if _, err := r.Read(magic); err != nil || string(magic[:4]) != "RTRP" || magic[4] != 1 {
		return nil, bad
	}
	str := func(max uint64) (string, error) {
		n, err := binary.ReadUvarint(r)
		if err != nil || n > max || n > uint64(r.Len()) {
			return "", bad
		}
		s := make([]byte, n)
		r.Read(s)
		return string(s), nil
	}
	for _, f := range []string{"uvarint", "uvarint", "string", "uvarint"} { // sim and protocol versions, build, time
		var err error
		if f == "string" {
			_, err = str(64)
		} else {
			_, err = binary.ReadUvarint(r)
		}
		if err != nil {
			return nil, bad
		}
	}
	mode, err := r.ReadByte()
	if err != nil || mode > 1 {
		return nil, bad
	}
	stage := func() (string, error) { // name, hash, data
		name, err := str(stagefile.MaxNameLen)
		if err != nil {
			return "", err
		}
		if _, err := str(16); err != nil {
			return "", err
		}
		if _, err := str(stagefile.MaxBytes); err != nil {
			return "", err
		}
		return name, nil
	}
	first, err := stage()
	if err != nil || mode == 0 {
		return nil, err
	}
	n, err := r.ReadByte()
	if err != nil || n < 1 || int(n) >= stagefile.MaxRun {
		return nil, bad
	}
	run := []string{first}
	for range n {
		s, err := stage()
		if err != nil {
			return nil, err
		}
		run = append(run, s)
	}
	for _, s := range run {
		if !stagefile.ValidName(s) {
			return nil, fmt.Errorf("run stage %q", s)
		}
	}
	return run, nil
}

// classifyRuns reads the replay of every game marked runUnknown and records what it is: an
// arcade run (stage stagefile.Arcade, its stages) or a one-stage game.
func (h *Hall) classifyRuns(ctx context.Context) error {
	st := h.store.Load()
	db := st.db
	rows, err := db.QueryContext(ctx, st.dialect.rebind(`SELECT id FROM games WHERE run = ?`), runUnknown)
	if err != nil {
		return fmt.Errorf("scores: arcade runs: %w", err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return fmt.Errorf("scores: arcade runs: %w", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("scores: arcade runs: %w", err)
	}
	arcade := 0
	for _, id := range ids {
		var run []string
		if _, err := uuid.Parse(id); err == nil {
			if b, err := os.ReadFile(filepath.Join(h.dir, id+scores.ReplayExt)); err == nil {
				run, _ = replayRun(b) // an unreadable header: a one-stage game, as it was kept
			}
		}
		q, args := `UPDATE games SET run = '' WHERE id = ?`, []any{id}
		if run != nil {
			q, args = `UPDATE games SET stage = ?, run = ? WHERE id = ?`, []any{stagefile.Arcade, strings.Join(run, ","), id}
			arcade++
		}
		if _, err := db.ExecContext(ctx, st.dialect.rebind(q), args...); err != nil {
			return fmt.Errorf("scores: arcade runs: game %s: %w", id, err)
		}
	}
	if len(ids) > 0 {
		h.log.Info("games of an older server classified from their replays", "games", len(ids), "arcade_runs", arcade)
	}
	return nil
}
