package main

import (
	"bufio"
	"context"
	"flag"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rtype/rtype/lobby/lobbyserver"
	"github.com/rtype/rtype/net/bot"
	"github.com/rtype/rtype/net/session"
)

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// TestConfigPrecedence: the command line overrides the environment, which overrides the file,
// which overrides the defaults; the file is found by -config (any spelling) or RTYPE_CONFIG,
// and takes numbers, booleans, durations and strings.
func TestConfigPrecedence(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "rtype.toml", `# every kind of value
max-conns = 100
max-conns-per-addr = 5
rate = 2.5
idle-timeout = "90s"
stage = "short"
agones = true
log-level = "debug"
`)
	for _, args := range [][]string{{"-config", p}, {"-config=" + p}, {"--config", p}} {
		_, o, err := loadOptions(append(args, "-max-conns", "300"), env(map[string]string{"RTYPE_MAX_CONNS": "200", "RTYPE_MAX_CONNS_PER_ADDR": "6"}), io.Discard)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		c := o.cfg
		if c.MaxConns != 300 || c.MaxConnsPerAddr != 6 || c.CommandRate != 2.5 || c.IdleTimeout != 90*time.Second || c.Stage != "short" || !*o.agones.agones || o.logLevel != "debug" {
			t.Errorf("%v: max-conns %d (flag 300), per-addr %d (env 6), rate %v, idle %v, stage %q, agones %v, log-level %q (file)",
				args, c.MaxConns, c.MaxConnsPerAddr, c.CommandRate, c.IdleTimeout, c.Stage, *o.agones.agones, o.logLevel)
		}
		if c.MaxLobbies != lobbyserver.DefaultMaxLobbies || c.AuthTimeout != lobbyserver.DefaultAuthTimeout {
			t.Errorf("%v: unset keys: max-lobbies %d, auth-timeout %v, want the defaults", args, c.MaxLobbies, c.AuthTimeout)
		}
	}
	_, o, err := loadOptions(nil, env(map[string]string{"RTYPE_CONFIG": p}), io.Discard)
	if err != nil || o.cfg.MaxConns != 100 {
		t.Errorf("RTYPE_CONFIG: max-conns %d, %v; want the file's 100", o.cfg.MaxConns, err)
	}
	if _, o, err := loadOptions(nil, env(nil), io.Discard); err != nil || o.cfg.MaxConns != lobbyserver.DefaultMaxConns {
		t.Errorf("no config: max-conns %d, %v", o.cfg.MaxConns, err)
	}
}

// TestConfigErrors: an unknown key (a typo, a table, -version) is refused with the file, its
// line and the key; so is a value the flag refuses, and a file that is not there.
func TestConfigErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ text, want string }{
		{"addr = \":4242\"\n\nmax-con = 5\n", `rtype.toml:3: unknown key "max-con"`},
		{"version = true\n", `rtype.toml:1: unknown key "version"`},
		{"config = \"other.toml\"\n", `rtype.toml:1: unknown key "config"`},
		{"addr = \":1\"\n[fleet]\nhosts = \"a\"\n", `rtype.toml:2: unknown key "fleet"`},
		{"max-conns = 5\nidle-timeout = \"soon\"\n", `key "idle-timeout" (line 2) = "soon": parse error`},
		{"max-conns = \"many\"\n", `key "max-conns" (line 1)`},
		{"max-conns = [1, 2]\n", `key "max-conns" (line 1): want a string, number or boolean`},
		{"max-conns = \n", `rtype.toml:1:`},
	} {
		p := writeFile(t, dir, "rtype.toml", c.text)
		_, _, err := loadOptions([]string{"-config", p}, env(nil), io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.text, err, c.want)
		}
	}
	if _, _, err := loadOptions([]string{"-config", filepath.Join(dir, "none.toml")}, env(nil), io.Discard); err == nil || !strings.Contains(err.Error(), "none.toml") {
		t.Errorf("a missing file: %v", err)
	}
}

// TestHostingConfigExample: the config file of docs/HOSTING.md loads (every key a flag), and
// every flag but -config and -version may be a key.
func TestHostingConfigExample(t *testing.T) {
	b, err := os.ReadFile(hostingDoc)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)### Config file.*?```toml\n(.*?)```").FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s has no ```toml example under ### Config file", hostingDoc)
	}
	fs, o := newFlags(t)
	if err := applyConfig(fs, "HOSTING.md", m[1]); err != nil {
		t.Fatal(err)
	}
	if o.cfg.KeepDays != 90 || o.logFormat != "json" {
		t.Errorf("the example's keep-days %d, log-format %q not applied", o.cfg.KeepDays, o.logFormat)
	}
	var all strings.Builder
	fs, _ = newFlags(t)
	fs.VisitAll(func(f *flag.Flag) {
		if !noFile[f.Name] {
			all.WriteString(strconv.Quote(f.Name) + " = " + strconv.Quote(f.DefValue) + "\n")
		}
	})
	if err := applyConfig(fs, "all.toml", []byte(all.String())); err != nil {
		t.Errorf("a file with every flag at its default: %v", err)
	}
}

// TestDiffFlags: a reload tells the live changes from those that need a restart.
func TestDiffFlags(t *testing.T) {
	a, _ := newFlags(t)
	b, _ := newFlags(t)
	_ = b.Parse([]string{"-max-conns", "9", "-addr", ":1", "-log-level", "debug"})
	live, restart := diffFlags(a, b)
	if len(live) != 2 || live[0].name != "log-level" || live[1].name != "max-conns" || live[1].from != "1024" || live[1].to != "9" {
		t.Errorf("live changes %+v", live)
	}
	if len(restart) != 1 || restart[0].name != "addr" {
		t.Errorf("restart changes %+v", restart)
	}
}

// TestSIGHUPReloadsKeepsTheGame: a server started with -config plays a 2-bot game; a SIGHUP
// with a broken file is refused (logged, nothing changes), then one with a lower
// max-conns-per-addr and a new udp-rate: the game keeps running (its tick goes on, no
// GAME_END), the log says which change applied and which needs a restart, and a new
// connection over the new limit is refused. SIGINT then ends the game as before.
func TestSIGHUPReloadsKeepsTheGame(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	dir := t.TempDir()
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	cfgPath := writeFile(t, dir, "rtype.toml", "stage = \"stage1\"\nlog-format = \"json\"\nmax-conns-per-addr = 16\n")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv := startServerProc(t, ctx, exec.Command(bin, "-addr", addr, "-config", cfgPath), addr)

	var inGame atomic.Int32
	var mu sync.Mutex
	var sessions []*session.Session
	done := make(chan []bot.Result, 1)
	go func() {
		r, _ := bot.Run(ctx, bot.Config{Server: addr, Players: 2, OnSession: func(_ int, s *session.Session) {
			mu.Lock()
			sessions = append(sessions, s)
			mu.Unlock()
			inGame.Add(1)
		}}, nil)
		done <- r
	}()
	tick := func() uint32 {
		mu.Lock()
		defer mu.Unlock()
		var n uint32
		sessions[0].View(func(v *session.View) { n = uint32(v.Tick) })
		return n
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			if cond() {
				return
			}
		}
		t.Fatalf("never: %s", what)
	}
	waitFor("both bots in game, 60 ticks played", func() bool { return inGame.Load() == 2 && tick() >= 60 })
	// Two bots hold two lobby connections; a third from the same address is fine at 16.
	if line := firstLine(t, addr, "AUTHENTICATE ;probe\r\n"); !strings.HasPrefix(line, "200 ") {
		t.Fatalf("third connection before the reload: %q", line)
	}

	writeFile(t, dir, "rtype.toml", "stage = \"short\"\nlog-format = \"json\"\nmax-conns-per-adr = 2\n")
	if err := srv.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitFor("the broken file's reload refused", func() bool { return strings.Contains(srv.stderr.String(), `"msg":"config reload refused`) })
	if !strings.Contains(srv.stderr.String(), `unknown key \"max-conns-per-adr\"`) {
		t.Errorf("the refusal does not name the key:\n%s", srv.stderr.String())
	}

	writeFile(t, dir, "rtype.toml", "stage = \"short\"\nlog-format = \"json\"\nmax-conns-per-addr = 2\nudp-rate = 500\n")
	if err := srv.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitFor("the reload applied", func() bool { return strings.Contains(srv.stderr.String(), `"msg":"lobby limits changed"`) })
	logs := srv.stderr.String()
	for _, want := range []string{`"msg":"config reloaded: applied","flag":"max-conns-per-addr","from":"16","to":"2"`,
		`"msg":"config reloaded: this change needs a restart","flag":"udp-rate"`} {
		if !strings.Contains(logs, want) {
			t.Errorf("server log lacks %s", want)
		}
	}
	at := tick()
	waitFor("the game goes on after the reload", func() bool { return tick() >= at+60 })
	select {
	case <-srv.done:
		t.Fatalf("the server exited on SIGHUP: %v", srv.err)
	case r := <-done:
		t.Fatalf("the game ended on SIGHUP: %+v", r)
	default:
	}
	if strings.Contains(srv.stderr.String(), `"msg":"game ended"`) {
		t.Fatal("a game ended on SIGHUP")
	}
	if line := firstLine(t, addr, "AUTHENTICATE ;probe\r\n"); !strings.Contains(line, "too many connections from 127.0.0.1 (max 2), closing connection") {
		t.Fatalf("a third connection after the reload: %q, want the new limit's refusal", line)
	}
	// Two SIGINTs: the first drains, the second (once the drain began: the kernel merges a
	// signal sent while the same one is pending) ends the game at once.
	if err := srv.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(30 * time.Second); !strings.Contains(srv.stderr.String(), `"msg":"draining`) && time.Now().Before(end); {
		time.Sleep(20 * time.Millisecond)
	}
	if err := srv.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		for _, b := range r {
			if b.Result != "aborted" {
				t.Errorf("bot %s: %q after two SIGINTs, want aborted", b.Bot, b.Result)
			}
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the bots did not finish after SIGINT")
	}
}

// firstLine connects to the lobby at addr, sends send and returns the first line it gets.
func firstLine(t *testing.T, addr, send string) string {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	nc.Write([]byte(send))
	l, err := bufio.NewReader(nc).ReadString('\n')
	if err != nil {
		t.Fatalf("no line from the lobby: %v", err)
	}
	return l
}

// TestServerPassword: -password-file's first line is the password; none is a public server; an
// empty file or a password AUTHENTICATE cannot carry is refused.
func TestServerPassword(t *testing.T) {
	dir := t.TempDir()
	if pw, err := serverPassword(""); pw != "" || err != nil {
		t.Errorf("no file: %q, %v", pw, err)
	}
	if pw, err := serverPassword(writeFile(t, dir, "pw", "hunter2\nignored\n")); pw != "hunter2" || err != nil {
		t.Errorf("a password file: %q, %v", pw, err)
	}
	for _, bad := range []string{"", "\n", "two words\n", "a,b\n"} {
		if _, err := serverPassword(writeFile(t, dir, "pw", bad)); err == nil {
			t.Errorf("password file %q accepted", bad)
		}
	}
}
