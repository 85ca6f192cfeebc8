package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/lobbyserver"
	"github.com/rtype/rtype/net/server"
)

// noFile are the flags a config file cannot set: -version is no configuration, and -config
// names the file itself.
var noFile = map[string]bool{"version": true, "config": true}

// liveFlags are the flags a SIGHUP applies to the running server (reload); a change of any
// other flag is logged as needing a restart.
var liveFlags = map[string]bool{
	"max-lobbies": true, "max-conns": true, "max-conns-per-addr": true, "max-lobbies-per-addr": true,
	"rate": true, "auth-timeout": true, "idle-timeout": true, "log-level": true,
}

// configPath is the config file that args (the command line) or the environment (RTYPE_CONFIG)
// name, "" for none: the command line is parsed once on a throwaway flag set, so that every
// spelling of -config (-config=F, --config F) counts, and its errors are left to the real parse.
func configPath(args []string, lookup func(string) (string, bool)) string {
	fs := flag.NewFlagSet("rtype-server", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	o := defineFlags(fs)
	_ = fs.Parse(args)
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "config" })
	if set {
		return *o.config
	}
	v, _ := lookup(envName("config"))
	return v
}

// applyConfigFile sets fs's flags from the TOML file at path: each top-level key is a flag's
// name (max-conns = 64, idle-timeout = "5m", agones = true). A key that is no flag, a table, or
// a value the flag refuses is an error naming the key and its line. Call it before bindEnv and
// fs.Parse: the environment and the command line override the file.
func applyConfigFile(fs *flag.FlagSet, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	return applyConfig(fs, path, b)
}

func applyConfig(fs *flag.FlagSet, path string, b []byte) error {
	// One field per flag, tagged with its name: the decoder then reports an unknown key with
	// its position (DisallowUnknownFields).
	var fields []reflect.StructField
	var names []string
	fs.VisitAll(func(f *flag.Flag) {
		if noFile[f.Name] {
			return
		}
		fields = append(fields, reflect.StructField{Name: "F" + strconv.Itoa(len(fields)), Type: reflect.TypeFor[any](),
			Tag: reflect.StructTag(`toml:"` + f.Name + `"`)})
		names = append(names, f.Name)
	})
	v := reflect.New(reflect.StructOf(fields))
	dec := toml.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v.Interface()); err != nil {
		var sm *toml.StrictMissingError
		if errors.As(err, &sm) {
			var errs []error
			for _, e := range sm.Errors {
				row, _ := e.Position()
				errs = append(errs, fmt.Errorf("%s:%d: unknown key %q: no such flag (keys are the flag names of rtype-server -h, without the dash)",
					path, row, strings.Join(e.Key(), ".")))
			}
			return errors.Join(errs...)
		}
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, _ := de.Position()
			return fmt.Errorf("%s:%d: %v", path, row, de)
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	var errs []error
	for i, name := range names {
		val := v.Elem().Field(i).Interface()
		if val == nil {
			continue
		}
		var s string
		switch x := val.(type) {
		case string:
			s = x
		case bool, int64, float64:
			s = fmt.Sprint(x)
		default:
			errs = append(errs, fmt.Errorf("%s: key %q (line %d): want a string, number or boolean, not %T", path, name, lineOf(b, name), val))
			continue
		}
		if err := fs.Set(name, s); err != nil {
			errs = append(errs, fmt.Errorf("%s: key %q (line %d) = %q: %v", path, name, lineOf(b, name), s, err))
		}
	}
	return errors.Join(errs...)
}

// lineOf is the line of the first line of b that sets key (for the errors of a value the
// decoder took but the flag refuses; 0 if not found).
func lineOf(b []byte, key string) int {
	for i, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if k, _, ok := strings.Cut(l, "="); ok && strings.Trim(strings.TrimSpace(k), `"'`) == key {
			return i + 1
		}
	}
	return 0
}

// loadOptions defines the server's flags on a new flag set and sets them from, in increasing
// precedence: the defaults, the config file (-config or RTYPE_CONFIG), the environment
// (lookup), the command line (args). The flag set is returned for the comparison of a reload.
func loadOptions(args []string, lookup func(string) (string, bool), errOut io.Writer) (*flag.FlagSet, *options, error) {
	fs := flag.NewFlagSet("rtype-server", flag.ContinueOnError)
	fs.SetOutput(errOut)
	o := defineFlags(fs)
	if path := configPath(args, lookup); path != "" {
		if err := applyConfigFile(fs, path); err != nil {
			return nil, nil, err
		}
	}
	if err := bindEnv(fs, lookup); err != nil {
		return nil, nil, err
	}
	if err := fs.Parse(args); err != nil {
		return nil, nil, parseError{err}
	}
	return fs, o, nil
}

// parseError is an error of the command line, which the flag set has printed already.
type parseError struct{ error }

func (e parseError) Unwrap() error { return e.error }

func isParseErr(err error) bool {
	var pe parseError
	return errors.As(err, &pe)
}

// checkLimits refuses the lobby limits that have no meaning (at start and on a reload).
func checkLimits(cfg server.Config) error {
	for _, lim := range []struct {
		name string
		ok   bool
	}{
		{"-max-conns", cfg.MaxConns > 0}, {"-max-conns-per-addr", cfg.MaxConnsPerAddr > 0},
		{"-max-lobbies-per-addr", cfg.MaxLobbiesPerAddr > 0}, {"-rate", cfg.CommandRate > 0},
	} {
		if !lim.ok {
			return fmt.Errorf("%s must be positive (see -h for its default)", lim.name)
		}
	}
	for _, off := range []struct {
		name string
		zero bool
	}{{"-auth-timeout", cfg.AuthTimeout == 0}, {"-idle-timeout", cfg.IdleTimeout == 0}, {"-udp-rate", cfg.UDPRate == 0}} {
		if off.zero {
			return fmt.Errorf("%s 0 is ambiguous: give a positive value, or a negative one (-1) for none", off.name)
		}
	}
	return nil
}

// reload is SIGHUP: it reads the configuration again (the file, the environment, args) and,
// when it is valid, applies what can change live (liveFlags: the lobby limits, through
// reloads, and the log level) and logs what changed and what waits for a restart; the bans
// are read again from the database (server.Reload) in any case. It returns the new flag set,
// or nil when the configuration is refused (the running one stays, and the error is logged).
func reload(start, cur *flag.FlagSet, args []string, lookup func(string) (string, bool), level *slog.LevelVar, log *slog.Logger, reloads chan server.Reload) *flag.FlagSet {
	var msgs strings.Builder
	fs, o, err := loadOptions(args, lookup, &msgs)
	var lv slog.Level
	if err == nil {
		err = checkLimits(o.cfg)
	}
	if err == nil {
		if err = lv.UnmarshalText([]byte(o.logLevel)); err != nil {
			err = fmt.Errorf("-log-level: %w", err)
		}
	}
	if err != nil {
		log.Error("config reload refused: the running configuration stays", "err", err, "detail", strings.TrimSpace(msgs.String()))
		return nil
	}
	live, _ := diffFlags(cur, fs)
	_, restart := diffFlags(start, fs) // reported at every reload until the restart
	level.Set(lv)
	for _, c := range live {
		log.Info("config reloaded: applied", "flag", c.name, "from", c.from, "to", c.to)
	}
	for _, c := range restart {
		log.Warn("config reloaded: this change needs a restart", "flag", c.name, "from", c.from, "to", c.to)
	}
	log.Info("config reloaded", "applied", len(live), "need_restart", len(restart))
	c := o.cfg
	r := server.Reload{Limits: lobbyserver.LiveLimits{MaxLobbies: c.MaxLobbies, MaxConns: c.MaxConns, MaxConnsPerAddr: c.MaxConnsPerAddr,
		MaxLobbiesPerAddr: c.MaxLobbiesPerAddr, CommandRate: c.CommandRate, AuthTimeout: c.AuthTimeout, IdleTimeout: c.IdleTimeout}}
	select {
	case reloads <- r:
	default: // the previous reload is not taken yet: this one replaces it
		select {
		case <-reloads:
		default:
		}
		reloads <- r
	}
	return fs
}

// flagChange is one flag whose value differs between two flag sets.
type flagChange struct {
	name, from, to string
}

// diffFlags lists the flags whose values differ from old to cur, by name, split into those a
// reload applies (liveFlags) and those that need a restart.
func diffFlags(old, cur *flag.FlagSet) (live, restart []flagChange) {
	cur.VisitAll(func(f *flag.Flag) {
		o := old.Lookup(f.Name)
		if o == nil || noFile[f.Name] || o.Value.String() == f.Value.String() {
			return
		}
		c := flagChange{f.Name, o.Value.String(), f.Value.String()}
		if liveFlags[f.Name] {
			live = append(live, c)
		} else {
			restart = append(restart, c)
		}
	})
	sort.Slice(live, func(i, j int) bool { return live[i].name < live[j].name })
	sort.Slice(restart, func(i, j int) bool { return restart[i].name < restart[j].name })
	return live, restart
}

// serverPassword is the private server's password: the first line of file ("" without a file:
// a public server). A file that is empty, unreadable or whose password the protocol cannot
// carry (lobby.ValidPassword) is an error.
func serverPassword(file string) (string, error) {
	if file == "" {
		return "", nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("-password-file: %w", err)
	}
	pw, _, _ := strings.Cut(string(b), "\n")
	pw = strings.TrimSpace(pw)
	if !lobby.ValidPassword(pw) {
		return "", fmt.Errorf("-password-file %s: the password must be %s", file, lobby.PasswordRule)
	}
	return pw, nil
}
