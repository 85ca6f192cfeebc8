package settings

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/rtype/rtype/game/client/controls"
)

func TestMissingFileGivesDefaults(t *testing.T) {
	s, err := Load(t.TempDir())
	if err != nil {
		t.Fatalf("missing file: %v", err)
	}
	if !isDefault(s) {
		t.Fatalf("got %+v, want defaults", s)
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	s := Default()
	s.Fullscreen = true
	s.ColourBlind, s.ReducedFlash = true, true
	s.MusicVolume = 0.25
	s.EffectsVolume = 0
	s.ServerAddr = "10.0.0.7:5000"
	s.Name = "ace_1"
	s.Keyboard["fire"] = []string{"z"}
	if err := s.Save(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "rtype", "settings.json")); err != nil {
		t.Fatalf("file not at <dir>/rtype/settings.json: %v", err)
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, s) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, s)
	}
}

func write(t *testing.T, dir, content string) {
	t.Helper()
	p, _ := Path(dir)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCorruptFileFallsBackWithMessage(t *testing.T) {
	for _, content := range []string{"{not json", "", "[1,2,3]", `{"music_volume":"loud"}`, "\x00\xff"} {
		dir := t.TempDir()
		write(t, dir, content)
		s, err := Load(dir)
		if err == nil {
			t.Fatalf("%q: no error", content)
		}
		if !strings.Contains(err.Error(), "settings.json") || !strings.Contains(err.Error(), "defaults") {
			t.Errorf("%q: message should name the file and say defaults are used: %v", content, err)
		}
		if !isDefault(s) {
			t.Errorf("%q: got %+v, want defaults", content, s)
		}
		// the player's file is kept, byte for byte, beside the one the defaults will replace
		p := filepath.Join(dir, "rtype", FileName)
		if kept, rerr := os.ReadFile(p + BadSuffix); rerr != nil || string(kept) != content {
			t.Errorf("%q: %s%s holds %q (%v), want the corrupt file", content, p, BadSuffix, kept, rerr)
		} else if !strings.Contains(err.Error(), FileName+BadSuffix) {
			t.Errorf("%q: message does not say where the file was kept: %v", content, err)
		}
	}
}

func TestBadValuesRepaired(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, `{"music_volume": 7, "effects_volume": -1, "name": "bad name!", "server_addr": "nohost",
		"keyboard": {"fire": ["z"], "teleport": ["t"]}}`)
	s, err := Load(dir)
	if err == nil {
		t.Fatal("expected repair messages")
	}
	for _, want := range []string{"music_volume", "effects_volume", "name", "server_addr", "teleport"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message lacks %q: %v", want, err)
		}
	}
	if s.MusicVolume != 1 || s.EffectsVolume != 0 || !regexp.MustCompile(`^Pilot-[0-9A-F]{4}$`).MatchString(s.Name) || s.ServerAddr != DefaultServer {
		t.Errorf("not repaired: %+v", s)
	}
	if !reflect.DeepEqual(s.Keyboard["fire"], []string{"z"}) {
		t.Errorf("valid rebinding lost: %v", s.Keyboard["fire"])
	}
	if len(s.Keyboard["up"]) == 0 || len(s.Gamepad["fire"]) == 0 {
		t.Errorf("missing actions not filled from defaults: %v %v", s.Keyboard, s.Gamepad)
	}
	if _, ok := s.Keyboard["teleport"]; ok {
		t.Error("unknown action kept")
	}
}

func TestPartialFileKeepsDefaults(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, `{"fullscreen": true}`)
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.Name = s.Name // random: checked by isDefault
	want.Fullscreen = true
	if !reflect.DeepEqual(s, want) {
		t.Fatalf("got %+v, want %+v", s, want)
	}
}

func TestValidName(t *testing.T) {
	for n, ok := range map[string]bool{"player": true, "A-b_9": true, "": false, "with space": false, "abcdefghijklmnopq": false} {
		if ValidName(n) != ok {
			t.Errorf("ValidName(%q) != %v", n, ok)
		}
	}
}

// pilotRE matches the distinct default names (lobby.DefaultName).
var pilotRE = regexp.MustCompile(`^Pilot-[0-9A-F]{4}$`)

// isDefault reports whether s is Default() but for its random default name.
func isDefault(s Settings) bool {
	d := Default()
	if !pilotRE.MatchString(s.Name) {
		return false
	}
	d.Name = s.Name
	return reflect.DeepEqual(s, d)
}

// TestGamepadRebindSaved: a pad button rebound in Settings (controls.Rebind on the gamepad map)
// is saved and loaded back like a key.
func TestGamepadRebindSaved(t *testing.T) {
	dir := t.TempDir()
	s := Default()
	s.Gamepad.Rebind(controls.Fire, "gamepad_y")
	s.Keyboard.Rebind(controls.Fire, "f")
	if err := s.Save(dir); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if g := got.Gamepad["fire"]; len(g) != 2 || g[0] != "gamepad_y" || g[1] != "gamepad_x" {
		t.Errorf("gamepad fire loaded as %v, want [gamepad_y gamepad_x]", g)
	}
	if k := got.Keyboard["fire"]; len(k) != 2 || k[0] != "f" || k[1] != "j" {
		t.Errorf("keyboard fire loaded as %v, want [f j]", k)
	}
	if g := got.Gamepad["force"]; len(g) != 2 || g[0] != "gamepad_b" {
		t.Errorf("gamepad force changed: %v", g)
	}
}

// TestServerLists: the favourites, recent servers and list URLs are kept across a save; entries
// that are not an address or an http(s) URL, and duplicates, are dropped with a message, and
// the lists are bounded.
func TestServerLists(t *testing.T) {
	dir := t.TempDir()
	s := Default()
	s.Favourites = []string{"play.example.org:4242", "[::1]:5000"}
	s.Recent = []string{"10.0.0.1:4242"}
	s.Lists = []string{"https://list.example.org"}
	if err := s.Save(dir); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir)
	if err != nil || !reflect.DeepEqual(got, s) {
		t.Fatalf("round trip: %+v %v", got, err)
	}
	var many []string
	for i := range MaxSaved + 3 {
		many = append(many, fmt.Sprintf(`"h:%d"`, 1000+i))
	}
	got, err = Parse("s.json", []byte(`{"favourites":["ok:1","nohost",":1","h:0","ok:1"],"lists":["ftp://x","https://l.example"],"recent":[`+strings.Join(many, ",")+`]}`))
	if err == nil {
		t.Fatal("bad entries repaired without a word")
	}
	if !reflect.DeepEqual(got.Favourites, []string{"ok:1"}) || !reflect.DeepEqual(got.Lists, []string{"https://l.example"}) {
		t.Errorf("favourites %v lists %v", got.Favourites, got.Lists)
	}
	if len(got.Recent) != MaxSaved {
		t.Errorf("%d recent kept, want %d", len(got.Recent), MaxSaved)
	}
	for _, w := range []string{`"nohost" ignored`, `"h:0" ignored`, `"ftp://x" ignored`, "more than"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("message %q lacks %q", err, w)
		}
	}
}
