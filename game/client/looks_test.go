//go:build display

package client

import (
	"sort"
	"strings"
	"testing"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/client/art"
)

// TestEveryKindHasItsLook: kindLooks and the atlas agree with the game's kinds. Every variant
// of every kind that has a look (game.KindInfo.Variants) has its animation, named by kindLooks
// and present in the atlas; every other variant, and every kind past game.NumKinds, has none
// (it is drawn as a grey box, never as another variant's sprite); the atlas holds no
// animation that no variant uses (art for a variant the game does not have), besides the
// client's own sprites; and a palette by variant has a colour for every variant.
func TestEveryKindHasItsLook(t *testing.T) {
	set := art.MustLoad()
	sp := newSprites()
	used := map[string]bool{"flame": true, "glow": true, "logo": true, "dot": true}
	for k := game.EntityKind(0); k <= game.NumKinds; k++ {
		ki, lk := k.Info(), lookOf(k)
		if lk.layer < 0 || lk.layer >= numLayers {
			t.Errorf("%v: layer %d", k, lk.layer)
		}
		for _, b := range lk.debris {
			if b.byVariant != nil && len(b.byVariant) < len(ki.Variants) {
				t.Errorf("%v: debris palette of %d colours for %d variants", k, len(b.byVariant), len(ki.Variants))
			}
		}
		for v := 0; v < 256; v++ {
			_, look := ki.Variant(uint8(v))
			look = look && k < game.NumKinds
			fr := sp.anim(k, uint8(v))
			if look != (fr != nil) {
				t.Errorf("%v variant %d: look %v, animation of %d frames", k, v, look, len(fr))
			}
			if !look {
				continue
			}
			name := lk.name(uint8(v))
			used[name] = true
			if len(set.Frames[name]) == 0 || len(fr) != len(set.Frames[name]) {
				t.Errorf("%v variant %d: atlas animation %q has %d frames, drawn with %d", k, v, name, len(set.Frames[name]), len(fr))
			}
		}
	}
	var unused []string
	for name := range set.Frames {
		if !used[name] && !strings.HasPrefix(name, "glyph/") {
			unused = append(unused, name)
		}
	}
	sort.Strings(unused)
	if len(unused) > 0 {
		t.Errorf("atlas animations no kind's variant uses: %v", unused)
	}
}
