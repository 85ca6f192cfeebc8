package server

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// GamedigEnv names the directory of the pinned gamedig install (.ci/gamedig, npm ci): make
// test-gamedig sets it. Without it TestGamedig is skipped; with it, it must run.
const GamedigEnv = "RTYPE_GAMEDIG"

// gamedigResult is the part of gamedig's JSON the test reads.
type gamedigResult struct {
	Name       string `json:"name"`
	Map        string `json:"map"`
	Password   bool   `json:"password"`
	NumPlayers int    `json:"numplayers"`
	MaxPlayers int    `json:"maxplayers"`
	Version    string `json:"version"`
	Players    []struct {
		Name string `json:"name"`
	} `json:"players"`
	Error string `json:"error"`
}

// gamedig (the npm package, a Valve A2S client nobody here wrote, pinned in .ci/gamedig) reads
// a running server's name, map and players through the game's UDP port, challenge included.
func TestGamedig(t *testing.T) {
	dir := os.Getenv(GamedigEnv)
	if dir == "" {
		t.Skipf("gamedig: %s is not set (make test-gamedig installs the pinned gamedig and sets it): skipped", GamedigEnv)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("gamedig: %s is set but there is no node: %v", GamedigEnv, err)
	}
	cli := filepath.Join(dir, "node_modules", "gamedig", "bin", "gamedig.js")
	if _, err := os.Stat(cli); err != nil {
		t.Fatalf("gamedig: %v (run npm ci in %s)", err, dir)
	}
	addr, mgr, stop := startServer(t, Config{Stage: "short", Name: "Gamedig Test"})
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	target := net.JoinHostPort("127.0.0.1", strconv.Itoa(mgr.Port()))
	var res gamedigResult
	var out []byte
	inGame(t, ctx, addr, 2, "dig", func() bool {
		cmd := exec.CommandContext(ctx, node, cli, "--type", "protocol-valve", "--socketTimeout", "5000", target)
		if out, err = cmd.Output(); err != nil {
			t.Logf("gamedig: %v: %s", err, out)
			return true
		}
		res = gamedigResult{}
		if err = json.Unmarshal(out, &res); err != nil {
			return true
		}
		return res.Error != "" || len(res.Players) == 2
	})
	if err != nil || res.Error != "" {
		t.Fatalf("gamedig: %v %s\n%s", err, res.Error, out)
	}
	if res.Name != "Gamedig Test" || res.Map != "short" || res.Password || res.NumPlayers < 2 || len(res.Players) != 2 {
		t.Fatalf("gamedig read %+v\n%s", res, out)
	}
	names := map[string]bool{res.Players[0].Name: true, res.Players[1].Name: true}
	if !names["dig1"] || !names["dig2"] {
		t.Fatalf("gamedig's players %+v, want dig1 and dig2\n%s", res.Players, out)
	}
	t.Logf("gamedig: %s", out)
}
