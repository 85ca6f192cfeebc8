package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/rtype/rtype"

// goCmd returns the go command with args, to run in the module root with env added to the
// environment.
func goCmd(t *testing.T, env []string, args ...string) *exec.Cmd {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal("no go command on PATH to list the packages with")
	}
	cmd := exec.Command(gobin, args...)
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), env...)
	return cmd
}

// goList runs go list with args in the module root and returns its output lines.
func goList(t *testing.T, env []string, args ...string) []string {
	t.Helper()
	out, err := goCmd(t, env, append([]string{"list"}, args...)...).Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("go list %v: %v\n%s", args, err, msg)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// trackSources reads go.mod, go.sum and every Go file of the module. The go command the tests
// run is another process, whose reads go test cannot see: reading them here makes a change of
// any package (a new one, a new import) rerun these tests instead of reusing a cached pass.
func trackSources(t *testing.T) {
	t.Helper()
	for _, f := range []string{"../go.mod", "../go.sum"} {
		if _, err := os.ReadFile(f); err != nil {
			t.Fatal(err)
		}
	}
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != ".." && (strings.HasPrefix(n, ".") || n == "testdata") {
				return filepath.SkipDir
			}
			if path != ".." {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir // another module
				}
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") {
			_, err = os.ReadFile(path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func rel(importPath string) string {
	if importPath == module {
		return "."
	}
	return strings.TrimPrefix(importPath, module+"/")
}

func design(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("DESIGN.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// block returns the lines of DESIGN.md's fenced block ```name.
func block(t *testing.T, doc, name string) []string {
	t.Helper()
	m := regexp.MustCompile("(?ms)^```" + name + "\n(.*?)^```").FindStringSubmatch(doc)
	if m == nil {
		t.Fatalf("DESIGN.md has no ```%s block", name)
	}
	return strings.Split(strings.TrimRight(m[1], "\n"), "\n")
}

// mapEntries returns the paths the package map names (the first word of each line that does
// not start with a space).
func mapEntries(t *testing.T, doc string) []string {
	var out []string
	for _, l := range block(t, doc, "packages") {
		if l == "" || l[0] == ' ' {
			continue
		}
		out = append(out, strings.Fields(l)[0])
	}
	return out
}

// TestDesignPackageMap: the map lists every package of `go list ./...` once, and each of its
// other entries (a directory with "/" or a file) exists and is not a package.
func TestDesignPackageMap(t *testing.T) {
	trackSources(t)
	pkgs := map[string]bool{}
	for _, p := range goList(t, nil, "./...") {
		pkgs[rel(p)] = true
	}
	listed := map[string]bool{}
	for _, e := range mapEntries(t, design(t)) {
		if listed[e] {
			t.Errorf("the map lists %s twice", e)
		}
		listed[e] = true
		if pkgs[e] {
			continue
		}
		fi, err := os.Stat(filepath.Join("..", strings.TrimSuffix(e, "/")))
		switch {
		case err != nil:
			t.Errorf("the map lists %s, which is neither a package of go list ./... nor a path: %v", e, err)
		case fi.IsDir() != strings.HasSuffix(e, "/"):
			t.Errorf("the map lists %s: a directory that is no package ends with /, a file does not", e)
		}
	}
	var missing []string
	for p := range pkgs {
		if !listed[p] {
			missing = append(missing, p)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("packages of go list ./... missing from DESIGN.md's map: %v", missing)
	}
}

// links returns the ```links block as key -> package paths.
func links(t *testing.T, doc string) map[string][]string {
	out := map[string][]string{}
	for _, l := range block(t, doc, "links") {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			t.Fatalf("links line %q: want key: packages", l)
		}
		out[k] = strings.Fields(v)
		sort.Strings(out[k])
	}
	return out
}

func isEbiten(p string) bool {
	return p == "github.com/hajimehoshi/ebiten/v2" || strings.HasPrefix(p, "github.com/hajimehoshi/ebiten/v2/")
}

// TestDesignLinks checks the ```links block of DESIGN.md against go list.
func TestDesignLinks(t *testing.T) {
	trackSources(t)
	l := links(t, design(t))
	for _, k := range []string{"ebiten-imports", "ebiten-links", "cgo-free", "no-game", "game-deps", "no-lobby", "test-support", "client-links-none", "lobby-to-net"} {
		if len(l[k]) == 0 {
			t.Errorf("the links block has no %s line", k)
		}
	}
	// ebiten-imports: exactly the packages that import an ebiten package themselves.
	var imp []string
	for _, line := range goList(t, nil, "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...") {
		f := strings.Fields(line)
		if slices.ContainsFunc(f[1:], isEbiten) {
			imp = append(imp, rel(f[0]))
		}
	}
	sort.Strings(imp)
	if !slices.Equal(imp, l["ebiten-imports"]) {
		t.Errorf("packages importing ebiten: %v, DESIGN.md says %v", imp, l["ebiten-imports"])
	}
	// test-support: exactly the packages under net/testsupport/, and only tests (and other
	// test support) import them.
	support := map[string]bool{}
	for _, p := range l["test-support"] {
		support[p] = true
	}
	var under []string
	for _, line := range goList(t, nil, "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...") {
		f := strings.Fields(line)
		p := rel(f[0])
		if strings.HasPrefix(p, "net/testsupport/") {
			under = append(under, p)
		}
		for _, imp := range f[1:] {
			if strings.HasPrefix(imp, module+"/") && support[rel(imp)] && !support[p] {
				t.Errorf("%s imports the test support %s outside its tests", p, rel(imp))
			}
		}
	}
	sort.Strings(under)
	if !slices.Equal(under, l["test-support"]) {
		t.Errorf("packages under net/testsupport/: %v, DESIGN.md's test-support line says %v", under, l["test-support"])
	}
	// ebiten-links: exactly the packages that link one.
	var linked []string
	for _, line := range goList(t, nil, "-deps", "-f", "{{.ImportPath}} {{join .Deps \" \"}}", "./...") {
		f := strings.Fields(line)
		if strings.HasPrefix(f[0], module) && slices.ContainsFunc(f[1:], isEbiten) {
			linked = append(linked, rel(f[0]))
		}
	}
	sort.Strings(linked)
	if !slices.Equal(linked, l["ebiten-links"]) {
		t.Errorf("packages linking ebiten: %v, DESIGN.md says %v", linked, l["ebiten-links"])
	}
	for _, p := range l["ebiten-links"] {
		if p != "cmd/rtype-client" && p != "game/client" && !strings.HasPrefix(p, "game/client/") {
			t.Errorf("%s links ebiten: only game/client/... and the client binary may", p)
		}
	}
	// cgo-free: each builds with CGO_ENABLED=0 (go build of several packages discards the
	// results; it type-checks and compiles them as make build does).
	args := []string{"build"}
	for _, p := range l["cgo-free"] {
		args = append(args, "./"+p)
	}
	if out, err := goCmd(t, []string{"CGO_ENABLED=0"}, args...).CombinedOutput(); err != nil {
		t.Errorf("CGO_ENABLED=0 go build %v: %v\n%s", l["cgo-free"], err, out)
	}
	// no-game and game-deps: the repository packages each links.
	deps := func(p string) []string {
		var out []string
		for _, d := range goList(t, nil, "-deps", "./"+p) {
			if strings.HasPrefix(d, module+"/") && d != module+"/"+p {
				out = append(out, rel(d))
			}
		}
		sort.Strings(out)
		return out
	}
	for _, p := range l["no-game"] {
		if slices.Contains(deps(p), "game") {
			t.Errorf("%s links package game: DESIGN.md says it knows no game", p)
		}
	}
	for _, p := range l["no-lobby"] {
		if d := deps(p); slices.Contains(d, "lobby") || slices.Contains(d, "lobby/lobbyserver") {
			t.Errorf("%s links package lobby or lobby/lobbyserver: DESIGN.md says it starts games through lobby/handoff alone", p)
		}
	}
	// client-links-none: what the programs that play link none of (standard packages by their
	// import path, the repository's by their path in it).
	for _, bin := range []string{"cmd/rtype-client", "cmd/rtype-bot"} {
		linked := map[string]bool{}
		for _, d := range goList(t, nil, "-deps", "./"+bin) {
			linked[rel(d)] = true
		}
		if !linked["lobby"] {
			t.Errorf("%s links no package lobby: the client-links-none check would hold for nothing", bin)
		}
		for _, p := range l["client-links-none"] {
			if linked[p] {
				t.Errorf("%s links %s: DESIGN.md says the programs that play link no lobby server or database", bin, p)
			}
		}
	}
	// lobby-to-net: the packages of net/ that the packages under lobby/ link, together.
	var toNet []string
	for _, line := range goList(t, nil, "-deps", "-f", "{{.ImportPath}} {{join .Deps \" \"}}", "./lobby/...") {
		f := strings.Fields(line)
		if p := rel(f[0]); p != "lobby" && !strings.HasPrefix(p, "lobby/") {
			continue
		}
		for _, d := range f[1:] {
			if strings.HasPrefix(d, module+"/net/") && !slices.Contains(toNet, rel(d)) {
				toNet = append(toNet, rel(d))
			}
		}
	}
	sort.Strings(toNet)
	if !slices.Equal(toNet, l["lobby-to-net"]) {
		t.Errorf("the packages under lobby/ link %v of net/, DESIGN.md's lobby-to-net line says %v", toNet, l["lobby-to-net"])
	}
	if got := deps("game"); !slices.Equal(got, l["game-deps"]) {
		t.Errorf("game links %v of the repository, DESIGN.md says %v", got, l["game-deps"])
	}
}

// exported returns the exported top-level names of the package in dir (types, funcs, vars,
// consts) and its methods as "Type.Method", from its non-test sources.
func exported(t *testing.T, dir string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	fset := token.NewFileSet()
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					out[d.Name.Name] = true
					continue
				}
				rt := d.Recv.List[0].Type
				if s, ok := rt.(*ast.StarExpr); ok {
					rt = s.X
				}
				if ix, ok := rt.(*ast.IndexExpr); ok {
					rt = ix.X
				}
				if id, ok := rt.(*ast.Ident); ok {
					out[id.Name+"."+d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						out[s.Name.Name] = true
					case *ast.ValueSpec:
						for _, n := range s.Names {
							out[n.Name] = true
						}
					}
				}
			}
		}
	}
	return out
}

// TestDesignIdentifiers: every `pkg.Name` and `pkg.Type.Method` that DESIGN.md writes in
// code spans, with pkg the name of a package of the module (not a command; names two packages
// share are not checked), exists in that package.
func TestDesignIdentifiers(t *testing.T) {
	trackSources(t)
	doc := design(t)
	dirs := map[string]string{} // package name -> directory
	for _, line := range goList(t, nil, "-f", "{{.Name}} {{.Dir}}", "./...") {
		name, dir, _ := strings.Cut(line, " ")
		if name != "main" {
			if _, dup := dirs[name]; dup {
				dirs[name] = "" // ambiguous: not checked
				continue
			}
			dirs[name] = dir
		}
	}
	names := map[string]map[string]bool{}
	ident := regexp.MustCompile(`\b([a-z][a-z0-9]*)\.([A-Z][A-Za-z0-9_]*)(?:\.([A-Z][A-Za-z0-9_]*))?`)
	n := 0
	for _, span := range regexp.MustCompile("`[^`\n]+`").FindAllString(doc, -1) {
		for _, m := range ident.FindAllStringSubmatch(span, -1) {
			dir, ok := dirs[m[1]]
			if !ok || dir == "" {
				continue
			}
			if names[dir] == nil {
				names[dir] = exported(t, dir)
			}
			n++
			name := m[2]
			if m[3] != "" {
				name += "." + m[3] // a method: DESIGN.md names no struct field this way
			}
			if !names[dir][name] {
				t.Errorf("DESIGN.md names %s, which package %s does not declare", m[0], m[1])
			}
		}
	}
	if n < 20 {
		t.Errorf("DESIGN.md names %d identifiers in code spans; the test expects the map's claims to name at least 20", n)
	}
}

// TestTopLevelPackages: the repository's Go code lives under the top-level directories the
// project's layout names (docs/DESIGN.md's package map); a new top-level tree (an internal/,
// a pkg/) would be a second place to look for the same kind of code.
func TestTopLevelPackages(t *testing.T) {
	allowed := []string{"assets", "cmd", "docs", "ecs", "game", "lobby", "net"}
	for _, p := range goList(t, nil, "./...") {
		top, _, _ := strings.Cut(rel(p), "/")
		if !slices.Contains(allowed, top) {
			t.Errorf("package %s is outside the top-level directories %v", rel(p), allowed)
		}
	}
}

// pictureNode and pictureEdge read DESIGN.md's ```mermaid picture: nodes as id["pkg<br>pkg..."]
// (a pattern ending in /... covers a directory's tree), arrows as a --> b.
var (
	pictureNode = regexp.MustCompile(`^\s*(\w+)\["([^"]+)"\]\s*$`)
	pictureEdge = regexp.MustCompile(`^\s*(\w+) --> (\w+)\s*$`)
)

// TestDesignPicture: the picture of DESIGN.md is the repository's import graph, boxed: every
// package but the test support and docs is in exactly one box, the boxes import each other
// without a cycle, and the arrows are exactly the transitive reduction of the boxes' imports
// (an arrow for each box a box imports directly that no longer path already reaches).
func TestDesignPicture(t *testing.T) {
	trackSources(t)
	type pattern struct{ node, pkg string }
	var patterns []pattern
	drawn := map[[2]string]bool{}
	for _, l := range block(t, design(t), "mermaid") {
		if m := pictureNode.FindStringSubmatch(l); m != nil {
			for _, p := range strings.Split(m[2], "<br>") {
				patterns = append(patterns, pattern{m[1], strings.TrimSpace(p)})
			}
		} else if m := pictureEdge.FindStringSubmatch(l); m != nil {
			drawn[[2]string{m[1], m[2]}] = true
		}
	}
	box := func(p string) []string {
		var in []string
		for _, pt := range patterns {
			if tree, ok := strings.CutSuffix(pt.pkg, "/..."); ok && (p == tree || strings.HasPrefix(p, tree+"/")) || pt.pkg == p {
				in = append(in, pt.node)
			}
		}
		return in
	}
	imports := map[[2]string]bool{}
	graph := map[string][]string{}
	for _, line := range goList(t, nil, "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...") {
		f := strings.Fields(line)
		p := rel(f[0])
		if p == "docs" || strings.HasPrefix(p, "net/testsupport/") {
			continue
		}
		from := box(p)
		if len(from) != 1 {
			t.Errorf("package %s is in %d boxes of the picture (%v), want 1", p, len(from), from)
			continue
		}
		for _, imp := range f[1:] {
			if imp != module && !strings.HasPrefix(imp, module+"/") {
				continue
			}
			to := box(rel(imp))
			if len(to) == 1 && to[0] != from[0] && !imports[[2]string{from[0], to[0]}] {
				imports[[2]string{from[0], to[0]}] = true
				graph[from[0]] = append(graph[from[0]], to[0])
			}
		}
	}
	// reaches reports whether b is reachable from a without the direct arrow skip.
	reaches := func(a, b string, skip [2]string) bool {
		seen := map[string]bool{}
		var stack []string
		for _, n := range graph[a] {
			if [2]string{a, n} != skip {
				stack = append(stack, n)
			}
		}
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if n == b {
				return true
			}
			if !seen[n] {
				seen[n] = true
				stack = append(stack, graph[n]...)
			}
		}
		return false
	}
	var want []string
	for e := range imports {
		if reaches(e[1], e[0], [2]string{}) {
			t.Errorf("the boxes %s and %s import each other (a cycle): the picture cannot be layered", e[0], e[1])
		}
		if !reaches(e[0], e[1], e) {
			want = append(want, e[0]+" --> "+e[1])
		}
	}
	sort.Strings(want)
	var got []string
	for e := range drawn {
		got = append(got, e[0]+" --> "+e[1])
	}
	sort.Strings(got)
	if !slices.Equal(got, want) {
		t.Errorf("the picture's arrows:\n\t%s\nthe import graph's (its transitive reduction):\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// TestDesignRuleTable: each row of DESIGN.md's "where each rule lives" table names a file that
// exists and a test (`TestName`) declared in that file's package directory.
func TestDesignRuleTable(t *testing.T) {
	doc := design(t)
	_, table, ok := strings.Cut(doc, "| rule | where | its fast test |")
	if !ok {
		t.Fatal(`DESIGN.md has no "| rule | where | its fast test |" table`)
	}
	n := 0
	for _, l := range strings.Split(table, "\n")[1:] {
		if !strings.HasPrefix(l, "|") {
			break
		}
		if strings.HasPrefix(l, "|---") {
			continue
		}
		cells := strings.Split(strings.Trim(l, "|"), "|")
		if len(cells) != 3 {
			t.Errorf("rule row %q: want | rule | `file` | `TestName` |", l)
			continue
		}
		file := strings.Trim(strings.TrimSpace(cells[1]), "`")
		if _, err := os.Stat(filepath.Join("..", file)); err != nil {
			t.Errorf("rule row %q: %v", l, err)
			continue
		}
		tests := regexp.MustCompile("`(Test[A-Za-z0-9_]+)`").FindAllStringSubmatch(cells[2], -1)
		if len(tests) == 0 {
			t.Errorf("rule row %q names no test", l)
		}
		srcs, _ := filepath.Glob(filepath.Join("..", filepath.Dir(file), "*_test.go"))
		var all strings.Builder
		for _, s := range srcs {
			b, err := os.ReadFile(s)
			if err != nil {
				t.Fatal(err)
			}
			all.Write(b)
		}
		for _, m := range tests {
			if !strings.Contains(all.String(), "\nfunc "+m[1]+"(t *testing.T)") {
				t.Errorf("rule row %q: no func %s in %s's tests", l, m[1], filepath.Dir(file))
			}
		}
		n++
	}
	if n < 4 {
		t.Errorf("the rule table has %d rows; it names at least a rule of the game, the lobby, the netcode and the hall", n)
	}
}
