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
// before NumScenes) has one line in package scene's screens and one in game/client's, each
// naming a screen type that is declared in a file of its own declaring no other type; the
// files the section names exist.
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
		table := screensTable(t, files)
		var keys []string
		for id, typ := range table {
			keys = append(keys, id)
			var in []string // the files declaring typ
			for name, f := range files {
				types := typeNames(f)
				if slices.Contains(types, typ) {
					in = append(in, name)
					if len(types) != 1 {
						t.Errorf("%s: screen %s shares its file with the types %v", name, typ, types)
					}
				}
			}
			if len(in) != 1 {
				t.Errorf("%s: screen %s of %s is declared in %v, want one file", dir, typ, id, in)
			}
		}
		slices.Sort(keys)
		want := slices.Clone(ids)
		slices.Sort(want)
		if !slices.Equal(keys, want) {
			t.Errorf("%s: screens lists %v, want every scene once: %v", dir, keys, want)
		}
	}
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

// screensTable returns the entries of the package's var screens: the scene (its constant's
// name) → the screen type of its line (T{} or {"name", T{}}).
func screensTable(t *testing.T, files map[string]*ast.File) map[string]string {
	t.Helper()
	for _, f := range files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				if len(vs.Names) != 1 || vs.Names[0].Name != "screens" || len(vs.Values) != 1 {
					continue
				}
				lit, ok := vs.Values[0].(*ast.CompositeLit)
				if !ok {
					t.Fatal("screens is not a composite literal")
				}
				out := map[string]string{}
				for _, e := range lit.Elts {
					kv, ok := e.(*ast.KeyValueExpr)
					if !ok {
						t.Fatal("an entry of screens has no key: list each screen by its scene")
					}
					key := ""
					switch k := kv.Key.(type) {
					case *ast.Ident:
						key = k.Name
					case *ast.SelectorExpr:
						key = k.Sel.Name
					}
					if _, dup := out[key]; dup {
						t.Errorf("screens lists %s twice", key)
					}
					out[key] = screenType(kv.Value)
				}
				return out
			}
		}
	}
	t.Fatal("no var screens")
	return nil
}

// screenType is the type of T{} in e, or of the T{} among the elements of {…, T{}}.
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
