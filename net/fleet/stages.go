package fleet

import (
	"bytes"
	"errors"
	"fmt"
	"sync"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/handoff"
)

// Stages over the control channel (docs/CONTROL.md §4.2): a host plays the stage files its
// lobby offers, not its own -stage files. A start names each stage by name and hash; the host
// plays the file of that hash, from its own stages when it has one, else the one the lobby
// sent on this connection before the start (stage messages, in parts), which it checks
// against the hash. The host tells the lobby its own stages' hashes in its first load, so
// that the lobby sends only the others, once per connection.

// MaxStageParts bounds the parts of one stage file: a stage file is at most
// stagefile.MaxBytes (1 MiB), so 32 parts of ReplayPartBytes.
const MaxStageParts = (stagefile.MaxBytes + ReplayPartBytes - 1) / ReplayPartBytes

// MaxSessionStages bounds the stage files a host keeps for one lobby connection: a lobby
// offers at most stagefile.MaxOffered.
const MaxSessionStages = stagefile.MaxOffered

// DefaultStageCacheBytes bounds the bytes of the stage files a host keeps for one lobby
// connection unless configured (HostConfig.StageCacheBytes): every file a lobby may offer, at
// their largest (64 MiB). The one file in transfer (at most stagefile.MaxBytes) comes on top.
const DefaultStageCacheBytes = MaxSessionStages * stagefile.MaxBytes

// stageParts reassembles the stage files a host receives on one lobby connection (a pure
// state machine, as replayParts): parts come in order, each once, every one but the last
// full, one file at a time; a complete file must have its hash and parse. Part 0 begins a
// file: one still incomplete is abandoned (a lobby whose transfer was cut sends the file
// again from part 0, or another file), so an unfinished transfer never blocks later files.
type stageParts struct {
	hash  string // the file being received ("": none)
	parts int
	next  int
	buf   []byte
}

// add takes part part of parts of the stage file of hash: the file once complete (nil
// before), or the error that refuses it (its parts so far are dropped).
func (p *stageParts) add(hash string, part, parts int, data []byte) (*stagefile.File, error) {
	err := p.check(hash, part, parts, data)
	if err != nil {
		p.reset()
		return nil, fmt.Errorf("fleet: stage %s refused: %w", hash, err)
	}
	if part == 0 {
		p.hash, p.parts, p.next = hash, parts, 0
		p.buf = make([]byte, 0, min(parts*ReplayPartBytes, stagefile.MaxBytes))
	}
	p.buf = append(p.buf, data...)
	p.next++
	if p.next < p.parts {
		return nil, nil
	}
	b := p.buf
	p.reset()
	if got := stagefile.Hash(b); got != hash {
		return nil, fmt.Errorf("fleet: stage %s refused: its bytes hash to %s", hash, got)
	}
	if cap(b)-len(b) > len(b)/16 { // a short last part: keep what the file takes, not its parts
		b = bytes.Clone(b)
	}
	f, err := stagefile.New("received", "stage "+hash, b, game.ParseScript)
	if err != nil {
		return nil, fmt.Errorf("fleet: stage %s refused: %w", hash, err)
	}
	return f, nil
}

func (p *stageParts) check(hash string, part, parts int, data []byte) error {
	if !lobby.ValidStageHash(hash) {
		return errors.New("not a stage hash")
	}
	if err := checkPart(part, parts, MaxStageParts, data); err != nil {
		return err
	}
	switch {
	case part == 0: // a new file (checkPart bounds its first part)
	case p.hash == "":
		return fmt.Errorf("part %d before part 0", part)
	case p.hash != hash:
		return fmt.Errorf("part %d while stage %s is incomplete (%d of %d parts)", part, p.hash, p.next, p.parts)
	case parts != p.parts:
		return fmt.Errorf("part %d says %d parts, part 0 said %d", part, parts, p.parts)
	case part != p.next:
		return fmt.Errorf("part %d where part %d was due", part, p.next)
	case len(p.buf)+len(data) > stagefile.MaxBytes:
		return fmt.Errorf("more than %d bytes", stagefile.MaxBytes)
	}
	return nil
}

func (p *stageParts) reset() { p.hash, p.parts, p.next, p.buf = "", 0, 0, nil }

// stageCache is the stage files a host keeps for one lobby connection (docs/CONTROL.md §4.2),
// by hash: the bytes of each file the lobby sent, checked when it came (hash, parse) and
// parsed again by each start that plays it, so that a file costs about its size in memory,
// not the several times its parsed form takes. At most MaxSessionStages files and maxBytes
// bytes of them, plus the one in transfer; it is the session's and goes with it when the
// connection closes. A file refused (or abandoned) is remembered with why, for the start
// that names it (at most MaxSessionStages reasons).
type stageCache struct {
	in       stageParts // the reader goroutine's alone
	mu       sync.Mutex // the rest
	files    map[string][]byte
	why      map[string]string
	bytes    int // of files
	maxBytes int
	received int // files kept (tests: each is sent once)
}

func newStageCache(maxBytes int) *stageCache {
	if maxBytes <= 0 {
		maxBytes = DefaultStageCacheBytes
	}
	return &stageCache{files: map[string][]byte{}, why: map[string]string{}, maxBytes: maxBytes}
}

// add takes one stage message: the file it completes, if any, kept or refused (err says why,
// for the log; a transfer it abandoned is noted too).
func (c *stageCache) add(m *Msg) (kept *stagefile.File, err error) {
	if old := c.in.hash; old != "" && (m.Part == 0 || m.Hash != old) {
		// part 0 begins a file; any other part of another file is refused below: either way
		// the incomplete one is gone
		c.refuse(old, fmt.Sprintf("its transfer was abandoned after %d of %d parts (stage %s came)", c.in.next, c.in.parts, m.Hash))
	}
	f, err := c.in.add(m.Hash, m.Part, m.Parts, m.Data)
	if err != nil {
		c.refuse(m.Hash, err.Error())
		return nil, err
	}
	if f == nil {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.files[f.Hash]; ok { // the same file again: keep one
		c.bytes -= len(old)
		delete(c.files, f.Hash)
	}
	switch {
	case len(c.files) >= MaxSessionStages:
		err = fmt.Errorf("fleet: stage %s refused: more than %d stages sent on this connection", f.Hash, MaxSessionStages)
	case c.bytes+len(f.Data) > c.maxBytes:
		err = fmt.Errorf("fleet: stage %s refused: more than %d bytes of stages sent on this connection (%d kept)", f.Hash, c.maxBytes, c.bytes)
	}
	if err != nil {
		c.refuseLocked(f.Hash, err.Error())
		return nil, err
	}
	c.files[f.Hash] = f.Data
	c.bytes += len(f.Data)
	c.received++
	delete(c.why, f.Hash)
	return f, nil
}

func (c *stageCache) refuse(hash, why string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.refuseLocked(hash, why)
}

func (c *stageCache) refuseLocked(hash, why string) {
	if _, ok := c.why[hash]; ok || len(c.why) < MaxSessionStages {
		c.why[hash] = why
	}
}

// file is the stage file of hash the lobby sent, parsed afresh (its name "received": the
// start names it), or why there is none.
func (c *stageCache) file(hash string) (*stagefile.File, string) {
	c.mu.Lock()
	b, ok := c.files[hash]
	why := c.why[hash]
	c.mu.Unlock()
	if !ok {
		if why == "" {
			why = "the lobby did not send it"
		}
		return nil, why
	}
	f, err := stagefile.New("received", "stage "+hash, b, game.ParseScript)
	if err != nil { // checked when it came: cannot happen
		return nil, err.Error()
	}
	return f, ""
}

// stageMsgs are the stage messages that carry f.
func stageMsgs(f *stagefile.File) []*Msg {
	parts := splitReplay(f.Data)
	out := make([]*Msg, len(parts))
	for i, b := range parts {
		out[i] = &Msg{Type: TypeStage, Hash: f.Hash, Part: i, Parts: len(parts), Data: b}
	}
	return out
}

// stagePart handles a stage message from the lobby.
func (s *hostSession) stagePart(m *Msg) {
	f, err := s.stages.add(m)
	switch {
	case err != nil:
		s.log.Warn("bad stage from the lobby", "err", err)
	case f != nil:
		s.log.Info("stage received from the lobby", "hash", f.Hash, "bytes", len(f.Data))
	}
}

// files resolves the stages a start names (w, checked) to the files its game plays: by hash,
// the host's own file of that content, else the one the lobby sent on this connection. A
// stage without hash (an older lobby) is left to the Starter's own stages by name (nil).
func (s *hostSession) files(w *Spec) ([]*stagefile.File, error) {
	refs := w.Run
	if len(refs) == 0 {
		refs = []StageRef{{Name: w.Stage, Hash: w.Hash}}
	}
	var out []*stagefile.File
	for _, r := range refs {
		if r.Hash == "" {
			return nil, nil
		}
		f := s.h.stageByHash(r.Hash)
		if f == nil {
			var why string
			if f, why = s.stages.file(r.Hash); f == nil {
				return nil, fmt.Errorf("stage %s (%s): %s", r.Name, r.Hash, why)
			}
		}
		// The lobby's name for it: the game, its replay and its record name it so.
		out = append(out, &stagefile.File{Name: r.Name, Data: f.Data, Hash: f.Hash, Script: f.Script})
	}
	return out, nil
}

// stageByHash is the host's own stage file of hash, or nil.
func (h *Host) stageByHash(hash string) *stagefile.File {
	if h.cfg.Stages == nil {
		return nil
	}
	return h.cfg.Stages.ByHash(hash)
}

// stageHashes are the hashes of the host's own stage files (its first load).
func (h *Host) stageHashes() []string {
	if h.cfg.Stages == nil {
		return nil
	}
	var out []string
	for _, f := range h.cfg.Stages.Files() {
		out = append(out, f.Hash)
	}
	return out
}

// sendStages sends c's host the stage files of spec it does not have (l.has), each once per
// connection, and returns the hashes it sent (forgotten again if the start is refused: the
// next start sends them again). Called with l.sendMu held, just before the start.
func (l *link) sendStages(c *Conn, spec handoff.GameSpec) ([]string, error) {
	var sent []string
	for _, f := range spec.Files {
		l.mu.Lock()
		have := l.has[f.Hash]
		l.mu.Unlock()
		if have {
			continue
		}
		for _, m := range stageMsgs(f) {
			if err := c.Write(encode(m)); err != nil {
				return sent, err
			}
		}
		l.mu.Lock()
		l.has[f.Hash] = true
		l.mu.Unlock()
		sent = append(sent, f.Hash)
	}
	return sent, nil
}
