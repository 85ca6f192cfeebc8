package game

// Terrain is a stage's solid ground: a ceiling and a floor given as heights sampled every Step px
// of world x, plus free-standing rectangular structures (Blocks). It is static in world
// coordinates and scrolls with the stage: the world x of a point at screen x sx is
// sx + Sim.Scroll(). Terrain is never replicated: clients build it from the stage data
// (docs/PROTOCOL.md §2, stage transfer) and the replicated scroll, so it costs no bandwidth.
//
// Between two samples the surface is a straight line (slopes); before Start and after the last
// sample there is no terrain (open space). Heights are px from the top (ceiling) or the bottom
// (floor) of the 1080 px playfield; 0 means no ceiling/floor there.
//
// Lookups are by column index (world x / Step): a query for a box spanning k columns costs
// O(k) samples plus the blocks registered in those columns, whatever the number of entities, so
// terrain is part of the broadphase and hundreds of bullets stay cheap (BenchmarkStep).
type Terrain struct {
	Theme  uint8     // art theme: ThemeBase (metal Bydo base) or ThemeOrganic (living cave)
	Start  float32   // world x (px) of sample 0
	Step   float32   // px of world x between samples (32..1024)
	Ceil   []float32 // ceiling height at each sample, px from the top (0: none)
	Floor  []float32 // floor height at each sample, px from the bottom (0: none)
	Blocks []Block   // free-standing structures

	cols [][]int32 // per column (world x / Step from Start): indices into Blocks overlapping it
}

// Block is a free-standing rectangular structure of the terrain, in world px: X is the left
// edge (world x), Y the top edge (screen y), W and H its size.
type Block struct{ X, Y, W, H float32 }

// Terrain themes (stage JSON "terrain.theme").
const (
	ThemeBase    uint8 = 0 // "base": metal plates and pipes of a Bydo base (stage 1)
	ThemeOrganic uint8 = 1 // "organic": living walls of flesh and bone (stage 2)
	ThemeWarship uint8 = 2 // "warship": the armoured hull of a Bydo warship (stage 3)
)

// ThemeNames are the stage JSON names of the themes, indexed by theme.
var ThemeNames = []string{"base", "organic", "warship"}

// Terrain limits checked at load (ParseStage).
const (
	minTerrainStep = 32
	maxTerrainStep = 1024
	maxTerrainLen  = 8192 // samples
	maxBlocks      = 512
	// MinCorridor is the narrowest free gap (px) between ceiling and floor at any sample: a
	// ship (36 px tall) must always be able to pass, with room to dodge.
	MinCorridor = 180
)

// Empty reports whether the terrain has no ceiling, floor or blocks at all.
func (t *Terrain) Empty() bool { return t == nil || (len(t.Ceil) == 0 && len(t.Blocks) == 0) }

// End is the world x (px) where the sampled terrain ends (Start for none).
func (t *Terrain) End() float32 {
	if len(t.Ceil) < 2 {
		return t.Start
	}
	return t.Start + float32(float32(len(t.Ceil)-1)*t.Step)
}

// sample returns the interpolated value of h at world x (0 outside the samples).
func (t *Terrain) sample(h []float32, wx float32) float32 {
	if len(h) < 2 || wx < t.Start {
		return 0
	}
	u := float32((wx - t.Start) / t.Step)
	i := int(u)
	if i >= len(h)-1 {
		if i == len(h)-1 && u == float32(i) {
			return h[i]
		}
		return 0
	}
	f := u - float32(i)
	a, b := h[i], h[i+1]
	return a + float32((b-a)*f)
}

// CeilY is the y (px from the top) of the ceiling's lower edge at world x wx: 0 where there is
// no ceiling.
func (t *Terrain) CeilY(wx float32) float32 {
	if t == nil {
		return 0
	}
	return t.sample(t.Ceil, wx)
}

// FloorY is the y (px from the top) of the floor's upper edge at world x wx: Height where
// there is no floor.
func (t *Terrain) FloorY(wx float32) float32 {
	if t == nil {
		return Height
	}
	return Height - t.sample(t.Floor, wx)
}

// Slope returns d(surface y)/d(world x) of the floor's edge (FloorY, floor true) or the
// ceiling's edge (CeilY) at world x wx: the slope of the straight segment wx lies on (0 outside
// the samples).
func (t *Terrain) Slope(wx float32, floor bool) float32 {
	if t == nil {
		return 0
	}
	h := t.Ceil
	sign := float32(1)
	if floor {
		h, sign = t.Floor, -1
	}
	if t == nil || len(h) < 2 || wx < t.Start {
		return 0
	}
	i := int((wx - t.Start) / t.Step)
	if i >= len(h)-1 {
		return 0
	}
	return sign * (h[i+1] - h[i]) / t.Step
}

// Span returns, over the world x range [wx0, wx1], the lowest ceiling edge (largest CeilY) and
// the highest floor edge (smallest FloorY): a box in that range is clear of ceiling and floor
// iff its top is below ceil and its bottom above floor.
func (t *Terrain) Span(wx0, wx1 float32) (ceil, floor float32) {
	floor = Height
	if t == nil || len(t.Ceil) < 2 {
		return 0, Height
	}
	ceil, floor = t.CeilY(wx0), t.FloorY(wx0)
	if c := t.CeilY(wx1); c > ceil {
		ceil = c
	}
	if f := t.FloorY(wx1); f < floor {
		floor = f
	}
	// Interior samples (the extremes of a polyline are at its vertices).
	i0 := int((wx0-t.Start)/t.Step) + 1
	if wx0 < t.Start {
		i0 = 0
	}
	for i := i0; i < len(t.Ceil); i++ {
		x := t.Start + float32(float32(i)*t.Step)
		if x >= wx1 {
			break
		}
		if x <= wx0 {
			continue
		}
		if c := t.Ceil[i]; c > ceil {
			ceil = c
		}
		if f := Height - t.Floor[i]; f < floor {
			floor = f
		}
	}
	return ceil, floor
}

// Hit is which part of the terrain a box touches (Terrain.Touch).
type Hit uint8

// Terrain hits.
const (
	HitNone  Hit = 0
	HitCeil  Hit = 1 // the ceiling (the box's top is above the ceiling's edge)
	HitFloor Hit = 2 // the floor
	HitBlock Hit = 3 // a free-standing structure
)

// Touch reports which part of the terrain the box (world x wx0..wx1, screen y y0..y1) overlaps,
// if any: the ceiling first, then the floor, then blocks.
func (t *Terrain) Touch(wx0, y0, wx1, y1 float32) Hit {
	if t == nil {
		return HitNone
	}
	if len(t.Ceil) >= 2 && wx1 > t.Start && wx0 < t.End() {
		ceil, floor := t.Span(wx0, wx1)
		if y0 < ceil {
			return HitCeil
		}
		if y1 > floor {
			return HitFloor
		}
	}
	if t.BlockAt(wx0, y0, wx1, y1) >= 0 {
		return HitBlock
	}
	return HitNone
}

// Overlaps reports whether the box (world x wx0..wx1, screen y y0..y1) touches any terrain.
func (t *Terrain) Overlaps(wx0, y0, wx1, y1 float32) bool {
	return t.Touch(wx0, y0, wx1, y1) != HitNone
}

// BlockAt returns the index in Blocks of the first block overlapping the box, or -1.
func (t *Terrain) BlockAt(wx0, y0, wx1, y1 float32) int {
	if t == nil || len(t.cols) == 0 {
		return -1
	}
	c0, c1 := t.colRange(wx0, wx1)
	for c := c0; c <= c1; c++ {
		for _, bi := range t.cols[c] {
			b := &t.Blocks[bi]
			if wx0 < b.X+b.W && b.X < wx1 && y0 < b.Y+b.H && b.Y < y1 {
				return int(bi)
			}
		}
	}
	return -1
}

// colRange is the range of block columns (clamped) that world x wx0..wx1 spans.
func (t *Terrain) colRange(wx0, wx1 float32) (int, int) {
	n := len(t.cols)
	c0 := int((wx0 - t.Start) / t.Step)
	c1 := int((wx1 - t.Start) / t.Step)
	if wx0 < t.Start {
		c0 = 0
	}
	if wx1 < t.Start {
		c1 = 0
	}
	return min(max(c0, 0), n-1), min(max(c1, 0), n-1)
}

// index builds the per-column block lists (called once by ParseStage/sanitize).
func (t *Terrain) index() {
	t.cols = nil
	if len(t.Blocks) == 0 || t.Step <= 0 {
		return
	}
	end := t.Start
	for _, b := range t.Blocks {
		end = max(end, b.X+b.W)
	}
	n := int((end-t.Start)/t.Step) + 1
	t.cols = make([][]int32, n)
	for i, b := range t.Blocks {
		c0, c1 := t.colRange(b.X, b.X+b.W)
		for c := c0; c <= c1; c++ {
			t.cols[c] = append(t.cols[c], int32(i))
		}
	}
}

// Corridor returns the free vertical range at world x range wx0..wx1 between the ceiling and
// the floor (blocks ignored): the y of the ceiling's edge and of the floor's edge.
func (t *Terrain) Corridor(wx0, wx1 float32) (top, bottom float32) { return t.Span(wx0, wx1) }

// terrainBox tests a screen-space box of an entity against the terrain at the given scroll.
func (t *Terrain) terrainBox(b aabb, scroll float32) Hit {
	return t.Touch(b.minX+scroll, b.minY, b.maxX+scroll, b.maxY)
}
