// Package settings loads and saves the client's persistent settings (display, volumes, server
// address, player name and input bindings) as JSON in <config dir>/rtype/settings.json, where the
// config dir is os.UserConfigDir() unless overridden (tests and the -config flag use a temp dir).
// A missing file gives the defaults; a corrupt or invalid file gives the defaults (or the valid
// parts, field by field) plus an error that says which file and what was wrong: never a crash.
package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/rtype/rtype/game/client/controls"
	"github.com/rtype/rtype/lobby"
)

// FileName is the settings file name inside the rtype config directory.
const FileName = "settings.json"

// DefaultServer is the lobby address used when none was ever typed: host:port of the TCP lobby.
const DefaultServer = "127.0.0.1:4242"

// DefaultPort is the lobby's port when an address is typed without one (rtype-server's -addr
// :4242; its game and query UDP port is the same number unless -udp-port says otherwise, so it is
// also where the LAN probe asks).
const DefaultPort = 4242

// DefaultLists are the server lists the Internet tab reads when the settings name none (no
// public list is run yet: the tab says so; -list URL or "lists" in settings.json sets one).
var DefaultLists []string

// MaxSaved bounds the favourites and the list URLs kept (a settings file is no way to make the
// client query without end).
const MaxSaved = 64

// Settings is the persisted client configuration.
type Settings struct {
	Fullscreen    bool    `json:"fullscreen"`
	MusicVolume   float64 `json:"music_volume"`   // 0..1 linear gain
	EffectsVolume float64 `json:"effects_volume"` // 0..1 linear gain
	ServerAddr    string  `json:"server_addr"`    // lobby "host:port", remembered from the connect screen
	Name          string  `json:"name"`           // player name sent in AUTHENTICATE (1..16 of [A-Za-z0-9_-])
	// ColourBlind names the laser crystals ("red", "blue", "yellow" under them) and rings the
	// enemy bullets in white, so neither depends on telling red, pink and yellow apart.
	ColourBlind bool `json:"colour_blind"`
	// ReducedFlash draws no blinking (a respawned ship is steadily faded) and soft hit flashes.
	ReducedFlash bool `json:"reduced_flash"`
	// Keyboard and Gamepad map action names (controls.Action.String) to ebitengine-input key
	// names ("left", "space", "gamepad_a"...).
	Keyboard controls.Bindings `json:"keyboard"`
	Gamepad  controls.Bindings `json:"gamepad"`
	// Lists are the server lists' base URLs the server browser reads (its Internet tab).
	Lists []string `json:"lists"`
	// Favourites are the servers marked in the server browser, Recent the servers last
	// connected to (the newest first, scene.MaxRecent kept): lobby addresses "host:port".
	Favourites []string `json:"favourites"`
	Recent     []string `json:"recent"`
}

// Default returns the settings of a first start.
func Default() Settings {
	return Settings{
		MusicVolume:   0.6,
		EffectsVolume: 0.8,
		ServerAddr:    DefaultServer,
		Name:          lobby.DefaultName(), // distinct: "Pilot-3F2A"; saved with the settings
		Keyboard:      controls.DefaultKeyboard(),
		Gamepad:       controls.DefaultGamepad(),
		Lists:         append([]string(nil), DefaultLists...),
	}
}

// Dir returns the rtype config directory: override/rtype when override is not empty, else
// os.UserConfigDir()/rtype.
func Dir(override string) (string, error) {
	base := override
	if base == "" {
		d, err := os.UserConfigDir()
		if err != nil {
			return "", fmt.Errorf("settings: no user config dir: %w", err)
		}
		base = d
	}
	return filepath.Join(base, "rtype"), nil
}

// ReplayDir returns the folder where the client keeps replays: <rtype config dir>/replays.
func ReplayDir(override string) (string, error) {
	d, err := Dir(override)
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "replays"), nil
}

// Path returns the settings file path for a config-dir override ("" = os.UserConfigDir()).
func Path(override string) (string, error) {
	d, err := Dir(override)
	if err != nil {
		return "", err
	}
	return filepath.Join(d, FileName), nil
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,16}$`)

// ValidName reports whether name is acceptable to the lobby's AUTHENTICATE (1..16 of [A-Za-z0-9_-]).
func ValidName(name string) bool { return nameRE.MatchString(name) }

// Normalize repairs out-of-range values in place (volumes clamped to 0..1, empty or invalid
// name/address reset, actions missing from the binding maps filled with defaults, unknown
// action names dropped) and returns one message per repair.
func (s *Settings) Normalize() []string {
	var msgs []string
	fixVol := func(name string, v *float64, def float64) {
		switch {
		case math.IsNaN(*v) || math.IsInf(*v, 0):
			msgs = append(msgs, fmt.Sprintf("%s is not a number: using %.2f", name, def))
			*v = def
		case *v < 0:
			msgs = append(msgs, fmt.Sprintf("%s %.2f below 0: using 0", name, *v))
			*v = 0
		case *v > 1:
			msgs = append(msgs, fmt.Sprintf("%s %.2f above 1: using 1", name, *v))
			*v = 1
		}
	}
	d := Default()
	fixVol("music_volume", &s.MusicVolume, d.MusicVolume)
	fixVol("effects_volume", &s.EffectsVolume, d.EffectsVolume)
	s.ServerAddr = strings.TrimSpace(s.ServerAddr)
	if s.ServerAddr == "" || !strings.Contains(s.ServerAddr, ":") {
		if s.ServerAddr != "" {
			msgs = append(msgs, fmt.Sprintf("server_addr %q is not host:port: using %s", s.ServerAddr, DefaultServer))
		}
		s.ServerAddr = DefaultServer
	}
	if !ValidName(s.Name) {
		if s.Name != "" {
			msgs = append(msgs, fmt.Sprintf("name %q is not 1..16 of [A-Za-z0-9_-]: using %q", s.Name, d.Name))
		}
		s.Name = d.Name
	}
	fixBind := func(field string, b *controls.Bindings, def controls.Bindings) {
		if *b == nil {
			*b = def
			return
		}
		for _, k := range b.Actions() {
			if _, ok := controls.ByName(k); !ok {
				msgs = append(msgs, fmt.Sprintf("%s: unknown action %q ignored", field, k))
				delete(*b, k)
			}
		}
		for a := controls.Action(0); a < controls.NumActions; a++ {
			if len((*b)[a.String()]) == 0 {
				(*b)[a.String()] = append([]string(nil), def[a.String()]...)
			}
		}
	}
	fixBind("keyboard", &s.Keyboard, d.Keyboard)
	fixBind("gamepad", &s.Gamepad, d.Gamepad)
	fixList := func(field string, l *[]string, max int, ok func(string) bool) {
		var kept []string
		for _, v := range *l {
			v = strings.TrimSpace(v)
			switch {
			case !ok(v):
				msgs = append(msgs, fmt.Sprintf("%s: %q ignored", field, v))
			case slices.Contains(kept, v):
			case len(kept) == max:
				msgs = append(msgs, fmt.Sprintf("%s: more than %d, %q ignored", field, max, v))
			default:
				kept = append(kept, v)
			}
		}
		*l = kept
	}
	fixList("lists", &s.Lists, MaxSaved, validListURL)
	fixList("favourites", &s.Favourites, MaxSaved, validAddr)
	fixList("recent", &s.Recent, MaxSaved, validAddr)
	return msgs
}

// validAddr reports whether s is a lobby address host:port.
func validAddr(s string) bool {
	h, p, err := net.SplitHostPort(s)
	if err != nil || h == "" || len(s) > 300 {
		return false
	}
	n, err := strconv.Atoi(p)
	return err == nil && n > 0 && n < 1<<16
}

// validListURL reports whether s is an http(s) URL with a host.
func validListURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && len(s) <= 2048
}

// Load reads the settings file for a config-dir override ("" = os.UserConfigDir()).
// It always returns usable settings. A missing file is not an error. A file that cannot be read
// or parsed yields Default() and an error naming the file and the reason; a parsable file with
// bad values yields the repaired settings and an error listing the repairs.
func Load(override string) (Settings, error) {
	p, err := Path(override)
	if err != nil {
		return Default(), err
	}
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return Default(), nil
	}
	if err != nil {
		return Default(), fmt.Errorf("settings %s unreadable (%v): using defaults", p, err)
	}
	st, err := Parse(p, data)
	if errors.Is(err, ErrCorrupt) {
		// The next Save would overwrite it with the defaults: keep the player's file for a look.
		bad := p + BadSuffix
		if rerr := os.Rename(p, bad); rerr == nil {
			err = fmt.Errorf("%w; the file is kept as %s", err, bad)
		}
	}
	return st, err
}

// BadSuffix is appended to the name of a corrupt settings file, which Load keeps
// (settings.json.bad) before the defaults replace it.
const BadSuffix = ".bad"

// ErrCorrupt is in Parse's and Load's error when the file is not a settings JSON object.
var ErrCorrupt = errors.New("corrupt")

// Parse decodes settings JSON; file is only used in messages. Fields absent from the JSON keep
// their defaults. See Load for the error semantics.
func Parse(file string, data []byte) (Settings, error) {
	s := Default()
	// Decode over a zero value for the bindings so that a partial map is merged by Normalize.
	s.Keyboard, s.Gamepad = nil, nil
	if err := json.Unmarshal(data, &s); err != nil {
		return Default(), fmt.Errorf("settings %s is %w (%v): using defaults", file, ErrCorrupt, err)
	}
	if msgs := s.Normalize(); len(msgs) > 0 {
		return s, fmt.Errorf("settings %s: %s", file, strings.Join(msgs, "; "))
	}
	return s, nil
}

// Save writes the settings atomically (temp file + rename), creating the directory.
func (s Settings) Save(override string) error {
	p, err := Path(override)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), FileName+".*.tmp")
	if err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	_, werr := tmp.Write(append(data, '\n'))
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("settings: writing %s: %v", p, errors.Join(werr, cerr))
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("settings: %w", err)
	}
	return nil
}
