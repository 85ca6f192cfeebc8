package vpad

import (
	"testing"
	"unsafe"
)

// TestStructSizes: the structs passed to uinput's ioctls have the sizes their ioctl numbers encode.
func TestStructSizes(t *testing.T) {
	if n := unsafe.Sizeof(uinputSetup{}); n != 92 || (uiDevSetup>>16)&0x3fff != 92 {
		t.Errorf("struct uinput_setup: %d bytes, UI_DEV_SETUP encodes %d; want 92", n, (uiDevSetup>>16)&0x3fff)
	}
	if n := unsafe.Sizeof(uinputAbsSetup{}); n != 28 || (uiAbsSetup>>16)&0x3fff != 28 {
		t.Errorf("struct uinput_abs_setup: %d bytes, UI_ABS_SETUP encodes %d; want 28", n, (uiAbsSetup>>16)&0x3fff)
	}
}

// TestOpen makes each profile's pad where /dev/uinput can be opened, else skips saying why.
func TestOpen(t *testing.T) {
	if err := Available(); err != nil {
		t.Skipf("no virtual gamepad here: %v", err)
	}
	for short, p := range Profiles {
		d, err := Open(p)
		if err != nil {
			t.Errorf("%s: %v", short, err)
			continue
		}
		if err := d.Press("a", true); err != nil {
			t.Errorf("%s: press: %v", short, err)
		}
		if err := d.Close(); err != nil {
			t.Errorf("%s: close: %v", short, err)
		}
	}
}
