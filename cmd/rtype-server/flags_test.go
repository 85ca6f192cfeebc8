package main

import (
	"flag"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// hostingDoc is the document whose table lists the server's flags (the README's table moves to
// docs/HOSTING.md; whichever this tree has).
var hostingDoc = func() string {
	if _, err := os.Stat("../../docs/HOSTING.md"); err == nil {
		return "../../docs/HOSTING.md"
	}
	return "../../README.md"
}()

// deployDoc lists the flags a split server adds (-role, -hosts, ...).
const deployDoc = "../../docs/DEPLOY.md"

func newFlags(t *testing.T) (*flag.FlagSet, *options) {
	t.Helper()
	fs := flag.NewFlagSet("rtype-server", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs, defineFlags(fs)
}

// TestBindEnv: every flag but -version is read from RTYPE_ + its name in upper snake case (the
// variables the docs name), the command line overrides the environment, booleans take yes/no,
// and a bad value names its variable.
func TestBindEnv(t *testing.T) {
	fs, o := newFlags(t)
	asked := map[string]bool{}
	env := map[string]string{
		"RTYPE_MAX_CONNS":    "7",
		"RTYPE_IDLE_TIMEOUT": "90s",
		"RTYPE_CAPACITY":     "3",
		"RTYPE_AGONES":       "yes",
		"RTYPE_STAGE":        "short",
	}
	err := bindEnv(fs, func(name string) (string, bool) {
		asked[name] = true
		v, ok := env[name]
		return v, ok
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := fs.Parse([]string{"-max-conns", "9"}); err != nil {
		t.Fatal(err)
	}
	n := 0
	fs.VisitAll(func(f *flag.Flag) {
		n++
		name := envName(f.Name)
		if noEnv[f.Name] {
			if asked[name] {
				t.Errorf("-%s is not configuration, but %s was looked up", f.Name, name)
			}
			return
		}
		if !asked[name] {
			t.Errorf("-%s: %s was not looked up", f.Name, name)
		}
		if !strings.HasSuffix(f.Usage, "(env "+name+")") {
			t.Errorf("-%s: its help does not end with (env %s): %q", f.Name, name, f.Usage)
		}
	})
	if n < 40 {
		t.Errorf("%d flags: the server defines more", n)
	}
	if c := o.cfg; c.MaxConns != 9 || c.IdleTimeout != 90*time.Second || c.Stage != "short" || *o.fleet.capacity != 3 || !*o.agones.agones {
		t.Errorf("max-conns %d (the command line's 9), idle-timeout %v, stage %q, capacity %d, agones %v: want 9, 1m30s, short, 3, true",
			c.MaxConns, c.IdleTimeout, c.Stage, *o.fleet.capacity, *o.agones.agones)
	}
	fs, _ = newFlags(t)
	err = bindEnv(fs, func(name string) (string, bool) { return "fast", name == "RTYPE_RATE" })
	if err == nil || !strings.Contains(err.Error(), `RTYPE_RATE="fast"`) {
		t.Errorf("RTYPE_RATE=fast: error %v, want one naming the variable", err)
	}
}

var codeSpan = regexp.MustCompile("`([^`]*)`")

// row is one line of a markdown table, split into trimmed cells.
func rows(t *testing.T, path string, header string) [][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	in := false
	for _, l := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(l, header):
			in = true
		case in && strings.HasPrefix(l, "|---"):
		case in && strings.HasPrefix(l, "|"):
			var cells []string
			for _, c := range strings.Split(strings.Trim(strings.ReplaceAll(l, `\|`, "/"), "|"), "|") {
				cells = append(cells, strings.TrimSpace(c))
			}
			out = append(out, cells)
		default:
			in = false
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s has no table whose header starts %q", path, header)
	}
	return out
}

// flagNames are the flags a cell names: each code span's first word, when it starts with '-'.
func flagNames(cell string) []string {
	var out []string
	for _, m := range codeSpan.FindAllStringSubmatch(cell, -1) {
		if w := strings.Fields(m[1]); len(w) > 0 && strings.HasPrefix(w[0], "-") {
			out = append(out, strings.TrimPrefix(w[0], "-"))
		}
	}
	return out
}

// defaultDocumented reports whether a table's default cell says f's default: the same duration,
// or the same first word; a flag without a default (empty, or a false boolean) and -data (a
// directory that depends on the machine) may say it in words.
func defaultDocumented(f *flag.Flag, cell string) bool {
	if f.DefValue == "" || f.DefValue == "false" || f.Name == "data" {
		return true
	}
	first := strings.Fields(strings.ReplaceAll(cell, "`", ""))
	if len(first) == 0 {
		return false
	}
	if want, err := time.ParseDuration(f.DefValue); err == nil && strings.ContainsAny(f.DefValue, "hms") {
		got, err := time.ParseDuration(first[0])
		return err == nil && got == want
	}
	return first[0] == f.DefValue
}

// TestFlagTables: the flag table of the hosting docs and the split server's table of DEPLOY.md
// together document every flag of rtype-server and no other; the hosting table gives each flag's
// environment variable and default, DEPLOY.md each variable.
func TestFlagTables(t *testing.T) {
	fs, _ := newFlags(t)
	if err := bindEnv(fs, func(string) (string, bool) { return "", false }); err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, r := range rows(t, hostingDoc, "| flag | env | default |") {
		names := flagNames(r[0])
		if len(names) != 1 || len(r) < 4 {
			t.Errorf("%s: row %q: want | `-flag` | `ENV` | default | meaning |", hostingDoc, r)
			continue
		}
		f := fs.Lookup(names[0])
		if f == nil {
			t.Errorf("%s documents -%s, which rtype-server does not have", hostingDoc, names[0])
			continue
		}
		documented[f.Name] = true
		wantEnv := "`" + envName(f.Name) + "`"
		if noEnv[f.Name] {
			wantEnv = ""
		}
		if r[1] != wantEnv {
			t.Errorf("%s: -%s's env is %q, want %q", hostingDoc, f.Name, r[1], wantEnv)
		}
		if !defaultDocumented(f, r[2]) {
			t.Errorf("%s: -%s's default is %q, the flag's is %q", hostingDoc, f.Name, r[2], f.DefValue)
		}
	}
	for _, r := range rows(t, deployDoc, "| flag | env | for |") {
		envs := codeSpan.FindAllStringSubmatch(r[1], -1)
		for i, name := range flagNames(r[0]) {
			f := fs.Lookup(name)
			if f == nil {
				t.Errorf("%s documents -%s, which rtype-server does not have", deployDoc, name)
				continue
			}
			documented[f.Name] = true
			if i >= len(envs) || envs[i][1] != envName(f.Name) {
				t.Errorf("%s: -%s's env is not %s (row %q)", deployDoc, f.Name, envName(f.Name), r)
			}
		}
	}
	fs.VisitAll(func(f *flag.Flag) {
		if !documented[f.Name] {
			t.Errorf("-%s is in neither %s's flag table nor %s's", f.Name, hostingDoc, deployDoc)
		}
	})
}
