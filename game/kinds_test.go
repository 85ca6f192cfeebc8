package game

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rtype/rtype/game/rules"
)

// TestKindTable: every kind has an entry with its own name, and what the entries say agrees
// with itself: a kind collides one way at most, whatever collides or is drawn has sizes, only
// ground enemies are Ground, only explosions have a Life.
func TestKindTable(t *testing.T) {
	names := map[string]EntityKind{}
	for k := EntityKind(0); k < NumKinds; k++ {
		ki := k.Info()
		if ki.Name == "" || k.String() != ki.Name {
			t.Errorf("kind %d: name %q, String %q", k, ki.Name, k.String())
		}
		if o, dup := names[ki.Name]; dup {
			t.Errorf("kinds %d and %d are both %q", o, k, ki.Name)
		}
		names[ki.Name] = k
		if ki.target != 0 && ki.probe != probeNone {
			t.Errorf("%v is both a target and a probe", k)
		}
		looks := 0
		for v := range ki.Variants {
			vi, ok := ki.Variant(uint8(v))
			if ok {
				looks++
			}
			if vi.Ground != (k == KindEnemy && isGround(uint8(v))) {
				t.Errorf("%v variant %d: Ground %v", k, v, vi.Ground)
			}
			if (vi.Life != 0) != (k == KindExplosion) {
				t.Errorf("%v variant %d: Life %d", k, v, vi.Life)
			}
		}
		if drawn := k != KindNone && k != KindStage; drawn != (looks > 0) {
			t.Errorf("%v: %d variants with a look", k, looks)
		}
	}
	if KindInfo := EntityKind(NumKinds).Info(); KindInfo != KindNone.Info() || EntityKind(200).String() != "kind(200)" {
		t.Error("a kind past NumKinds is not KindNone's")
	}
	if _, ok := KindPlayer.Info().Variant(rules.MaxPlayers); ok {
		t.Error("a ship variant past the last slot has a look")
	}
}

// TestSizesAreTheProtocolTable: SizeOf gives exactly the sizes of docs/PROTOCOL.md §4.1 for
// every kind and variant (clients that follow the document derive the hitboxes the server
// collides with), and 0×0 for every (kind, variant) the table does not list ("Any other (kind,
// variant) has no size").
func TestSizesAreTheProtocolTable(t *testing.T) {
	b, err := os.ReadFile("../docs/PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i := strings.Index(doc, "\n### 4.1 Sizes follow from Kind\n")
	if i < 0 {
		t.Fatal("docs/PROTOCOL.md has no section 4.1 Sizes follow from Kind")
	}
	sec := doc[i+1:]
	sec = sec[:strings.Index(sec[4:], "\n#")+4]

	row := regexp.MustCompile(`^\| (\d+) [^|]+\| ([^|]+) \| ([^|]+) \|$`)
	paren := regexp.MustCompile(`\([^)]*\)`)
	rng := regexp.MustCompile(`(?:^|[ ,:])(\d+)(?:\.\.(\d+))?\b`)
	level := regexp.MustCompile(`level \d+\.\.\d+`)
	size := regexp.MustCompile(`(\d+) × (\d+)`)
	want := map[Kind]Size{}
	listed := map[int]bool{}
	for _, l := range strings.Split(sec, "\n") {
		m := row.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		kind, _ := strconv.Atoi(m[1])
		listed[kind] = true
		// the variants: the numbers and ranges of the column, without its remarks in brackets
		// and, where it lists variants besides, the levels they are of
		col := paren.ReplaceAllString(m[2], "")
		if other := level.ReplaceAllString(col, ""); rng.MatchString(other) {
			col = other
		}
		var variants []uint8
		for _, r := range rng.FindAllStringSubmatch(col, -1) {
			lo, _ := strconv.Atoi(r[1])
			hi := lo
			if r[2] != "" {
				hi, _ = strconv.Atoi(r[2])
			}
			for v := lo; v <= hi; v++ {
				variants = append(variants, uint8(v))
			}
		}
		var sizes []Size
		for _, s := range size.FindAllStringSubmatch(m[3], -1) {
			w, _ := strconv.Atoi(s[1])
			h, _ := strconv.Atoi(s[2])
			sizes = append(sizes, Size{uint16(w), uint16(h)})
		}
		switch {
		case strings.HasPrefix(m[3], "none"):
			continue
		case strings.HasPrefix(m[3], "as yellow of the same level"): // the crawling lasers
			for j := range variants {
				sizes = append(sizes, want[Kind{KindPlayerBullet, LaserShot(LaserYellow, uint8(j%3+1))}])
			}
		case len(sizes) == 1:
			for range variants[1:] {
				sizes = append(sizes, sizes[0])
			}
		}
		if len(sizes) != len(variants) || len(variants) == 0 {
			t.Fatalf("§4.1 row %q: %d variants, %d sizes", l, len(variants), len(sizes))
		}
		for j, v := range variants {
			want[Kind{EntityKind(kind), v}] = sizes[j]
		}
	}
	if len(listed) != NumKinds-1 {
		t.Errorf("§4.1 lists %d kinds, the game has %d (without none)", len(listed), NumKinds-1)
	}
	for k := 0; k < 256; k++ {
		for v := 0; v < 256; v++ {
			kv := Kind{EntityKind(k), uint8(v)}
			if got := SizeOf(kv); got != want[kv] {
				t.Errorf("SizeOf(%v variant %d) = %v, §4.1 says %v", kv.Kind, v, got, want[kv])
			}
		}
	}
}
