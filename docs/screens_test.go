package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDesignScreens: DESIGN.md's "Adding a screen" holds. Every scene (the scene.ID constants
// before NumScenes) is registered once in package scene and once in game/client, each from the
// init of a file that declares the screen type it registers and no other type (no central list
// of screens to edit); the files the section names exist.
func TestDesignScreens(t *testing.T) {
	trackSources(t)
	doc := design(t)
	_, sec, ok := strings.Cut(doc, "\n## Adding a screen\n")
	if !ok {
		t.Fatal(`DESIGN.md has no "## Adding a screen" section`)
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	for _, p := range regexp.MustCompile(`game/client[a-z/]*/[a-z_]+\.go`).FindAllString(sec, -1) {
		if _, err := os.Stat(filepath.Join("..", p)); err != nil {
			t.Errorf("Adding a screen names %s: %v", p, err)
		}
	}
	ids := sceneIDs(t, parseFiles(t, "../game/client/scene"))
	if len(ids) < 10 {
		t.Fatalf("found %d scenes before NumScenes in package scene: %v", len(ids), ids)
	}
	for _, dir := range []string{"../game/client/scene", "../game/client"} {
		files := parseFiles(t, dir)
		var keys []string
		for name, f := range files {
			for _, r := range registrations(f) {
				keys = append(keys, r.id)
				if types := typeNames(f); !slices.Equal(types, []string{r.typ}) {
					t.Errorf("%s registers %s for %s but declares the types %v, want only %s", name, r.typ, r.id, types, r.typ)
				}
			}
		}
		slices.Sort(keys)
		want := slices.Clone(ids)
		slices.Sort(want)
		if !slices.Equal(keys, want) {
			t.Errorf("%s: register is called for %v, want every scene once: %v", dir, keys, want)
		}
	}
}

// registration is one register(ID, …, T{}) call in a file's init.
type registration struct{ id, typ string }

// registrations are the register calls in the init functions of f: the scene (its constant's
// name) and the screen type (the T{} among the arguments).
func registrations(f *ast.File) []registration {
	var out []registration
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "init" || fn.Recv != nil {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) < 2 {
				return true
			}
			if id, ok := call.Fun.(*ast.Ident); !ok || id.Name != "register" {
				return true
			}
			r := registration{typ: screenType(call.Args[len(call.Args)-1])}
			switch k := call.Args[0].(type) {
			case *ast.Ident:
				r.id = k.Name
			case *ast.SelectorExpr:
				r.id = k.Sel.Name
			}
			out = append(out, r)
			return true
		})
	}
	return out
}

// parseFiles parses the non-test Go files of dir, by file name.
func parseFiles(t *testing.T, dir string) map[string]*ast.File {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*ast.File{}
	fset := token.NewFileSet()
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		out[n] = f
	}
	return out
}

// sceneIDs returns the names of the constants declared before NumScenes in its const block.
func sceneIDs(t *testing.T, files map[string]*ast.File) []string {
	t.Helper()
	for _, f := range files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			var names []string
			for _, s := range g.Specs {
				for _, n := range s.(*ast.ValueSpec).Names {
					if n.Name == "NumScenes" {
						return names
					}
					names = append(names, n.Name)
				}
			}
		}
	}
	t.Fatal("package scene declares no NumScenes")
	return nil
}

// screenType is the type of T{} in e.
func screenType(e ast.Expr) string {
	lit, ok := e.(*ast.CompositeLit)
	if !ok {
		return ""
	}
	if id, ok := lit.Type.(*ast.Ident); ok {
		return id.Name
	}
	for _, el := range lit.Elts {
		if s := screenType(el); s != "" {
			return s
		}
	}
	return ""
}

// typeNames are the types f declares at top level.
func typeNames(f *ast.File) []string {
	var out []string
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
			for _, s := range g.Specs {
				out = append(out, s.(*ast.TypeSpec).Name.Name)
			}
		}
	}
	return out
}
