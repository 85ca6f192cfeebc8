package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

func benchmarksDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("BENCHMARKS.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// testFuncs returns the Test, Benchmark and Fuzz functions declared in the repository's test
// files (every module under the root: ecs/arkbench is one of its own).
func testFuncs(t *testing.T) map[string]bool {
	t.Helper()
	decl := regexp.MustCompile(`(?m)^func ((?:Test|Benchmark|Fuzz)\w+)\(`)
	out := map[string]bool{}
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != ".." && (strings.HasPrefix(n, ".") || n == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range decl.FindAllStringSubmatch(string(b), -1) {
			out[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Every test, benchmark and fuzz target BENCHMARKS.md names exists, and every package its
// commands run exists: a renamed benchmark or a moved package does not leave a figure that
// nobody can reproduce.
func TestBenchmarksCommandsExist(t *testing.T) {
	doc := benchmarksDoc(t)
	funcs := testFuncs(t)
	named := regexp.MustCompile(`\b(?:Test|Benchmark|Fuzz)[A-Z]\w*`).FindAllString(doc, -1)
	if len(named) < 20 {
		t.Fatalf("BENCHMARKS.md names only %d tests and benchmarks", len(named))
	}
	seen := map[string]bool{}
	for _, n := range named {
		if !funcs[n] && !seen[n] {
			t.Errorf("BENCHMARKS.md names %s, which no test file declares", n)
		}
		seen[n] = true
	}
	pkg := regexp.MustCompile(`(?:^|\s)\./([a-z][\w/-]*[\w])/?(?:\s|$|` + "`" + `)`)
	cmds := 0
	for _, line := range strings.Split(doc, "\n") {
		if !strings.Contains(line, "go test") && !strings.Contains(line, "go run") && !strings.Contains(line, "go build") {
			continue
		}
		cmds++
		for _, m := range pkg.FindAllStringSubmatch(line, -1) {
			if fi, err := os.Stat(filepath.Join("..", m[1])); err != nil || !fi.IsDir() {
				t.Errorf("BENCHMARKS.md runs ./%s, which is not a package directory: %s", m[1], line)
			}
		}
	}
	if cmds < 20 {
		t.Errorf("BENCHMARKS.md has only %d go commands", cmds)
	}
}

// The tables of what holds now give every figure a date and a command.
func TestBenchmarksFiguresDated(t *testing.T) {
	doc := benchmarksDoc(t)
	date := regexp.MustCompile(`\b20\d\d-\d\d-\d\d\b`)
	inNow, rows := false, 0
	for _, line := range strings.Split(doc, "\n") {
		switch {
		case line == "| figure | now | measured | command |":
			inNow = true
			continue
		case !strings.HasPrefix(line, "|"):
			inNow = false
			continue
		case !inNow || strings.HasPrefix(line, "|---"):
			continue
		}
		rows++
		cells := strings.Split(strings.Trim(strings.ReplaceAll(line, `\|`, "¦"), "|"), "|")
		if len(cells) != 4 {
			t.Errorf("a figure row has %d cells, want 4 (figure, now, measured, command): %s", len(cells), line)
			continue
		}
		if !date.MatchString(cells[2]) && !strings.Contains(cells[2], "the rows above") {
			t.Errorf("figure %q has no date (%q)", strings.TrimSpace(cells[0]), strings.TrimSpace(cells[2]))
		}
	}
	if rows < 30 {
		t.Errorf("only %d dated figures: BENCHMARKS.md leads with tables headed | figure | now | measured | command |", rows)
	}
}

// Where the code and the other documents send a reader to a section of BENCHMARKS.md by name
// (docs/BENCHMARKS.md "Upstream cadence", ("Balance")...), that section exists.
func TestBenchmarksSectionsReferenced(t *testing.T) {
	doc := benchmarksDoc(t)
	var headings []string
	for _, m := range regexp.MustCompile(`(?m)^#+ (.+)$`).FindAllStringSubmatch(doc, -1) {
		headings = append(headings, strings.ToLower(m[1]))
	}
	ref := regexp.MustCompile(`BENCHMARKS(?:\.md)?[ ,(]{0,3}"#*\s*([^"]+)"`)
	joined := regexp.MustCompile(`\n\s*(?://|#)?\s*`)
	var missing []string
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != ".." && (n == ".git" || n == "testdata" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".md", ".sh", ".yaml", ".yml":
		default:
			if filepath.Base(path) != "Makefile" {
				return nil
			}
		}
		if strings.HasSuffix(path, "benchmarks_test.go") {
			return nil // this file's own examples
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		text := joined.ReplaceAllString(string(b), " ") // a reference may wrap over comment lines
		for _, m := range ref.FindAllStringSubmatch(text, -1) {
			name := strings.ToLower(strings.TrimSpace(m[1]))
			found := false
			for _, h := range headings {
				if strings.Contains(h, name) {
					found = true
					break
				}
			}
			if !found {
				missing = append(missing, path+": "+m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("%s names a section BENCHMARKS.md does not have", m)
	}
}
