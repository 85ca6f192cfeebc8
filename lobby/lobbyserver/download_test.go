package lobbyserver

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game/rules"
	. "github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/scores"
	"github.com/rtype/rtype/lobby/scores/scoredb"
)

// Every part of a stage download is a line of the command rate (docs/PROTOCOL.md §2.3, §2.4.8,
// §2.4.14), in virtual time: parts past the burst are refused with the rate's 500 and the budget
// comes back at the rate; a GET_REPLAY part within the address's replay budget (ReplayRate)
// takes no line.
func TestDownloadPartsCountAgainstCommandRate(t *testing.T) {
	v := newVLobby(t, ServerConfig{}) // the default rate: 10 lines a second, bursts of 20
	c := v.player("192.0.2.1", "dl")  // AUTHENTICATE: 1 line
	ss, err := ParseStages(c.ok(CmdGetStages))
	if err != nil {
		t.Fatal(err)
	}
	hash := ss[0].Hash
	for i := 2; i < CommandBurst; i++ {
		c.ok(CmdGetStage, hash, "0")
	}
	if got := c.fail(CmdGetStage, hash, "0"); got != RateRefusal(DefaultCommandRate) {
		t.Fatalf("part %d of the burst: %q, want the rate's refusal", CommandBurst+1, got)
	}
	if got := c.fail(CmdGetReplay, hallGame.ID.String(), "0"); got != errHallOff {
		t.Fatalf("GET_REPLAY with the line budget spent: %q, want it handled (%q)", got, errHallOff)
	}
	v.advance(time.Second / DefaultCommandRate) // one line's worth, which GET_REPLAY did not take
	c.ok(CmdGetStage, hash, "0")
	if got := c.fail(CmdGetStage, hash, "0"); got != RateRefusal(DefaultCommandRate) {
		t.Fatalf("GET_STAGE past the line's worth: %q, want the rate's refusal", got)
	}
	if r, ok := ParseRateRefusal(RateRefusal(2.5)); !ok || r != 2.5 {
		t.Errorf("ParseRateRefusal(RateRefusal(2.5)) = %v, %v", r, ok)
	}
}

// The reference client downloads a replay of more parts than the replay budget's burst and the
// command rate's: past both it is refused once for the rate, then paces its requests at that
// rate (lobby.Client.requestPart).
func TestClientDownloadPacedByRate(t *testing.T) {
	dir := t.TempDir()
	h, err := scoredb.Open(context.Background(), scoredb.Config{Dir: dir, Dialect: scoredb.SQLite, DSN: filepath.Join(dir, "rtype.db"), Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	const rate = 20                                               // bursts of 40 lines
	replay := make([]byte, ReplayBurst+50*scores.ReplayPartBytes) // 50 parts past the replay burst
	for i := range replay {
		replay[i] = byte(i * 7)
	}
	id := uuid.MustParse("3c1d8a0e-2b4f-4e6a-8c9d-0a1b2c3d4e5f")
	if !h.Record(scores.Record{ID: id, Stage: "stage1", Difficulty: rules.DifficultyNormal, Result: rules.ResultVictory,
		Ticks: 600, Ended: time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC), Slots: []scores.Slot{{Name: "ann"}}}, replay) {
		t.Fatal("the hall refused the game")
	}
	eventually(t, "the game stored", func() bool { return h.Stats().Recorded == 1 })
	srv, addr := startServer(t, ServerConfig{ServerUUID: uuid.New(), Starter: newFakeStarter(), Hall: h, CommandRate: rate})
	c, err := Dial(context.Background(), addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Authenticate("ann"); err != nil {
		t.Fatal(err)
	}
	got, err := c.FetchReplay(id)
	if err != nil {
		t.Fatalf("FetchReplay of %d parts at %d lines a second: %v", len(replay)/scores.ReplayPartBytes, rate, err)
	}
	if !bytes.Equal(got, replay) {
		t.Fatalf("fetched %d bytes that differ from the %d stored", len(got), len(replay))
	}
	if n := srv.Stats().LimitHits[LimitCommandRate]; n > 3 {
		t.Errorf("%d lines refused for the rate during one download, want the one that set the pace ("+strconv.Itoa(rate)+"/s)", n)
	}
}

// docs/PROTOCOL.md §2.4.8's example names the sizes of testdata/lobby/tiny.json as the server
// serves it: the file's bytes, its gzip member (stageBodies) and the parts.
func TestStageExampleSizes(t *testing.T) {
	data, err := os.ReadFile("../../testdata/lobby/tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	bodies := stageBodies(data)
	gz := 0
	for _, b := range bodies {
		_, part, err := ParseStagePart(b)
		if err != nil {
			t.Fatal(err)
		}
		gz += len(part)
	}
	parts := map[int]string{1: "one part", 2: "two parts"}[len(bodies)]
	want := fmt.Sprintf("(`testdata/lobby/tiny.json`, %d bytes; %d bytes\ncompressed, %s)", len(data), gz, parts)
	doc, err := os.ReadFile("../../docs/PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), want) {
		t.Errorf("docs/PROTOCOL.md §2.4.8 lacks %q", want)
	}
	if want := fmt.Sprintf("the %d-byte file `testdata/lobby/tiny.json`", len(data)); !strings.Contains(string(doc), want) {
		t.Errorf("docs/PROTOCOL.md §2.1.1 lacks %q", want)
	}
}

// A page (GET_SCORES, GET_GAMES) or a replay part with a sign or a leading zero is refused with
// the argument quoted (docs/PROTOCOL.md §2.4.12 to §2.4.14); "0" is page 0.
func TestHallNumbersCanonical(t *testing.T) {
	v := newVLobby(t, ServerConfig{Hall: vhall{}, CommandRate: 1000})
	a := hallPlayer(v, "10.0.0.1", "alice")
	for _, bad := range []string{"01", "00", "+1", "-0", "1.0"} {
		if got, want := a.fail(CmdGetScores, "", "", bad), fmt.Sprintf("page %q: want 0..99", bad); got != want {
			t.Errorf("GET_SCORES page %s: %q, want %q", bad, got, want)
		}
		if got, want := a.fail(CmdGetGames, bad), fmt.Sprintf("page %q: want 0..99", bad); got != want {
			t.Errorf("GET_GAMES page %s: %q, want %q", bad, got, want)
		}
		if got, want := a.fail(CmdGetReplay, hallGame.ID.String(), bad), fmt.Sprintf("part %q: want 0..4095", bad); got != want {
			t.Errorf("GET_REPLAY part %s: %q, want %q", bad, got, want)
		}
	}
	if len(v.reqs) != 0 {
		t.Fatalf("requests left for refused numbers: %v", v.reqs)
	}
	a.send(CmdGetGames + " " + a.user + ";0")
	if o := v.takeReq(); o.Request.Games == nil || o.Request.Games.Page != 0 {
		t.Fatalf("GET_GAMES page 0: request %+v", o.Request)
	}
}
