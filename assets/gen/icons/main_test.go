package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The committed Windows icon resource and Linux icon are this program's output (run
// `go run ./assets/gen/icons` after changing the ship's art).
func TestCommittedIconsAreGenerated(t *testing.T) {
	syso, pngData, err := build()
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string][]byte{sysoPath: syso, pngPath: pngData} {
		got, err := os.ReadFile(filepath.Join("../../..", path))
		if err != nil {
			t.Fatalf("%v (run go run ./assets/gen/icons)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not the generator's output (run go run ./assets/gen/icons)", path)
		}
	}
	if !bytes.Contains(syso, []byte(".rsrc")) {
		t.Error("the Windows object has no .rsrc section")
	}
}

// The .desktop file is what a Linux desktop needs to list the game: an application entry that
// runs rtype-client, with the committed icon's name, in the Game category, and the handler of
// invite links (rtype://host:port/CODE: the link is rtype-client's argument, %u).
func TestDesktopEntry(t *testing.T) {
	b, err := os.ReadFile("../../../deploy/linux/rtype.desktop")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if lines[0] != "[Desktop Entry]" {
		t.Fatalf("first line %q, want [Desktop Entry]", lines[0])
	}
	kv := map[string]string{}
	for _, l := range lines[1:] {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			t.Fatalf("line %q is not key=value", l)
		}
		kv[k] = v
	}
	want := map[string]string{"Type": "Application", "Exec": "rtype-client %u", "MimeType": "x-scheme-handler/rtype;", "Icon": strings.TrimSuffix(filepath.Base(pngPath), ".png"), "Terminal": "false"}
	for k, v := range want {
		if kv[k] != v {
			t.Errorf("%s=%q, want %q", k, kv[k], v)
		}
	}
	if !strings.Contains(kv["Categories"], "Game;") || kv["Name"] == "" {
		t.Errorf("Categories %q (want Game;...) and Name %q (want one)", kv["Categories"], kv["Name"])
	}
	cmd, _, _ := strings.Cut(kv["Exec"], " ")
	if _, err := os.Stat("../../../cmd/" + cmd); err != nil {
		t.Errorf("Exec=%s is not a command of cmd/: %v", kv["Exec"], err)
	}
}
