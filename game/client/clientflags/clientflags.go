// Package clientflags is the command line of rtype-client. It imports no Ebitengine, so that
// game/client/displaycheck can answer -h, -version and bad flags before Ebitengine's package
// initialisation, which panics without a display (a packager's `rtype-client -h` on a headless
// build machine, a player's `-version` over ssh).
package clientflags

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rtype/rtype/game/buildinfo"
	"github.com/rtype/rtype/game/client/invite"
)

// Flags are the parsed flags of rtype-client.
type Flags struct {
	Server     string
	ServerSet  bool // -server was given: it wins over (and is remembered in) the settings
	Name       string
	Fullscreen bool
	Windowed   string
	Autoplay   bool
	Lobby      string
	Start      bool
	Stage      string
	Screenshot string
	ShotAfter  int
	Mute       bool
	NetSim     string
	ConfigDir  string
	Verbose    bool
	Replay     string
	// Lists are the server lists' URLs of -list (nil: the settings').
	Lists []string
	// Invite is the invite link given as the argument (rtype-client rtype://host:port/CODE):
	// Server and Lobby are set from it.
	Invite string
}

// Parse parses the arguments (without the program name). When exit is true the program is done
// and exits with code: -h printed the usage (0), -version the version (0), or a flag was bad
// (2, said on stderr).
func Parse(args []string, stdout, stderr io.Writer) (f Flags, code int, exit bool) {
	fs := flag.NewFlagSet("rtype-client", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.Server, "server", "127.0.0.1:4242", "lobby server host:port (default: the address remembered in the settings, else 127.0.0.1:4242)")
	fs.StringVar(&f.Name, "name", "", "player name, 1..16 of [A-Za-z0-9_-] (default: the name in the settings; on a first start a distinct Pilot-XXXX, then saved)")
	fs.BoolVar(&f.Fullscreen, "fullscreen", false, "start fullscreen (F11 or Alt+Enter toggles)")
	fs.StringVar(&f.Windowed, "windowed", "", "window size WxH in screen pixels (default 1280x720)")
	fs.BoolVar(&f.Autoplay, "autoplay", false, "the built-in autopilot flies the ship; go from the title to the game without keys (creates a lobby and starts it; with -lobby, joins it and waits for its owner)")
	fs.StringVar(&f.Lobby, "lobby", "", "join this lobby code without keys (default with -autoplay/-start: create a lobby)")
	fs.BoolVar(&f.Start, "start", false, "send START once in the lobby")
	fs.StringVar(&f.Stage, "stage", "", "stage of the lobby created by -autoplay/-start without -lobby, e.g. short (default: the server's)")
	fs.StringVar(&f.Screenshot, "screenshot", "", "write a PNG of the 1920x1080 frame to FILE after -screenshot-after ticks in game, then exit 0")
	fs.IntVar(&f.ShotAfter, "screenshot-after", 300, "60 Hz ticks in game with entities visible before the screenshot")
	fs.BoolVar(&f.Mute, "mute", false, "no audio at all")
	fs.StringVar(&f.NetSim, "netsim", "", "simulate a bad link on the game socket, e.g. lat=75ms,jitter=10ms,loss=5%")
	fs.StringVar(&f.ConfigDir, "config", "", "directory replacing the user config dir for rtype/settings.json")
	fs.BoolVar(&f.Verbose, "v", false, "debug logging")
	fs.StringVar(&f.Replay, "replay", "", "watch the replay FILE (a game kept by this client or sent by a friend: .rtr); Esc goes to the title")
	lists := fs.String("list", "", "server lists' URLs, comma-separated, that the server browser reads (default: \"lists\" in the settings; remembered)")
	version := fs.Bool("version", false, "print the version and exit (no display needed)")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return f, 0, true
		}
		return f, 2, true
	}
	if *version {
		fmt.Fprintln(stdout, buildinfo.String("rtype-client"))
		return f, 0, true
	}
	args = fs.Args()
	var linkAddr, linkCode string
	if len(args) > 0 && invite.Is(args[0]) {
		addr, code, err := invite.Parse(args[0])
		if err != nil {
			fmt.Fprintf(stderr, "rtype-client: %v\n", err)
			return f, 2, true
		}
		f.Invite, linkAddr, linkCode = args[0], addr, code
		args = args[1:]
	}
	if len(args) > 0 {
		fmt.Fprintf(stderr, "rtype-client: unexpected arguments %q (an invite link is rtype://host:port/CODE)\n", args)
		return f, 2, true
	}
	for _, u := range strings.Split(*lists, ",") {
		if u = strings.TrimSpace(u); u != "" {
			f.Lists = append(f.Lists, u)
		}
	}
	if f.ShotAfter <= 0 {
		fmt.Fprintln(stderr, "rtype-client: -screenshot-after must be > 0")
		return f, 2, true
	}
	if f.Replay != "" {
		if _, err := os.Stat(f.Replay); err != nil {
			fmt.Fprintf(stderr, "rtype-client: -replay: %v\n", err)
			return f, 2, true
		}
	}
	fs.Visit(func(fl *flag.Flag) { f.ServerSet = f.ServerSet || fl.Name == "server" })
	if f.Invite != "" { // the link wins over -server and -lobby
		f.Server, f.ServerSet, f.Lobby = linkAddr, true, linkCode
	}
	return f, 0, false
}

// Early is displaycheck's call: it parses os.Args and exits when the program is done (-h,
// -version, a bad flag), before anything needs a display.
func Early() {
	if _, code, exit := Parse(os.Args[1:], os.Stdout, os.Stderr); exit {
		os.Exit(code)
	}
}
