// Package vpad is a virtual gamepad for tests: a Linux uinput device that looks, to the kernel's
// evdev and so to ebiten, like an Xbox 360 pad, a DualShock 4 or a Steam Deck (their USB ids,
// names, buttons and axes as their kernel drivers report them), and that a test presses button
// by button. Where /dev/uinput cannot be opened (no uinput module, a sandbox, another OS) Open
// says why, and the test skips with that reason.
//
// The profiles also say how SDL's game controller database, which ebiten uses on Linux, maps
// each of them: SDLID is the id ebiten computes from the device, and Index the b/a/h number a
// mapping line gives a button or axis (pad_test checks the defaults against ebiten's database).
package vpad

import (
	"fmt"
	"sort"
)

// Linux input event types and codes (linux/input-event-codes.h) the profiles use.
const (
	EvSyn = 0x00
	EvKey = 0x01
	EvAbs = 0x03

	SynReport = 0

	BtnMisc   = 0x100
	BtnSouth  = 0x130 // BTN_A
	BtnEast   = 0x131 // BTN_B
	BtnNorth  = 0x133 // BTN_X (an Xbox pad's X; a PlayStation pad's triangle)
	BtnWest   = 0x134 // BTN_Y (an Xbox pad's Y; a PlayStation pad's square)
	BtnTL     = 0x136
	BtnTR     = 0x137
	BtnTL2    = 0x138
	BtnTR2    = 0x139
	BtnSelect = 0x13a
	BtnStart  = 0x13b
	BtnMode   = 0x13c
	BtnThumbL = 0x13d
	BtnThumbR = 0x13e

	BtnDpadUp    = 0x220
	BtnDpadDown  = 0x221
	BtnDpadLeft  = 0x222
	BtnDpadRight = 0x223

	BtnTriggerHappy1 = 0x2c0

	AbsX     = 0x00
	AbsY     = 0x01
	AbsZ     = 0x02
	AbsRX    = 0x03
	AbsRY    = 0x04
	AbsRZ    = 0x05
	AbsHat0X = 0x10
	AbsHat0Y = 0x11
	AbsHat1X = 0x12
	AbsHat1Y = 0x13
	AbsHat2X = 0x14
	AbsHat2Y = 0x15
	AbsHat3Y = 0x17

	BusUSB = 0x03
)

// Axis is one absolute axis of a profile and its range.
type Axis struct {
	Code     uint16
	Min, Max int32
}

// Event is one input event written to the device.
type Event struct {
	Type, Code uint16
	Value      int32
}

// Profile is a pad as its kernel driver presents it.
type Profile struct {
	Name                          string // the evdev name (EVIOCGNAME)
	Bus, Vendor, Product, Version uint16 // the evdev id (EVIOCGID)
	Keys                          []uint16
	Axes                          []Axis
	// Hat: the d-pad is the hat ABS_HAT0X/Y (Xbox, PlayStation); else the BTN_DPAD_* buttons.
	Hat bool
}

// The three standard layouts issue 30 names, as xpad, hid-playstation and hid-steam report
// them (USB).
var (
	Xbox360 = Profile{Name: "Microsoft X-Box 360 pad", Bus: BusUSB, Vendor: 0x045e, Product: 0x028e, Version: 0x0114,
		Keys: []uint16{BtnSouth, BtnEast, BtnNorth, BtnWest, BtnTL, BtnTR, BtnSelect, BtnStart, BtnMode, BtnThumbL, BtnThumbR},
		Axes: []Axis{{AbsX, -32768, 32767}, {AbsY, -32768, 32767}, {AbsZ, 0, 255}, {AbsRX, -32768, 32767}, {AbsRY, -32768, 32767},
			{AbsRZ, 0, 255}, {AbsHat0X, -1, 1}, {AbsHat0Y, -1, 1}},
		Hat: true}
	DualShock4 = Profile{Name: "Sony Interactive Entertainment Wireless Controller", Bus: BusUSB, Vendor: 0x054c, Product: 0x09cc, Version: 0x8111,
		Keys: []uint16{BtnSouth, BtnEast, BtnNorth, BtnWest, BtnTL, BtnTR, BtnTL2, BtnTR2, BtnSelect, BtnStart, BtnMode, BtnThumbL, BtnThumbR},
		Axes: []Axis{{AbsX, 0, 255}, {AbsY, 0, 255}, {AbsZ, 0, 255}, {AbsRX, 0, 255}, {AbsRY, 0, 255}, {AbsRZ, 0, 255},
			{AbsHat0X, -1, 1}, {AbsHat0Y, -1, 1}},
		Hat: true}
	// The Deck's extra keys: BTN_THUMB and BTN_THUMB2 (the trackpads' clicks), BTN_BASE (the
	// quick-access button) and BTN_TRIGGER_HAPPY1..4 (the back grips).
	SteamDeck = Profile{Name: "Steam Deck", Bus: BusUSB, Vendor: 0x28de, Product: 0x1205, Version: 0x0111,
		Keys: []uint16{0x121, 0x122, 0x126, BtnSouth, BtnEast, BtnNorth, BtnWest, BtnTL, BtnTR, BtnTL2, BtnTR2, BtnSelect, BtnStart, BtnMode,
			BtnThumbL, BtnThumbR, BtnDpadUp, BtnDpadDown, BtnDpadLeft, BtnDpadRight,
			BtnTriggerHappy1, BtnTriggerHappy1 + 1, BtnTriggerHappy1 + 2, BtnTriggerHappy1 + 3},
		Axes: []Axis{{AbsX, -32767, 32767}, {AbsY, -32767, 32767}, {AbsRX, -32767, 32767}, {AbsRY, -32767, 32767},
			{AbsHat0X, -32767, 32767}, {AbsHat0Y, -32767, 32767}, {AbsHat1X, -32767, 32767}, {AbsHat1Y, -32767, 32767},
			{AbsHat2X, 0, 32767}, {AbsHat2Y, 0, 32767}}}
)

// Profiles are the standard layouts by short name.
var Profiles = map[string]Profile{"xbox360": Xbox360, "ds4": DualShock4, "steamdeck": SteamDeck}

// SDLID is the SDL GUID ebiten computes on Linux for this device (bus, vendor, product and
// version, little-endian, each followed by two zero bytes): the key of a mapping line.
func (p Profile) SDLID() string {
	le := func(v uint16) string { return fmt.Sprintf("%02x%02x0000", byte(v), byte(v>>8)) }
	return le(p.Bus) + le(p.Vendor) + le(p.Product) + le(p.Version)
}

// Button is the b-number of key in a mapping line: Linux numbers a pad's buttons in the order
// of their codes from BTN_MISC up. -1: the profile has no such key.
func (p Profile) Button(key uint16) int {
	keys := append([]uint16(nil), p.Keys...)
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	n := 0
	for _, k := range keys {
		if k < BtnMisc {
			continue
		}
		if k == key {
			return n
		}
		n++
	}
	return -1
}

// AxisIndex is the a-number of an absolute axis in a mapping line: the axes in code order,
// the hats (ABS_HAT0X..ABS_HAT3Y) left out. -1: none, or a hat.
func (p Profile) AxisIndex(code uint16) int {
	codes := p.axisCodes()
	n := 0
	for _, c := range codes {
		if c >= AbsHat0X && c <= AbsHat3Y {
			continue
		}
		if c == code {
			return n
		}
		n++
	}
	return -1
}

// HatIndex is the h-number of the hat whose X axis is code (ABS_HAT0X: h0 when present). -1: none.
func (p Profile) HatIndex(code uint16) int {
	n := 0
	for _, c := range p.axisCodes() {
		if c < AbsHat0X || c > AbsHat3Y || (c-AbsHat0X)%2 == 1 {
			continue
		}
		if c == code {
			return n
		}
		n++
	}
	return -1
}

func (p Profile) axisCodes() []uint16 {
	var codes []uint16
	for _, a := range p.Axes {
		codes = append(codes, a.Code)
	}
	sort.Slice(codes, func(i, j int) bool { return codes[i] < codes[j] })
	return codes
}

// Press is the events that press (down) or release a standard button named as ebitengine-input
// names it without "gamepad_" (a, b, x, y, l1, r1, back, start, up, down, left, right, and the
// left stick pushed to its end: lstick_up, lstick_down, lstick_left, lstick_right), followed
// by a SYN_REPORT. The face buttons go by position: a is the bottom one (Xbox A, PlayStation
// cross), x the left one (Xbox X, PlayStation square).
func (p Profile) Press(name string, down bool) ([]Event, error) {
	v := int32(0)
	if down {
		v = 1
	}
	key := func(code uint16) []Event {
		return []Event{{EvKey, code, v}, {EvSyn, SynReport, 0}}
	}
	hat := func(code uint16, dir int32) []Event {
		return []Event{{EvAbs, code, dir * v}, {EvSyn, SynReport, 0}}
	}
	sony := p.Vendor == 0x054c
	switch name {
	case "a":
		return key(BtnSouth), nil
	case "b":
		return key(BtnEast), nil
	case "x":
		if sony {
			return key(BtnWest), nil
		}
		return key(BtnNorth), nil
	case "y":
		if sony {
			return key(BtnNorth), nil
		}
		return key(BtnWest), nil
	case "l1":
		return key(BtnTL), nil
	case "r1":
		return key(BtnTR), nil
	case "back":
		return key(BtnSelect), nil
	case "start":
		return key(BtnStart), nil
	case "lstick_up", "lstick_down", "lstick_left", "lstick_right":
		code, toMax := uint16(AbsY), name == "lstick_down"
		if name == "lstick_left" || name == "lstick_right" {
			code, toMax = AbsX, name == "lstick_right"
		}
		for _, a := range p.Axes {
			if a.Code != code {
				continue
			}
			val := (a.Min + a.Max + 1) / 2 // at rest: the middle (0 for -32768..32767)
			if down && toMax {
				val = a.Max
			} else if down {
				val = a.Min
			}
			return []Event{{EvAbs, code, val}, {EvSyn, SynReport, 0}}, nil
		}
		return nil, fmt.Errorf("vpad: %s has no axis %#x", p.Name, code)
	case "up", "down", "left", "right":
		if !p.Hat {
			return key(map[string]uint16{"up": BtnDpadUp, "down": BtnDpadDown, "left": BtnDpadLeft, "right": BtnDpadRight}[name]), nil
		}
		switch name {
		case "up":
			return hat(AbsHat0Y, -1), nil
		case "down":
			return hat(AbsHat0Y, 1), nil
		case "left":
			return hat(AbsHat0X, -1), nil
		default:
			return hat(AbsHat0X, 1), nil
		}
	}
	return nil, fmt.Errorf("vpad: no button %q", name)
}
