//go:build !linux

package vpad

import (
	"errors"
	"runtime"
)

// Pad is a created virtual gamepad (Linux only).
type Pad struct{}

var errNoUinput = errors.New("vpad: virtual gamepads need Linux uinput, not " + runtime.GOOS)

// Open fails: there is no uinput outside Linux.
func Open(Profile) (*Pad, error) { return nil, errNoUinput }

// Available says that there is no uinput outside Linux.
func Available() error { return errNoUinput }

// Node is "".
func (*Pad) Node() string { return "" }

// Press fails.
func (*Pad) Press(string, bool) error { return errNoUinput }

// Write fails.
func (*Pad) Write(...Event) error { return errNoUinput }

// Close does nothing.
func (*Pad) Close() error { return nil }
