package server

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/replay"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/net/bot"
	"github.com/rtype/rtype/net/fleet"
	"github.com/rtype/rtype/net/instance"
)

// TestSplitLobbyStage: a host plays the lobby's stage file, which it does not have. The lobby
// runs with -stage short.json, a custom file (testdata/lobby/tiny.json) that replaces the
// embedded "short" on the lobby only; the host runs with the embedded stages, its "short"
// another file. Two bots play a game on the host to its end: the host's game ran the lobby's
// file (its replay names "short" with the custom file's hash and carries its bytes), and the
// bots, who fetched the file from the lobby, played it with it to the end.
func TestSplitLobbyStage(t *testing.T) {
	t.Parallel()
	custom, err := os.ReadFile("../../testdata/lobby/tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "short.json")
	if err := os.WriteFile(path, custom, 0o644); err != nil {
		t.Fatal(err)
	}
	embedded, err := stagefile.Embedded("short", game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	if embedded.Hash == stagefile.Hash(custom) {
		t.Fatal("the custom file is the embedded short")
	}
	var (
		mu      sync.Mutex
		replays [][]byte
	)
	hostCfg := Config{Addr: "127.0.0.7:0", UDPHost: "127.0.0.7", Logger: quietLog(), // no -stage: the embedded stages
		OnGameEnd: func(in *instance.Instance) {
			mu.Lock()
			replays = append(replays, in.Replay())
			mu.Unlock()
		},
		Fleet: FleetConfig{Role: RoleHost, Secret: testControlSecret, Control: "127.0.0.7:0", Capacity: 4}}
	control, _, stopHost := startServerTB(t, hostCfg)
	defer stopHost()
	var remote *fleet.Remote
	addr, _, stop := startServerTB(t, Config{Stage: path, Logger: quietLog(),
		Fleet: FleetConfig{Role: RoleLobby, Secret: testControlSecret, Hosts: []string{control}, OnRemote: func(r *fleet.Remote) { remote = r }}})
	defer stop()
	if !waitFor(10*time.Second, func() bool { return remote.Up() == 1 }) {
		t.Fatal("host not up")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := bot.Run(ctx, bot.Config{Server: addr, Players: 2, Name: "stg"}, nil)
	if err != nil || len(res) != 2 {
		t.Fatalf("bots: %v %+v", err, res)
	}
	for _, r := range res {
		if !r.Ended() || r.Result == "aborted" || r.DatagramsIn == 0 {
			t.Fatalf("bot %s: %+v; want a game played to its end", r.Bot, r)
		}
	}
	if !waitFor(10*time.Second, func() bool { mu.Lock(); defer mu.Unlock(); return len(replays) == 1 }) {
		t.Fatal("the host's game did not end")
	}
	mu.Lock()
	file := replays[0]
	mu.Unlock()
	rp, err := replay.Decode(file)
	if err != nil {
		t.Fatal(err)
	}
	h := rp.Header
	if h.Stage != "short" || h.StageHash != stagefile.Hash(custom) || !bytes.Equal(h.StageData, custom) {
		t.Fatalf("the host's game played %q hash %s (%d bytes carried); want the lobby's short, hash %s (the host's own is %s)",
			h.Stage, h.StageHash, len(h.StageData), stagefile.Hash(custom), embedded.Hash)
	}
	if err := replay.Verify(rp); err != nil {
		t.Fatalf("the host's replay does not verify: %v", err)
	}
}
