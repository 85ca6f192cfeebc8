package client

import (
	"image"
	"math"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"github.com/rtype/rtype/game"
)

// Menus at rest. A player may leave the client open on the title screen or in a lobby room for
// a long time; a software renderer pays for every frame presented (a frame of the title costs
// about as much as a frame of the game), so the menus present frames only while something
// moves:
//
//   - the menus' animations (the drifting, twinkling backdrop, the title's formation, the text
//     caret, the busy spinner) run on their own clock (menuClock), which runs for menuAwake
//     after the last key or button press or scene change, and while the client is busy
//     (connecting); then it stops and the picture rests;
//   - while the animations run, frames are presented at most every menuFrame (a software
//     renderer under Xvfb does not wait for a vertical blank);
//   - at rest a frame is presented only when the picture changes (a chat line, a member
//     joining, a menu key): every Update tick the menu frame is drawn onto a keySurface, which
//     only hashes the draw calls, and Draw leaves ebiten's offscreen untouched while the hash
//     stays the same, so ebiten stops presenting (it keeps the last frame on the window and
//     sleeps until the next tick).
//
// The game itself (scene Playing, Watching) presents every frame.

const (
	// menuAwake is how long the menus animate after the last input or scene change.
	menuAwake = 5 * game.TickRate
	// menuFrame is the shortest time between two presented frames of animated menus (30 per
	// second: the menus' pixel-art animations step at 20 Hz or slower).
	menuFrame = time.Second / 30
)

// restState is the menus' animation clock and the key of the picture last presented.
type restState struct {
	clock     int       // the menus' animation clock (ticks), stopped at rest
	lastInput int       // frameN of the last key or button press or scene change
	presented time.Time // when the last animated menu frame was drawn
	key       uint64    // hash of the last picture presented at rest (keyOK: one was)
	keyOK     bool
	keys      []ebiten.Key
	pads      []ebiten.GamepadID
	buttons   []ebiten.GamepadButton
	hash      keySurface
}

// inMenus reports whether the frame is a menu frame (no game drawn).
func (a *app) inMenus() bool {
	return !(isGame(screenOf(a.m.Scene)) && a.link != nil)
}

// noteInput records a key or gamepad button press (Update, every tick).
func (a *app) noteInput() {
	r := &a.rest
	r.keys = inpututil.AppendJustPressedKeys(r.keys[:0])
	pressed := len(r.keys) > 0
	r.pads = ebiten.AppendGamepadIDs(r.pads[:0])
	for _, id := range r.pads {
		if r.buttons = inpututil.AppendJustPressedGamepadButtons(id, r.buttons[:0]); len(r.buttons) > 0 {
			pressed = true
		}
	}
	if pressed {
		r.lastInput = a.frameN
	}
}

// menuAnimating reports whether the menus' animations run (see restState).
func (a *app) menuAnimating() bool {
	return a.m.Busy != "" || a.frameN-a.rest.lastInput < menuAwake
}

// clock is the frame count animations are drawn at: frameN in the game, the menus' own clock
// (stopped at rest) in the menus.
func (a *app) clock() int {
	if a.inMenus() {
		return a.rest.clock
	}
	return a.frameN
}

// caretOn reports whether a text field's caret is drawn: it blinks at 1 Hz, and shows steadily
// at rest.
func (a *app) caretOn() bool {
	return (a.inMenus() && !a.menuAnimating()) || (a.clock()/30)%2 == 0
}

// menuPresent decides whether Draw presents the menu frame on a screen of bounds b: while the
// menus animate, yes, at most every menuFrame (it waits for that); at rest, only when the
// picture differs from the last one presented.
func (a *app) menuPresent(b image.Rectangle) bool {
	r := &a.rest
	if a.menuAnimating() {
		if d := menuFrame - time.Since(r.presented); d > 0 {
			time.Sleep(d)
		}
		r.presented, r.keyOK = time.Now(), false
		return true
	}
	h := &r.hash
	h.reset(b)
	a.drawFrame(h, h)
	if r.keyOK && h.sum == r.key {
		return false
	}
	r.key, r.keyOK = h.sum, true
	return true
}

// keySurface draws nothing: it folds every draw call it gets (the images and programs by
// identity, geometry, colours, blend, vertices) into a 64-bit hash, sum. Two frames
// with the same sum are drawn by the same calls: the same picture.
type keySurface struct {
	b   image.Rectangle
	sum uint64
	ids map[any]uint64 // *ebiten.Image, *ebiten.Shader → a number, given on first sight
}

func (k *keySurface) reset(b image.Rectangle) {
	k.b, k.sum = b, 0x243f6a8885a308d3
	if k.ids == nil {
		k.ids = map[any]uint64{}
	}
	k.word(uint64(b.Dx())<<32 | uint64(b.Dy()))
}

// word folds w into sum (a multiply-xorshift step per 64-bit word).
func (k *keySurface) word(w uint64) {
	h := (k.sum ^ w) * 0x9e3779b97f4a7c15
	k.sum = h ^ h>>29
}

func (k *keySurface) f32(x float32) { k.word(uint64(math.Float32bits(x))) }
func (k *keySurface) f64(x float64) { k.word(math.Float64bits(x)) }

func (k *keySurface) id(v any) {
	if v == nil {
		k.word(0)
		return
	}
	n, ok := k.ids[v]
	if !ok {
		n = uint64(len(k.ids) + 1)
		k.ids[v] = n
	}
	k.word(n)
}

func (k *keySurface) image(img *ebiten.Image) {
	if img == nil {
		k.word(0)
		return
	}
	k.id(img)
}

func (k *keySurface) geoM(g *ebiten.GeoM) {
	for i := 0; i < 2; i++ {
		for j := 0; j < 3; j++ {
			k.f64(g.Element(i, j))
		}
	}
}

func (k *keySurface) colorScale(c *ebiten.ColorScale) {
	k.f32(c.R())
	k.f32(c.G())
	k.f32(c.B())
	k.f32(c.A())
}

func (k *keySurface) blend(b ebiten.Blend) {
	k.word(uint64(b.BlendFactorSourceRGB) | uint64(b.BlendFactorSourceAlpha)<<8 | uint64(b.BlendFactorDestinationRGB)<<16 |
		uint64(b.BlendFactorDestinationAlpha)<<24 | uint64(b.BlendOperationRGB)<<32 | uint64(b.BlendOperationAlpha)<<40)
}

func (k *keySurface) mesh(v []ebiten.Vertex, i []uint16) {
	k.word(uint64(len(v))<<32 | uint64(len(i)))
	for n := range v {
		x := &v[n]
		k.word(uint64(math.Float32bits(x.DstX))<<32 | uint64(math.Float32bits(x.DstY)))
		k.word(uint64(math.Float32bits(x.SrcX))<<32 | uint64(math.Float32bits(x.SrcY)))
		k.word(uint64(math.Float32bits(x.ColorR))<<32 | uint64(math.Float32bits(x.ColorG)))
		k.word(uint64(math.Float32bits(x.ColorB))<<32 | uint64(math.Float32bits(x.ColorA)))
	}
	for _, n := range i {
		k.word(uint64(n))
	}
}

func (k *keySurface) Bounds() image.Rectangle { return k.b }

func (k *keySurface) DrawImage(img *ebiten.Image, op *ebiten.DrawImageOptions) {
	k.word(1)
	k.image(img)
	k.geoM(&op.GeoM)
	k.colorScale(&op.ColorScale)
	k.blend(op.Blend)
	k.word(uint64(op.Filter))
}

func (k *keySurface) DrawTriangles(v []ebiten.Vertex, i []uint16, img *ebiten.Image, op *ebiten.DrawTrianglesOptions) {
	k.word(2)
	k.image(img)
	k.mesh(v, i)
	k.blend(op.Blend)
	k.word(uint64(op.Filter)<<16 | uint64(op.Address)<<8 | uint64(op.ColorScaleMode))
}

func (k *keySurface) DrawRectShader(w, h int, sh *ebiten.Shader, op *ebiten.DrawRectShaderOptions) {
	k.word(3)
	k.word(uint64(w)<<32 | uint64(h))
	k.id(sh)
	for _, img := range op.Images {
		k.image(img)
	}
	k.geoM(&op.GeoM)
	k.colorScale(&op.ColorScale)
	k.blend(op.Blend)
}

func (k *keySurface) DrawTrianglesShader(v []ebiten.Vertex, i []uint16, sh *ebiten.Shader, op *ebiten.DrawTrianglesShaderOptions) {
	k.word(4)
	k.id(sh)
	for _, img := range op.Images {
		k.image(img)
	}
	k.mesh(v, i)
	k.blend(op.Blend)
}
