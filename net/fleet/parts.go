package fleet

import (
	"errors"
	"fmt"

	"github.com/rtype/rtype/game/replay"
)

// ReplayPartBytes is the most replay bytes one replay message carries (docs/CONTROL.md §4.1):
// 32 KiB, base64 43 692 characters, well within a frame's MaxFrame.
const ReplayPartBytes = 32 << 10

// MaxReplayParts bounds the parts of one replay: a replay is at most replay.MaxBytes (8 MiB),
// so 256 parts.
const MaxReplayParts = (replay.MaxBytes + ReplayPartBytes - 1) / ReplayPartBytes

// replayMsgOverhead bounds a replay message's bytes besides its data's base64: the type, game,
// part and parts fields.
const replayMsgOverhead = 128

// A full part's message fits a frame: a larger ReplayPartBytes does not compile.
const _ = uint(MaxFrame - replayMsgOverhead - (ReplayPartBytes+2)/3*4)

// splitReplay cuts a replay file into its parts: every part but the last of ReplayPartBytes.
func splitReplay(b []byte) [][]byte {
	var out [][]byte
	for len(b) > ReplayPartBytes {
		out = append(out, b[:ReplayPartBytes])
		b = b[ReplayPartBytes:]
	}
	if len(b) > 0 {
		out = append(out, b)
	}
	return out
}

// checkPart checks what every part of a file sent in parts says of itself, whatever the file
// (a replay, a stage): 1..maxParts parts, part one of them, 1..ReplayPartBytes bytes, and every
// part but the last full. The order of the parts is the reassembler's to check.
func checkPart(part, parts, maxParts int, data []byte) error {
	switch {
	case parts < 1 || parts > maxParts:
		return fmt.Errorf("%d parts (1..%d)", parts, maxParts)
	case part < 0 || part >= parts:
		return fmt.Errorf("part %d of %d", part, parts)
	case len(data) == 0 || len(data) > ReplayPartBytes:
		return fmt.Errorf("part %d of %d bytes (1..%d)", part, len(data), ReplayPartBytes)
	case part < parts-1 && len(data) != ReplayPartBytes:
		return fmt.Errorf("part %d of %d: %d bytes, only the last part may be shorter than %d", part, parts, len(data), ReplayPartBytes)
	}
	return nil
}

// errRefusedBefore is add's answer to a part of a game whose replay was refused already (the
// refusal was reported once).
var errRefusedBefore = errors.New("fleet: replay refused before")

// replayParts reassembles the replay parts a lobby receives on one host connection (a pure
// state machine: add each replay message, take at the game's ended). It never trusts the
// host: parts come in order, each once, every one but the last full, at most MaxReplayParts;
// and it holds one replay at a time — a host sends a game's parts and then its ended before
// another game's (Host serializes them) — so a connection costs the lobby at most
// replay.MaxBytes however many games the host runs. A refused replay is dropped at once; its
// game is still kept, without it.
type replayParts struct {
	game  uint64 // the game whose replay is being received (0: none)
	parts int
	buf   []byte // cap parts*ReplayPartBytes, at most replay.MaxBytes
	next  int
	bad   uint64 // the last game whose replay was refused: its later parts are ignored
}

// add takes part part of parts of game's replay. An error refuses the game's replay (its
// parts so far are dropped; errRefusedBefore for the later parts of a refused one).
func (p *replayParts) add(game uint64, part, parts int, data []byte) error {
	if game == p.bad && game != 0 {
		return errRefusedBefore
	}
	err := p.check(game, part, parts, data)
	if err != nil {
		if p.game == game {
			p.reset()
		}
		p.bad = game
		return fmt.Errorf("fleet: replay of game %d refused: %w", game, err)
	}
	if p.game == 0 {
		p.game, p.parts, p.next = game, parts, 0
		p.buf = make([]byte, 0, parts*ReplayPartBytes)
	}
	p.buf = append(p.buf, data...)
	p.next++
	return nil
}

func (p *replayParts) check(game uint64, part, parts int, data []byte) error {
	if game == 0 {
		return errors.New("no game")
	}
	if err := checkPart(part, parts, MaxReplayParts, data); err != nil {
		return err
	}
	switch {
	case p.game != 0 && p.game != game:
		return fmt.Errorf("part while game %d's replay is incomplete (%d of %d parts)", p.game, p.next, p.parts)
	case p.game == 0 && part != 0:
		return fmt.Errorf("part %d before part 0", part)
	case p.game == game && parts != p.parts:
		return fmt.Errorf("part %d says %d parts, part 0 said %d", part, parts, p.parts)
	case p.game == game && part < p.next:
		return fmt.Errorf("part %d again (duplicate)", part)
	case p.game == game && part > p.next:
		return fmt.Errorf("part %d before part %d (out of order)", part, p.next)
	}
	return nil
}

// take returns game's replay once its ended came: nil when the host sent none (or it was
// refused before: errRefusedBefore), an error when it is incomplete.
func (p *replayParts) take(game uint64) ([]byte, error) {
	if game == p.bad && game != 0 {
		p.bad = 0
		return nil, errRefusedBefore
	}
	if p.game != game || game == 0 {
		return nil, nil
	}
	b, next, parts := p.buf, p.next, p.parts
	p.reset()
	if next != parts {
		return nil, fmt.Errorf("fleet: replay of game %d refused: ended after %d of its %d parts", game, next, parts)
	}
	return b, nil
}

func (p *replayParts) reset() { p.game, p.parts, p.next, p.buf = 0, 0, 0, nil }
