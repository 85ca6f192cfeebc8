package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// lobbyConn is a raw lobby connection of a test.
type lobbyConn struct {
	t  *testing.T
	nc net.Conn
	br *bufio.Reader
}

func dialLobby(t *testing.T, addr string) *lobbyConn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(30 * time.Second))
	return &lobbyConn{t, nc, bufio.NewReader(nc)}
}

// line sends send (if any) and returns the next line ("" at the connection's end).
func (c *lobbyConn) line(send string) string {
	c.t.Helper()
	if send != "" {
		c.nc.Write([]byte(send))
	}
	l, _ := c.br.ReadString('\n')
	return l
}

// TestAdminModeration: the moderation of a real server through `rtype-server admin` (the admin
// address's endpoints, with the token): players lists a connected player; kick tells it why
// and closes it; a ban by name closes its connection and refuses its next AUTHENTICATE, and
// is still in force after a restart on the same database (SQLite); unban lifts it; mute
// refuses chat; a ban by address refuses every new connection from it.
func TestAdminModeration(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	dir := t.TempDir()
	tokenFile := writeFile(t, dir, "token", "s3cret\n")
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	adminAddr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := func() *serverProc {
		return startServerProc(t, ctx, exec.Command(bin, "-addr", addr, "-admin", adminAddr, "-admin-token-file", tokenFile,
			"-data", dir, "-log-format", "json"), addr)
	}
	adm := func(want int, args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, bin, append([]string{"admin", "-admin", adminAddr, "-admin-token-file", tokenFile}, args...)...)
		out, err := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != want {
			t.Fatalf("rtype-server admin %v: exit %d (%v), want %d: %s", args, code, err, want, out)
		}
		return string(out)
	}
	srv := start()
	g := dialLobby(t, addr)
	if l := g.line("AUTHENTICATE ;griefer\r\n"); !strings.HasPrefix(l, "200 ") {
		t.Fatalf("AUTHENTICATE: %q", l)
	}
	var players []struct{ Name, Addr string }
	if err := json.Unmarshal([]byte(adm(0, "players")), &players); err != nil || len(players) != 1 || players[0].Name != "griefer" || players[0].Addr != "127.0.0.1" {
		t.Fatalf("admin players: %+v, %v", players, err)
	}
	adm(0, "kick", "-reason", "spawn camping", "griefer")
	if l := g.line(""); !strings.HasSuffix(l, " kicked by the operator: spawn camping, closing connection\r\n") || !strings.HasPrefix(l, "500 ") {
		t.Fatalf("the kicked player got %q", l)
	}
	if l := g.line(""); l != "" {
		t.Fatalf("the kicked connection stays open: %q", l)
	}
	if out := adm(1, "kick", "nobody"); !strings.Contains(out, "404") {
		t.Fatalf("kick of nobody: %s", out)
	}

	g = dialLobby(t, addr)
	g.line("AUTHENTICATE ;griefer\r\n")
	out := adm(0, "ban", "-for", "1h", "-reason", "team killing", "griefer")
	if !strings.Contains(out, `"expelled": 1`) || !strings.Contains(out, `"kept": true`) {
		t.Fatalf("admin ban: %s", out)
	}
	banned := regexpBanned(t, g.line("")) // the reason, after "500 <SERVER-UUID> "
	srv.cmd.Process.Signal(syscall.SIGINT)
	<-srv.done

	// Restarted on the same database: the ban is in force before the lobby accepts.
	start()
	c := dialLobby(t, addr)
	if l := c.line("AUTHENTICATE ;GRIEFER\r\n"); !strings.HasPrefix(l, "500 ") || l[4+36:] != banned {
		t.Fatalf("after a restart, a banned name gets %q, want the ban's %q", l, banned)
	}
	if out := adm(0, "bans"); !strings.Contains(out, `"name": "griefer"`) || !strings.Contains(out, `"reason": "team killing"`) {
		t.Fatalf("admin bans: %s", out)
	}
	adm(0, "unban", "griefer")
	c = dialLobby(t, addr)
	l := c.line("AUTHENTICATE ;griefer\r\n")
	if !strings.HasPrefix(l, "200 ") {
		t.Fatalf("after unban: %q", l)
	}
	user := strings.TrimSpace(strings.Fields(l)[2])
	c.line("JOIN_LOBBY " + user + ";\r\n")
	adm(0, "mute", "griefer")
	// the next response (pushes, which start with a name, are skipped)
	l = c.line("CHAT " + user + ";hi\r\n")
	for l != "" && !strings.HasPrefix(l, "500 ") && !strings.HasPrefix(l, "200 ") {
		l = c.line("")
	}
	if !strings.HasPrefix(l, "500 ") || !strings.HasSuffix(l, " you are muted by the operator: your chat is not relayed\r\n") {
		t.Fatalf("a muted player's CHAT: %q", l)
	}
	adm(0, "ban", "-addr", "127.0.0.0/8", "-reason", "flood")
	for l := c.line(""); ; l = c.line("") {
		if l == "" {
			t.Fatal("the connection from a banned network closed without the reason")
		}
		if strings.HasSuffix(l, " banned from this server: flood, closing connection\r\n") {
			break
		}
	}
	if l := dialLobby(t, addr).line(""); !strings.HasSuffix(l, " banned from this server: flood, closing connection\r\n") {
		t.Fatalf("a new connection from a banned network: %q", l)
	}
}

// regexpBanned checks a name ban's line (with its expiry) and returns it without its code and
// server UUID (another at each start).
func regexpBanned(t *testing.T, l string) string {
	t.Helper()
	if !regexp.MustCompile(`^500 [0-9a-f-]{36} banned from this server: team killing \(until 20[0-9-]+T[0-9:]+Z\), closing connection\r\n$`).MatchString(l) {
		t.Fatalf("the banned player got %q", l)
	}
	return l[4+36:]
}
