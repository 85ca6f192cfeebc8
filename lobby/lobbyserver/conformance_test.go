package lobbyserver

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/handoff"
	"github.com/rtype/rtype/lobby/scores"
	"github.com/rtype/rtype/lobby/scores/scoredb"

	_ "modernc.org/sqlite" // the examples' hall of fame
)

// The byte-for-byte examples of docs/PROTOCOL.md §2 (the lobby section) are
// replayed against a running server. Notation: PROTOCOL.md §2.1.1.

type exchangeStep struct {
	line int    // line number in the markdown file
	kind byte   // '>' client sends, '<' server line expected, '*' action
	conn byte   // 'A'..'Z' for '>' and '<'
	text string // unescaped bytes, placeholders still in
}

type exchange struct {
	line  int
	steps []exchangeStep
}

var (
	stepRE        = regexp.MustCompile(`^([A-Z])([<>]) (.*)$`)
	placeholderRE = regexp.MustCompile(`<([A-Z]+(?:-[A-Z0-9]+)*)>`)
	unescaper     = strings.NewReplacer(`\r\n`, "\r\n", `\n`, "\n")
	gameEndsRE    = regexp.MustCompile(`^the game ends with result ([0-9]+)$`)
	closesRE      = regexp.MustCompile(`^([A-Z]) closes its connection$`)
	dropsRE       = regexp.MustCompile(`^the game (drops|loses) <(UUID-[A-Z0-9]+)>$`)
	playsRE       = regexp.MustCompile(`^the game plays ([A-Za-z0-9_,-]+)$`)
	broadcastRE   = regexp.MustCompile(`^the operator broadcasts "(.*)"$`)
	closingRE     = regexp.MustCompile(`^the server closes: (shutdown|restart), its games end in ([0-9]+) s$`)
)

// exampleServerFlags returns the rtype-server flags of the server the examples run against, as
// docs/PROTOCOL.md §2.1.1 gives them (`rtype-server -stage ... -arcade ...`, run from the
// repository's root); cmd/rtype-server's TestExampleServerFlags starts the binary with them.
func exampleServerFlags(t *testing.T) (stage, arcade string) {
	t.Helper()
	doc, err := os.ReadFile("../../docs/PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("`rtype-server (-[^`]+)`").FindSubmatch(doc[bytes.Index(doc, []byte("#### 2.1.1")):])
	if m == nil {
		t.Fatal("docs/PROTOCOL.md §2.1.1 gives no rtype-server command for the examples' server")
	}
	fs := flag.NewFlagSet("rtype-server", flag.ContinueOnError)
	fs.StringVar(&stage, "stage", "", "")
	fs.StringVar(&arcade, "arcade", "", "")
	if err := fs.Parse(strings.Fields(string(m[1]))); err != nil || fs.NArg() > 0 {
		t.Fatalf("§2.1.1's flags %q: %v (the examples' server is set by -stage and -arcade alone)", m[1], err)
	}
	return stage, arcade
}

// conformanceStages is the catalogue of the server the examples run against
// (docs/PROTOCOL.md §2.1.1), built from its -stage and -arcade flags as the server builds it:
// the embedded stage1 (the default) and short, and testdata/lobby/tiny.json named "tiny"; its
// arcade run is short then tiny.
func conformanceStages(t *testing.T) *stagefile.Catalogue {
	t.Helper()
	stage, arcade := exampleServerFlags(t)
	items := strings.Split(stage, ",")
	for i, it := range items {
		if stagefile.IsPath(it) {
			items[i] = filepath.Join("..", "..", it) // the flags are relative to the repository's root
		}
	}
	cat, err := stagefile.LoadCatalogue(strings.Join(items, ","), game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.SetRun(strings.Split(arcade, ",")); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cat.Names(), ","); got != "stage1,short,tiny" {
		t.Fatalf("§2.1.1's flags offer %s, want stage1,short,tiny as the examples show", got)
	}
	return cat
}

func loadExchanges(t *testing.T) (string, []exchange) {
	t.Helper()
	var path string
	for _, p := range []string{"../../docs/PROTOCOL.md"} {
		if _, err := os.Stat(p); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		t.Fatal("docs/PROTOCOL.md not found")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		out []exchange
		cur *exchange
	)
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		switch {
		case cur == nil && strings.TrimSpace(l) == "```lobby-exchange":
			cur = &exchange{line: n}
		case cur == nil:
		case strings.TrimSpace(l) == "```":
			out = append(out, *cur)
			cur = nil
		case strings.HasPrefix(l, "* "):
			cur.steps = append(cur.steps, exchangeStep{line: n, kind: '*', text: l[2:]})
		default:
			m := stepRE.FindStringSubmatch(l)
			if m == nil {
				t.Fatalf("%s:%d: not an exchange line: %q", path, n, l)
			}
			cur.steps = append(cur.steps, exchangeStep{line: n, kind: m[2][0], conn: m[1][0], text: unescaper.Replace(m[3])})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil {
		t.Fatalf("%s:%d: unterminated lobby-exchange block", path, cur.line)
	}
	return path, out
}

// TestDocExamplesCover keeps the document complete: every command and push
// has an example.
func TestDocExamplesCover(t *testing.T) {
	path, exs := loadExchanges(t)
	seen := map[string]bool{}
	for _, ex := range exs {
		for _, s := range ex.steps {
			if s.kind == '*' {
				continue
			}
			name, _, _ := strings.Cut(s.text, " ")
			seen[string(s.kind)+name] = true
		}
	}
	for _, want := range []string{">AUTHENTICATE", ">GET_LOBBIES", ">JOIN_LOBBY", ">START", ">LEAVE",
		">GET_STAGES", ">SET_STAGE", ">GET_STAGE", ">CHAT", "<200", "<401", "<500", "<START", "<MEMBERS", "<END", "<STAGE",
		"<CHAT", "<BROADCAST", ">GET_SCORES", ">GET_GAMES", ">GET_REPLAY", "<GAME_ID", "<RUN", ">SET_SECTION", "<SECTION",
		">SET_LIVES", "<LIVES", ">RETRY", "<CLOSING"} {
		if !seen[want] {
			t.Errorf("%s: no example with %q", path, want)
		}
	}
}

func TestDocExamplesConformance(t *testing.T) {
	path, exs := loadExchanges(t)
	if len(exs) < 6 {
		t.Fatalf("%s: found %d lobby-exchange blocks, want at least 6", path, len(exs))
	}
	hall := conformanceHall(t)
	for _, ex := range exs {
		t.Run(fmt.Sprintf("line%d", ex.line), func(t *testing.T) {
			replayExchange(t, path, ex, hall)
		})
	}
}

// conformanceStarter starts the games of the replayed server: fakeGames that, like the
// reference server's (net/instance.Instance), accept spectators (handoff.Spectatable) and let a
// lost player rejoin (handoff.Rejoiner), so that the examples show what a client of the reference
// server sees.
type conformanceStarter struct {
	*fakeStarter
	mu    sync.Mutex
	games []*conformanceGame
}

func (s *conformanceStarter) StartGame(spec handoff.GameSpec) (handoff.Game, error) {
	g, err := s.fakeStarter.StartGame(spec)
	if err != nil {
		return nil, err
	}
	cg := &conformanceGame{fakeGame: g.(*fakeGame), slots: map[uuid.UUID]int{}, away: map[int]bool{}, left: map[uuid.UUID]bool{}}
	for _, m := range spec.Members {
		cg.slots[m.UUID] = m.Slot
	}
	s.mu.Lock()
	s.games = append(s.games, cg)
	s.mu.Unlock()
	return cg, nil
}

func (s *conformanceStarter) last(t *testing.T) *conformanceGame {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.games) == 0 {
		t.Fatal("no game was started")
	}
	return s.games[len(s.games)-1]
}

// conformanceGame is a fakeGame with spectators and rejoins: a player whose lobby connection
// closed (Drop with left false) leaves its slot waiting for a rejoin, one who left does not.
type conformanceGame struct {
	*fakeGame
	mu    sync.Mutex
	slots map[uuid.UUID]int // user -> slot
	away  map[int]bool      // slots waiting for a rejoin
	left  map[uuid.UUID]bool
}

var (
	_ handoff.Rejoiner    = (*conformanceGame)(nil)
	_ handoff.Spectatable = (*conformanceGame)(nil)
)

func (g *conformanceGame) Drop(id uuid.UUID, left bool) {
	g.mu.Lock()
	g.left[id] = left
	if slot, ok := g.slots[id]; ok && !left {
		g.away[slot] = true
	}
	g.mu.Unlock()
	g.fakeGame.Drop(id, left)
}

func (g *conformanceGame) Rejoin(m handoff.Member) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.away[m.Slot] {
		return errors.New("slot not waiting for a rejoin")
	}
	delete(g.away, m.Slot)
	g.slots[m.UUID] = m.Slot
	return nil
}

func (g *conformanceGame) Spectate(handoff.Member) error { return nil }

// wasLeft reports how the lobby dropped id: true for LEAVE (or joining elsewhere), false for a
// closed connection.
func (g *conformanceGame) wasLeft(id uuid.UUID) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.left[id]
}

type replayer struct {
	t      *testing.T
	path   string
	addr   string
	st     *conformanceStarter
	srv    *Server
	conns  map[byte]*raw
	closed map[byte]bool
	vals   map[string]string // placeholder name -> bound value
}

func replayExchange(t *testing.T, path string, ex exchange, hall Hall) {
	srvID := uuid.New()
	st := &conformanceStarter{fakeStarter: newFakeStarter()}
	srv, addr := startServer(t, ServerConfig{ServerUUID: srvID, Starter: st, Stages: conformanceStages(t), Hall: hall})
	r := &replayer{
		t: t, path: path, addr: addr, st: st, srv: srv,
		conns:  map[byte]*raw{},
		closed: map[byte]bool{},
		vals:   map[string]string{"SERVER-UUID": srvID.String(), "PORT": strconv.Itoa(fakePort)},
	}
	for _, s := range ex.steps {
		switch s.kind {
		case '>':
			r.conn(s.conn).send(r.fill(s))
		case '<':
			r.expect(s)
		case '*':
			r.action(s)
		}
	}
	// No line the document does not show.
	for id, c := range r.conns {
		if !r.closed[id] {
			c.noLine(20 * time.Millisecond)
		}
	}
}

func (r *replayer) conn(id byte) *raw {
	c := r.conns[id]
	if c == nil {
		c = dialRaw(r.t, r.addr)
		r.conns[id] = c
	}
	return c
}

func (r *replayer) where(s exchangeStep) string { return fmt.Sprintf("%s:%d", r.path, s.line) }

// fill substitutes bound placeholders in a client line.
func (r *replayer) fill(s exchangeStep) string {
	return placeholderRE.ReplaceAllStringFunc(s.text, func(m string) string {
		name := m[1 : len(m)-1]
		v, ok := r.vals[name]
		if !ok {
			r.t.Fatalf("%s: placeholder %s used before the server sent it", r.where(s), m)
		}
		return v
	})
}

func placeholderPattern(name string) (string, bool) {
	switch {
	case strings.HasPrefix(name, "UUID"):
		return `[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}`, true
	case strings.HasPrefix(name, "GAME"):
		return `[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}`, true
	case strings.HasPrefix(name, "CODE"):
		return `[` + lobby.CodeAlphabet + `]{5}`, true
	case strings.HasPrefix(name, "TOKEN"):
		return `[1-9][0-9]{0,9}`, true
	case strings.HasPrefix(name, "HASH"):
		return `[0-9a-f]{16}`, true
	case strings.HasPrefix(name, "KEY"):
		return `[0-9a-f]{32}`, true
	}
	return "", false
}

// expect reads the next line on the step's connection and matches it
// against the template, binding first-seen placeholders.
func (r *replayer) expect(s exchangeStep) {
	t := r.t
	got := r.conn(s.conn).line()
	var (
		pat   strings.Builder
		names []string
	)
	pat.WriteString("^")
	last := 0
	for _, loc := range placeholderRE.FindAllStringSubmatchIndex(s.text, -1) {
		pat.WriteString(regexp.QuoteMeta(s.text[last:loc[0]]))
		name := s.text[loc[2]:loc[3]]
		if v, ok := r.vals[name]; ok {
			pat.WriteString(regexp.QuoteMeta(v))
		} else {
			p, ok := placeholderPattern(name)
			if !ok {
				t.Fatalf("%s: unknown placeholder <%s>", r.where(s), name)
			}
			pat.WriteString("(" + p + ")")
			names = append(names, name)
		}
		last = loc[1]
	}
	pat.WriteString(regexp.QuoteMeta(s.text[last:]))
	pat.WriteString("$")
	m := regexp.MustCompile(pat.String()).FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("%s: connection %c got %q, want %q", r.where(s), s.conn, got, s.text)
	}
	for i, name := range names {
		v := m[i+1]
		if prev, ok := r.vals[name]; ok { // same placeholder twice in this line
			if prev != v {
				t.Fatalf("%s: <%s> is both %q and %q", r.where(s), name, prev, v)
			}
			continue
		}
		if strings.HasPrefix(name, "TOKEN") {
			if _, err := strconv.ParseUint(v, 10, 32); err != nil {
				t.Fatalf("%s: <%s> = %s is not a u32", r.where(s), name, v)
			}
		}
		for other, ov := range r.vals {
			if ov == v {
				t.Fatalf("%s: <%s> and <%s> are both %q", r.where(s), name, other, v)
			}
		}
		r.vals[name] = v
	}
}

func (r *replayer) action(s exchangeStep) {
	t := r.t
	if m := gameEndsRE.FindStringSubmatch(s.text); m != nil {
		res, err := strconv.ParseUint(m[1], 10, 8)
		if err != nil {
			t.Fatalf("%s: bad result %q", r.where(s), m[1])
		}
		r.st.lastGame(t).end(uint8(res))
		return
	}
	if m := closesRE.FindStringSubmatch(s.text); m != nil {
		r.conn(m[1][0]).c.Close()
		r.closed[m[1][0]] = true
		return
	}
	if m := dropsRE.FindStringSubmatch(s.text); m != nil {
		v, ok := r.vals[m[2]]
		if !ok {
			t.Fatalf("%s: <%s> not bound", r.where(s), m[2])
		}
		id := uuid.MustParse(v)
		expectDrop(t, r.st.lastGame(t), id)
		if left := r.st.last(t).wasLeft(id); left != (m[1] == "drops") {
			t.Fatalf("%s: the game was told left=%v", r.where(s), left)
		}
		return
	}
	if r.moderationAction(s) { // moderation_test.go
		return
	}
	if m := broadcastRE.FindStringSubmatch(s.text); m != nil {
		if _, err := r.srv.Broadcast(m[1]); err != nil {
			t.Fatalf("%s: Broadcast: %v", r.where(s), err)
		}
		return
	}
	if m := closingRE.FindStringSubmatch(s.text); m != nil {
		secs, _ := strconv.Atoi(m[2])
		if _, err := r.srv.Closing(m[1], time.Duration(secs)*time.Second); err != nil {
			t.Fatalf("%s: Closing: %v", r.where(s), err)
		}
		return
	}
	if m := playsRE.FindStringSubmatch(s.text); m != nil {
		r.st.mu.Lock()
		defer r.st.mu.Unlock()
		if n := len(r.st.calls); n == 0 || r.st.calls[n-1].stage != m[1] {
			t.Fatalf("%s: the last game started does not play %s (calls %+v)", r.where(s), m[1], r.st.calls)
		}
		return
	}
	t.Fatalf("%s: unknown action %q", r.where(s), s.text)
}

// conformanceHall is the hall of fame of the examples' server (docs/PROTOCOL.md §2.4.12): a
// real one, on SQLite in a temporary directory, keeping four finished games (the last an arcade run), the first with
// the replay testdata/lobby/tiny-replay.bin.
func conformanceHall(t *testing.T) *scoredb.Hall {
	t.Helper()
	dir := t.TempDir()
	h, err := scoredb.Open(context.Background(), scoredb.Config{Dir: dir, Dialect: scoredb.SQLite, DSN: filepath.Join(dir, "rtype.db"), Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	replay, err := os.ReadFile("../../testdata/lobby/tiny-replay.bin")
	if err != nil {
		t.Fatal(err)
	}
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	games := []struct {
		rec    scores.Record
		replay []byte
	}{
		{scores.Record{ID: uuid.MustParse("0b7e1c6a-5a38-4a7e-9c1e-3d1f2a4b5c6d"), Stage: "stage1", Difficulty: rules.DifficultyNormal,
			Result: rules.ResultVictory, Ticks: 11400, Ended: at("2025-03-14T09:26:53Z"), Slots: []scores.Slot{
				{Name: "alice", Score: 12000, Kills: 80, Deaths: 1}, {Name: "bob", Score: 9000, Kills: 61, Deaths: 3, Continued: true}}}, replay},
		{scores.Record{ID: uuid.MustParse("5f0c2d8e-7b1a-4c3d-8e9f-a0b1c2d3e4f5"), Stage: "stage1", Difficulty: rules.DifficultyHard,
			Result: rules.ResultDefeat, Ticks: 7260, Ended: at("2025-03-15T18:02:11Z"), Slots: []scores.Slot{
				{Name: "alice", Score: 15000, Kills: 95, Deaths: 3}}}, nil},
		{scores.Record{ID: uuid.MustParse("9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d"), Stage: "short", Difficulty: rules.DifficultyEasy,
			Result: rules.ResultAborted, Ticks: 1800, Ended: at("2025-03-16T20:45:00Z"), Slots: []scores.Slot{
				{Name: "carol", Score: 300, Kills: 4, Deaths: 0, Left: true}}}, nil},
		{scores.Record{ID: uuid.MustParse("3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f"), Stage: stagefile.Arcade, Run: []string{"short", "tiny"},
			Difficulty: rules.DifficultyNormal, Result: rules.ResultVictory, Ticks: 9000, Ended: at("2025-03-13T21:10:00Z"), Slots: []scores.Slot{
				{Name: "dave", Score: 9500, Kills: 70, Deaths: 2}}}, nil},
	}
	for _, g := range games {
		if !h.Record(g.rec, g.replay) {
			t.Fatal("the hall refused a game")
		}
	}
	eventually(t, "the examples' games stored", func() bool { return h.Stats().Recorded == uint64(len(games)) })
	return h
}
