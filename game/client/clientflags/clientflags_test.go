package clientflags

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// -h, -version and bad flags end the program with the right status and message; good flags are
// parsed (-server remembered as given).
func TestParse(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		exit bool
		out  string // in stdout+stderr
	}{
		{[]string{"-h"}, 0, true, "-server"},
		{[]string{"-version"}, 0, true, "rtype-client "},
		{[]string{"-nosuch"}, 2, true, "flag provided but not defined"},
		{[]string{"stray"}, 2, true, "unexpected arguments"},
		{[]string{"-screenshot-after", "0"}, 2, true, "-screenshot-after"},
		{[]string{"-replay", "/nonexistent/friend.rtr"}, 2, true, "-replay: stat /nonexistent/friend.rtr"},
		{[]string{"-server", "[::1]:4242", "-mute"}, 0, false, ""},
	} {
		var out bytes.Buffer
		f, code, exit := Parse(c.args, &out, &out)
		if code != c.code || exit != c.exit || !strings.Contains(out.String(), c.out) {
			t.Errorf("Parse(%q) = %d %v %q, want %d %v with %q", c.args, code, exit, out.String(), c.code, c.exit, c.out)
		}
		if !exit && (f.Server != "[::1]:4242" || !f.ServerSet || !f.Mute) {
			t.Errorf("Parse(%q) = %+v", c.args, f)
		}
	}
}

// TestInviteArgument: rtype-client rtype://host:port/CODE (the desktop's URL handler) opens that
// lobby: its server and code replace -server and -lobby; a broken link is refused with why;
// -list takes comma-separated URLs.
func TestInviteArgument(t *testing.T) {
	var out bytes.Buffer
	f, _, exit := Parse([]string{"-server", "other:1", "-list", "https://a.example, https://b.example", "rtype://play.example.org:4242/qx7pm"}, &out, &out)
	if exit || f.Server != "play.example.org:4242" || !f.ServerSet || f.Lobby != "QX7PM" || f.Invite == "" {
		t.Fatalf("invite: exit %v, %+v, %s", exit, f, out.String())
	}
	if len(f.Lists) != 2 || f.Lists[1] != "https://b.example" {
		t.Errorf("lists %q", f.Lists)
	}
	for _, bad := range [][]string{{"rtype://h/QX7PM"}, {"rtype://h:1/QX7PM", "more"}, {"rtype://h:1/Q"}} {
		out.Reset()
		if _, code, exit := Parse(bad, &out, &out); !exit || code != 2 || out.Len() == 0 {
			t.Errorf("Parse(%q): code %d exit %v %q", bad, code, exit, out.String())
		}
	}
}

// The real binary answers -h and -version without a display (Ebitengine's initialisation
// panics without one): DISPLAY and WAYLAND_DISPLAY unset, exit 0, the usage or the version
// printed, no panic.
func TestBinaryHelpWithoutDisplay(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the client")
	}
	bin := filepath.Join(t.TempDir(), "rtype-client")
	if out, err := exec.Command("go", "build", "-o", bin, "../../../cmd/rtype-client").CombinedOutput(); err != nil {
		t.Skipf("cannot build the client here (cgo): %v\n%s", err, out)
	}
	for arg, want := range map[string]string{"-h": "-server", "-version": "rtype-client "} {
		cmd := exec.Command(bin, arg)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), want) || strings.Contains(string(out), "panic") {
			t.Errorf("rtype-client %s without a display: %v\n%s", arg, err, out)
		}
	}
}
