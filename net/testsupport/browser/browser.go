// Package browser is test support: headless Chromium (Debian's `chromium` package, at
// /usr/bin/chromium or $RTYPE_CHROMIUM) driven through its DevTools protocol with chromedp, for
// the tests that load the browser client's page (net/webpage) in a real browser.
//
// Start opens a URL in a fresh headless Chromium (its own --user-data-dir, no sync, no
// background networking, no QUIC, SwiftShader for WebGL) and returns a chromedp context bound
// to that tab; the browser ends with the test. Frames, Eval, WaitFor and Screenshot are what the
// tests do with it. A test calls Need first: it skips, saying how to install Chromium, where
// there is none.
package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// DefaultPath is where Debian's chromium package installs the browser.
const DefaultPath = "/usr/bin/chromium"

// Path is the Chromium to run: $RTYPE_CHROMIUM, else DefaultPath, else "chromium" on $PATH;
// an error saying how to install it when there is none.
func Path() (string, error) {
	if p := os.Getenv("RTYPE_CHROMIUM"); p != "" {
		if _, err := exec.LookPath(p); err != nil {
			return "", fmt.Errorf("RTYPE_CHROMIUM=%s: %w", p, err)
		}
		return p, nil
	}
	if _, err := os.Stat(DefaultPath); err == nil {
		return DefaultPath, nil
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p, nil
	}
	return "", errors.New("no Chromium at " + DefaultPath + " nor on $PATH: `apt-get install chromium` (make deps does), or set RTYPE_CHROMIUM")
}

// Need skips t when there is no Chromium (see Path), saying so.
func Need(t testing.TB) string {
	t.Helper()
	p, err := Path()
	if err != nil {
		t.Skip("browser test skipped: " + err.Error())
	}
	return p
}

// Options of Start.
type Options struct {
	// Width and Height are the window's size in CSS px (0: 1280×720).
	Width, Height int
	// Timeout bounds the whole browser session (0: 3 minutes); the context Start returns ends then.
	Timeout time.Duration
	// Quiet drops the page's console lines (otherwise each is a t.Log line).
	Quiet bool
}

// Start runs a fresh headless Chromium, opens url in its one tab and returns the tab's chromedp
// context. The browser, its tab and its profile directory go when the test ends (t.Cleanup).
// The page's console messages and uncaught exceptions go to t.Log.
func Start(t testing.TB, url string, o Options) context.Context {
	t.Helper()
	path := Need(t)
	if o.Width <= 0 || o.Height <= 0 {
		o.Width, o.Height = 1280, 720
	}
	if o.Timeout <= 0 {
		o.Timeout = 3 * time.Minute
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU, // and --enable-unsafe-swiftshader: WebGL on SwiftShader
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("autoplay-policy", "user-gesture-required"), // as a player's browser
		// The test's servers are on loopback: WebRTC gathers its loopback candidates too (a
		// player's browser reaches the server's public address instead).
		chromedp.Flag("allow-loopback-in-peer-connection", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(o.Width, o.Height),
	}
	base, cancelBase := context.WithTimeout(context.Background(), o.Timeout)
	actx, cancelAlloc := chromedp.NewExecAllocator(base, opts...)
	// Nothing logs once the test is over (t.Log would panic): the cleanup closes the gate first.
	var mu sync.Mutex
	over := false
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if !over {
			t.Logf(format, args...)
		}
	}
	ctx, cancelTab := chromedp.NewContext(actx, chromedp.WithLogf(logf))
	t.Cleanup(func() {
		mu.Lock()
		over = true
		mu.Unlock()
		cancelTab()
		cancelAlloc()
		cancelBase()
	})
	if !o.Quiet {
		err := chromedp.Listen(ctx, func(ev any) {
			switch e := ev.(type) {
			case *runtime.EventConsoleAPICalled:
				var parts []string
				for _, a := range e.Args {
					if a.Value != nil {
						parts = append(parts, strings.Trim(string(a.Value), `"`))
					} else {
						parts = append(parts, a.Description)
					}
				}
				logf("page console.%s: %s", e.Type, strings.Join(parts, " "))
			case *runtime.EventExceptionThrown:
				d := e.ExceptionDetails
				msg := d.Text
				if d.Exception != nil {
					msg += " " + d.Exception.Description
				}
				logf("page exception: %s", msg)
			}
		})
		if err != nil {
			t.Fatalf("browser: starting %s: %v", path, err)
		}
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(o.Width), int64(o.Height)), chromedp.Navigate(url)); err != nil {
		t.Fatalf("browser: opening %s: %v", url, err)
	}
	return ctx
}

// Eval evaluates a JavaScript expression in the page and returns its value, decoded as a T.
func Eval[T any](ctx context.Context, expr string) (T, error) {
	return chromedp.Run(ctx, chromedp.Evaluate[T](expr))
}

// WaitFor polls the JavaScript expression cond (every 50 ms) until it is true, the page sets
// window.rtype.error (its message is the error), or ctx ends.
func WaitFor(ctx context.Context, cond string) error {
	expr := `(() => { const r = window.rtype; if (r && r.error) return "error: " + r.error; return (` + cond + `) ? "yes" : ""; })()`
	for {
		s, err := Eval[string](ctx, expr)
		if err != nil {
			return fmt.Errorf("waiting for %s: %w", cond, err)
		}
		switch {
		case s == "yes":
			return nil
		case strings.HasPrefix(s, "error: "):
			return fmt.Errorf("waiting for %s: the page says %s", cond, strings.TrimPrefix(s, "error: "))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", cond, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Frames is the number of frames the game has drawn (window.rtype.frames, set by the client).
func Frames(ctx context.Context) (int, error) {
	return Eval[int](ctx, `(window.rtype && window.rtype.frames) || 0`)
}

// WaitFrames waits until the game has drawn n frames.
func WaitFrames(ctx context.Context, n int) error {
	return WaitFor(ctx, fmt.Sprintf(`window.rtype && window.rtype.frames >= %d`, n))
}

// Screenshot writes a PNG of the tab's viewport to path.
func Screenshot(ctx context.Context, path string) error {
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		return fmt.Errorf("screenshot: %w", err)
	}
	return os.WriteFile(path, png, 0o644)
}

// Press presses key (a rune of chromedp/kb, e.g. kb.F11, or a printable one) and releases it
// hold later, as a person does (~100–250 ms): a key pressed and released between two of the
// game's frames, as chromedp.KeyEvent sends them, may never be seen down by a game that polls
// its keys once a frame (ebiten), the more so on a slow page.
func Press(ctx context.Context, key rune, hold time.Duration) error {
	evs := kb.Encode(key)
	if len(evs) == 0 {
		return nil
	}
	down, rest := evs[:len(evs)-1], evs[len(evs)-1]
	return chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		for _, e := range down {
			if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, *e); err != nil {
				return err
			}
		}
		select {
		case <-time.After(hold):
		case <-ctx.Done():
			return ctx.Err()
		}
		_, err := cdp.Call(ctx, t, input.DispatchKeyEvent, *rest)
		return err
	}))
}
