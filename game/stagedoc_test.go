package game

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The stage file format of docs/PROTOCOL.md section 10 is checked against the parser: the key
// table lists exactly the keys of stageJSON with their JSON types, a key is required exactly
// when leaving it out of the document's example makes ParseStage fail on that key, a literal
// default parses as leaving the key out, the example parses, and the kinds' figures are those
// a wave without speed, hp and fire gets.

type stageDocRow struct{ key, typ, required, def, limits string }

// stageDoc returns section 10 of docs/PROTOCOL.md.
func stageDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../docs/PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i := strings.Index(doc, "\n## 10. Stage files\n")
	if i < 0 {
		t.Fatal("docs/PROTOCOL.md has no section 10. Stage files")
	}
	sec := doc[i+1:]
	if j := strings.Index(sec[3:], "\n## "); j >= 0 {
		sec = sec[:j+3]
	}
	return sec
}

func cells(line string) []string {
	c := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
	for i := range c {
		c[i] = strings.TrimSpace(c[i])
	}
	return c
}

// stageDocRows parses the key table: | `key` | type | required | default | unit | limits |.
func stageDocRows(t *testing.T, sec string) []stageDocRow {
	t.Helper()
	var rows []stageDocRow
	key := regexp.MustCompile("^`([a-zA-Z.\\[\\]]+)`$")
	for _, l := range strings.Split(sec, "\n") {
		c := cells(l)
		if !strings.HasPrefix(l, "| `") || len(c) != 6 {
			continue
		}
		m := key.FindStringSubmatch(c[0])
		if m == nil {
			continue // the kinds' table
		}
		rows = append(rows, stageDocRow{key: m[1], typ: c[1], required: c[2], def: c[3], limits: c[5]})
	}
	if len(rows) == 0 {
		t.Fatal("no key table in section 10")
	}
	return rows
}

// parserKeys walks the JSON shape the parser decodes (stageJSON) and returns every key path
// with its JSON type in the table's words.
func parserKeys(prefix string, typ reflect.Type, out map[string]string) {
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		path := prefix + name
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch ft.Kind() {
		case reflect.String:
			out[path] = "string"
		case reflect.Int:
			out[path] = "integer"
		case reflect.Float64:
			out[path] = "number"
		case reflect.Struct:
			out[path] = "object"
			parserKeys(path+".", ft, out)
		case reflect.Slice:
			switch ft.Elem().Kind() {
			case reflect.Struct:
				out[path] = "array of objects"
				parserKeys(path+"[].", ft.Elem(), out)
			case reflect.Float64:
				out[path] = "array of numbers"
			default:
				out[path] = "array of " + ft.Elem().Kind().String()
			}
		default:
			out[path] = ft.Kind().String()
		}
	}
}

// stageDocExample returns the ```json stage-example block of section 10.
func stageDocExample(t *testing.T, sec string) []byte {
	t.Helper()
	m := regexp.MustCompile("(?ms)^```json stage-example\n(.*?)^```").FindStringSubmatch(sec)
	if m == nil {
		t.Fatal("section 10 has no ```json stage-example block")
	}
	return []byte(m[1])
}

// exampleKeys lists the key paths of a decoded JSON value (arrays as []).
func exampleKeys(prefix string, v any, out map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		if prefix != "" {
			prefix += "."
		}
		for k, x := range v {
			out[prefix+k] = true
			exampleKeys(prefix+k, x, out)
		}
	case []any:
		for _, x := range v {
			exampleKeys(prefix+"[]", x, out)
		}
	}
}

// findKey returns the object holding the first occurrence of the key path parts in v (arrays'
// elements in order) and that occurrence's concrete path ("waves[1].ground").
func findKey(v any, parts []string, at string) (map[string]any, string) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, ""
	}
	name, arr := strings.CutSuffix(parts[0], "[]")
	x, ok := m[name]
	switch {
	case !ok:
		return nil, ""
	case len(parts) == 1:
		return m, at + name
	case !arr:
		return findKey(x, parts[1:], at+name+".")
	}
	xs, _ := x.([]any)
	for i, e := range xs {
		if o, c := findKey(e, parts[1:], at+name+"["+strconv.Itoa(i)+"]."); o != nil {
			return o, c
		}
	}
	return nil, ""
}

// withKey returns a copy of the JSON document with the first occurrence of path (a table key)
// set to val, or removed when remove is set, and that occurrence's concrete path.
func withKey(t *testing.T, doc []byte, path string, val any, remove bool) (data []byte, concrete string) {
	t.Helper()
	var root any
	if err := json.Unmarshal(doc, &root); err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(path, ".")
	obj, concrete := findKey(root, parts, "")
	if obj == nil {
		t.Fatalf("the example has no %s", path)
	}
	last, _ := strings.CutSuffix(parts[len(parts)-1], "[]")
	if remove {
		delete(obj, last)
	} else {
		obj[last] = val
	}
	b, err := json.Marshal(root)
	if err != nil {
		t.Fatal(err)
	}
	return b, concrete
}

// sameStage compares what two files made of a stage (not which bytes they were).
func sameStage(a, b *Stage) bool {
	return reflect.DeepEqual([]any{a.Name, a.ScrollSpeed, a.Sections, a.Waves, a.Boss, a.Terrain, a.Enemies()},
		[]any{b.Name, b.ScrollSpeed, b.Sections, b.Waves, b.Boss, b.Terrain, b.Enemies()})
}

func TestStageDocExample(t *testing.T) {
	sec := stageDoc(t)
	rows := stageDocRows(t, sec)
	example := stageDocExample(t, sec)
	if _, err := ParseStage("example", example); err != nil {
		t.Fatalf("the example of section 10 does not parse: %v", err)
	}

	// The table lists exactly the parser's keys, with their types.
	want := map[string]string{}
	parserKeys("", reflect.TypeOf(stageJSON{}), want)
	listed := map[string]bool{}
	for _, r := range rows {
		listed[r.key] = true
		switch typ, ok := want[r.key]; {
		case !ok:
			t.Errorf("the table lists %s, which the parser does not read", r.key)
		case typ != r.typ:
			t.Errorf("%s: the table says %s, the parser reads %s", r.key, r.typ, typ)
		}
	}
	for k := range want {
		if !listed[k] {
			t.Errorf("the parser reads %s, which the table does not list", k)
		}
	}

	// The example shows every key.
	var root any
	if err := json.Unmarshal(example, &root); err != nil {
		t.Fatal(err)
	}
	shown := map[string]bool{}
	exampleKeys("", root, shown)
	var missing []string
	for _, r := range rows {
		if !shown[r.key] {
			missing = append(missing, r.key)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("the example does not show %v", missing)
	}

	for _, r := range rows {
		if !shown[r.key] {
			continue
		}
		// Required: leaving the key out fails on that key; optional: it parses. A key required
		// "with `other`" fails alone and parses when other goes too.
		data, concrete := withKey(t, example, r.key, nil, true)
		_, err := ParseStage("example", data)
		var se *StageError
		switch {
		case r.required == "yes":
			if !errors.As(err, &se) || !strings.HasPrefix(se.Field, concrete) {
				t.Errorf("%s is required, but the example without %s gives %v", r.key, concrete, err)
			}
		case r.required == "no":
			if err != nil {
				t.Errorf("%s is optional, but the example without it gives %v", r.key, err)
			}
		case strings.HasPrefix(r.required, "with `"):
			other := strings.TrimSuffix(strings.TrimPrefix(r.required, "with `"), "`")
			if err == nil {
				t.Errorf("%s alone may be left out of the example, the table says %q", r.key, r.required)
			}
			both, _ := withKey(t, data, other, nil, true)
			if _, err := ParseStage("example", both); err != nil {
				t.Errorf("the example without %s and %s gives %v", r.key, other, err)
			}
		default:
			t.Errorf("%s: required %q: want yes, no or with `key`", r.key, r.required)
		}
		// A literal default (`value`) parses as leaving the key out.
		if lit, ok := strings.CutPrefix(r.def, "`"); ok && r.required == "no" {
			var v any
			if err := json.Unmarshal([]byte(strings.TrimSuffix(lit, "`")), &v); err != nil {
				t.Errorf("%s: default %s is not a JSON value", r.key, r.def)
				continue
			}
			set, _ := withKey(t, example, r.key, v, false)
			a, err1 := ParseStage("example", set)
			b, err2 := ParseStage("example", data)
			if err1 != nil || err2 != nil || !sameStage(a, b) {
				t.Errorf("%s: the default %s does not parse as the key left out (%v, %v)", r.key, r.def, err1, err2)
			}
		}
	}

	// Ranges: a number or integer whose limits start "lo..hi" is refused just outside them, on
	// that key, and accepted at them (other rules of its row may still refuse it there, but not
	// as out of range).
	rangeRE := regexp.MustCompile(`^(−?[0-9]+)\.\.([0-9]+)`)
	isRange := func(err error, concrete string) bool {
		var se *StageError
		return errors.As(err, &se) && se.Field == concrete &&
			(strings.Contains(se.Reason, "out of range") || strings.Contains(se.Reason, "is negative"))
	}
	for _, r := range rows {
		m := rangeRE.FindStringSubmatch(r.limits)
		if m == nil || (r.typ != "number" && r.typ != "integer") {
			continue
		}
		lo, _ := strconv.Atoi(strings.Replace(m[1], "−", "-", 1))
		hi, _ := strconv.Atoi(m[2])
		for _, c := range []struct {
			v  int
			ok bool
		}{{lo, true}, {hi, true}, {lo - 1, false}, {hi + 1, false}} {
			data, concrete := withKey(t, example, r.key, c.v, false)
			_, err := ParseStage("example", data)
			if got := isRange(err, concrete); got == c.ok {
				t.Errorf("%s = %d (limits %s..%s): %v", concrete, c.v, m[1], m[2], err)
			}
		}
	}

	// The kinds' figures: a wave with neither speed, hp nor fire.
	n := 0
	for _, l := range strings.Split(sec, "\n") {
		c := cells(l)
		kind, ok := strings.CutPrefix(c[0], "`")
		if !strings.HasPrefix(l, "| `") || len(c) != 4 || !ok {
			continue
		}
		kind = strings.TrimSuffix(kind, "`")
		n++
		file := `{"scrollSpeed":100,"sections":[{"at":0,"song":0}],"waves":[{"at":0,"kind":"` + kind + `","count":1,"y":1000}],
			"boss":{"at":10,"kind":"small","hp":1,"song":0,"phases":[{"below":100,"pattern":"fan","interval":1,"bullets":1,"speed":30,"open":1,"closed":0}]}}`
		st, err := ParseStage(kind, []byte(file))
		if err != nil {
			t.Errorf("kind %s: %v", kind, err)
			continue
		}
		w := st.Waves[0]
		got := []string{strconv.FormatFloat(float64(w.Speed), 'g', -1, 32), strconv.Itoa(w.HP), strconv.Itoa(w.Fire)}
		if !reflect.DeepEqual(got, c[1:]) {
			t.Errorf("kind %s: speed, hp, fire %v, the table says %v", kind, got, c[1:])
		}
	}
	if n != len(EnemyKindNames)-1 { // snake-body is not a wave kind
		t.Errorf("the kinds' table has %d rows, want %d", n, len(EnemyKindNames)-1)
	}
}
