// Package displaycheck exits with a clear message when the client binary starts without a
// display. Ebitengine's package initialisation panics (with a long glfw stack trace) when no X11
// or Wayland display is reachable; importing this package first from package main (blank import)
// runs its init before ebiten's on Linux, which turns that crash into one line and exit status 1.
// It only checks the environment variables; a set but unusable DISPLAY still reaches ebiten.
// Before that it parses the command line (clientflags.Early), so that -h, -version and bad
// flags are answered without a display at all.
package displaycheck

import (
	"fmt"
	"os"
	"runtime"

	"github.com/rtype/rtype/game/client/clientflags"
)

// Env names the variable that skips the check (set to 1, e.g. to test the no-display path).
const Env = "RTYPE_SKIP_DISPLAY_CHECK"

func init() {
	if os.Getenv("RTYPE_AUDIO_PROBE") != "1" { // the audio probe re-executes the binary without flags
		clientflags.Early()
	}
	if runtime.GOOS != "linux" && runtime.GOOS != "freebsd" && runtime.GOOS != "openbsd" && runtime.GOOS != "netbsd" {
		return
	}
	if os.Getenv(Env) == "1" || os.Getenv("RTYPE_AUDIO_PROBE") == "1" {
		return
	}
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		fmt.Fprintln(os.Stderr, "rtype-client: no display: set DISPLAY (X11) or WAYLAND_DISPLAY; for a headless run use xvfb-run -a rtype-client ...")
		os.Exit(1)
	}
}
