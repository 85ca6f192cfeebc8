//go:build browser

package webpage_test

// The page in a real browser (make test-web): headless Chromium loads the page built from the
// real client, draws the title screen, checks the server's version, and keeps the settings in
// localStorage. It logs the figures of docs/BENCHMARKS.md ("The browser client").

import (
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/rtype/rtype/game/buildinfo"
	"github.com/rtype/rtype/net/testsupport/browser"
	"github.com/rtype/rtype/net/webpage"
)

// buildPage is the web directory to serve and the version it was built as: $RTYPE_WEB_DIR
// (make test-web passes bin/web, which make web just built), else a page built here from the
// client's js/wasm build.
func buildPage(t *testing.T) (dir, version string) {
	t.Helper()
	if d := os.Getenv("RTYPE_WEB_DIR"); d != "" {
		idx, err := os.ReadFile(filepath.Join(d, webpage.Index))
		if err != nil {
			t.Fatalf("RTYPE_WEB_DIR=%s: %v", d, err)
		}
		m := regexp.MustCompile(`<meta name="rtype-version" content="([^"]*)">`).FindSubmatch(idx)
		if m == nil {
			t.Fatalf("RTYPE_WEB_DIR=%s: index.html has no rtype-version", d)
		}
		return d, string(m[1])
	}
	version = "browsertest"
	tmp := t.TempDir()
	wasm := filepath.Join(tmp, "rtype-client.wasm")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-X github.com/rtype/rtype/game/buildinfo.Version="+version,
		"-o", wasm, "github.com/rtype/rtype/cmd/rtype-client")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the client for js/wasm: %v\n%s", err, out)
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	root := strings.TrimSpace(string(goroot))
	wasmExec := filepath.Join(root, "lib", "wasm", "wasm_exec.js") // Go 1.24+
	if _, err := os.Stat(wasmExec); err != nil {
		wasmExec = filepath.Join(root, "misc", "wasm", "wasm_exec.js")
	}
	dir = filepath.Join(tmp, "web")
	pg, err := webpage.Assemble(dir, wasm, wasmExec, version)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("page: %s %d bytes, gzip %d bytes", pg.Wasm, pg.WasmSize, pg.GzipSize)
	return dir, version
}

// shotDir is where screenshots go: $RTYPE_SHOT_DIR (docs/gallery when refreshing the gallery), else a temp dir.
func shotDir(t *testing.T) string {
	if d := os.Getenv("RTYPE_SHOT_DIR"); d != "" {
		return d
	}
	return t.TempDir()
}

func TestBrowserTitle(t *testing.T) {
	browser.Need(t)
	dir, version := buildPage(t)
	srv := httptest.NewServer(webpage.Handler(os.DirFS(dir), version))
	defer srv.Close()
	shots := shotDir(t)

	ctx := browser.Start(t, srv.URL+"/", browser.Options{Timeout: 4 * time.Minute})
	if err := browser.WaitFrames(ctx, 1); err != nil {
		t.Fatal(err)
	}
	first, _ := browser.Eval[float64](ctx, `rtype.timing.firstFrame`)
	fetched, _ := browser.Eval[float64](ctx, `rtype.timing.fetched`)
	t.Logf("time to first frame %.0f ms (wasm fetched at %.0f ms)", first, fetched)
	// The title's fade-in done (2 s of frames), the loading screen gone, the sound notice up.
	if err := browser.WaitFrames(ctx, 120); err != nil {
		t.Fatal(err)
	}
	if sc, _ := browser.Eval[string](ctx, `rtype.scene`); sc != "title" {
		t.Errorf("the client says it shows %q, want the title", sc)
	}
	if err := browser.WaitFor(ctx, `rtype.versionCheck !== "pending"`); err != nil {
		t.Fatal(err)
	}
	if vc, _ := browser.Eval[string](ctx, `rtype.versionCheck + " " + rtype.serverVersion`); vc != "match "+version {
		t.Errorf("version check %q, want a match of %s", vc, version)
	}
	state, err := browser.Eval[string](ctx, `["loading", "version", "sound"].map(id => id + ":" + (document.getElementById(id).hidden ? "hidden" : "shown")).join(" ")`)
	if err != nil || state != "loading:hidden version:hidden sound:shown" {
		t.Errorf("page state %q (%v)", state, err)
	}
	if err := browser.Screenshot(ctx, filepath.Join(shots, "browser-title.png")); err != nil {
		t.Fatal(err)
	}

	// Frames per second on the title screen, over 5 s of wall time (a figure, not a bound). The
	// title animates (at most 30 frames a second, idle.go) for 5 s after a key and then rests,
	// so an unbound key is pressed every 250 ms; the page's requestAnimationFrame rate beside.
	if _, err := browser.Eval[bool](ctx, `(() => { rtype.raf = 0; const f = () => { rtype.raf++; requestAnimationFrame(f); }; requestAnimationFrame(f); return true; })()`); err != nil {
		t.Fatal(err)
	}
	n0, _ := browser.Frames(ctx)
	r0, _ := browser.Eval[int](ctx, `rtype.raf`)
	t0 := time.Now()
	for end := t0.Add(5 * time.Second); time.Now().Before(end); {
		if err := chromedp.Do(ctx, chromedp.KeyEvent("x")); err != nil {
			t.Fatal(err)
		}
		<-time.After(250 * time.Millisecond)
	}
	n1, _ := browser.Frames(ctx)
	r1, _ := browser.Eval[int](ctx, `rtype.raf`)
	sec := time.Since(t0).Seconds()
	t.Logf("title screen animating at 1280x720: %.1f frames drawn per second (%d), %.1f animation frames per second", float64(n1-n0)/sec, n1-n0, float64(r1-r0)/sec)
	if n1 <= n0 {
		t.Errorf("the game drew no frame in 5 s (%d then %d)", n0, n1)
	}
	if hidden, _ := browser.Eval[bool](ctx, `document.getElementById("sound").hidden`); !hidden {
		t.Error("the sound notice is still up after key presses")
	}

	// Fullscreen on request (F11, as on the desktop) and the settings saved in localStorage.
	if err := browser.Press(ctx, []rune(kb.F11)[0], 250*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitFor(ctx, `(() => { try { return JSON.parse(localStorage.getItem("rtype/settings.json")).fullscreen === true } catch (e) { return false } })()`); err != nil {
		t.Errorf("F11 did not save fullscreen in localStorage: %v", err)
	}
	fsEl, _ := browser.Eval[bool](ctx, `document.fullscreenElement !== null`)
	t.Logf("after F11: the document is fullscreen: %v", fsEl)

	// Settings live in localStorage: a corrupt value is kept aside as the file would be.
	if _, err := browser.Eval[bool](ctx, `localStorage.setItem("rtype/settings.json", "{not json"), true`); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitFrames(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if bad, _ := browser.Eval[string](ctx, `localStorage.getItem("rtype/settings.json.bad") || ""`); bad != "{not json" {
		t.Errorf("the corrupt settings were not kept aside: rtype/settings.json.bad = %q", bad)
	}
}

// TestBrowserVersionMismatch: a page built as one version, served by a server of another,
// says so on the page.
func TestBrowserVersionMismatch(t *testing.T) {
	browser.Need(t)
	dir, version := buildPage(t)
	srv := httptest.NewServer(webpage.Handler(os.DirFS(dir), "v9.9.9-other"))
	defer srv.Close()
	ctx := browser.Start(t, srv.URL+"/", browser.Options{Timeout: 4 * time.Minute})
	if err := browser.WaitFor(ctx, `rtype.versionCheck !== "pending"`); err != nil {
		t.Fatal(err)
	}
	if vc, _ := browser.Eval[string](ctx, `rtype.versionCheck`); vc != "mismatch" {
		t.Fatalf("version check %q, want mismatch", vc)
	}
	msg, err := browser.Eval[string](ctx, `document.getElementById("version").hidden ? "" : document.getElementById("version").textContent`)
	if err != nil || !strings.Contains(msg, version) || !strings.Contains(msg, "v9.9.9-other") || !strings.Contains(msg, "Reload") {
		t.Errorf("mismatch notice %q (%v): want both versions and what to do", msg, err)
	}
	if err := browser.WaitFrames(ctx, 60); err != nil {
		t.Fatal(err)
	}
	if err := browser.Screenshot(ctx, filepath.Join(shotDir(t), "browser-version-mismatch.png")); err != nil {
		t.Fatal(err)
	}
	// A click is the gesture that starts the sound: the notice, up until then, goes.
	if hidden, _ := browser.Eval[bool](ctx, `document.getElementById("sound").hidden`); hidden {
		t.Error("no sound notice before the first gesture")
	}
	if err := chromedp.Do(ctx, chromedp.MouseClickXY(640, 700)); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitFor(ctx, `document.getElementById("sound").hidden`); err != nil {
		t.Error(err)
	}
}

// TestBrowserDevServerNoBanner: a server without a version (go run: buildinfo.Unversioned)
// serving a versioned page shows no mismatch banner: there is nothing to compare.
func TestBrowserDevServerNoBanner(t *testing.T) {
	browser.Need(t)
	dir, _ := buildPage(t)
	srv := httptest.NewServer(webpage.Handler(os.DirFS(dir), buildinfo.Unversioned))
	defer srv.Close()
	ctx := browser.Start(t, srv.URL+"/", browser.Options{Timeout: 4 * time.Minute})
	if err := browser.WaitFor(ctx, `rtype.versionCheck !== "pending"`); err != nil {
		t.Fatal(err)
	}
	vc, _ := browser.Eval[string](ctx, `rtype.versionCheck + " " + document.getElementById("version").hidden`)
	if vc != "unversioned true" {
		t.Errorf("version check and banner hidden: %q, want unversioned true", vc)
	}
}
