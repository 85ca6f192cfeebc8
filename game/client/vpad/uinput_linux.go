package vpad

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// UinputPath is the uinput device node.
const UinputPath = "/dev/uinput"

// ioctl numbers of linux/uinput.h (the generic _IOC encoding: x86, arm, arm64, riscv).
const (
	uiDevCreate  = 0x5501     // _IO('U', 1)
	uiDevDestroy = 0x5502     // _IO('U', 2)
	uiDevSetup   = 0x405c5503 // _IOW('U', 3, struct uinput_setup): 92 bytes
	uiAbsSetup   = 0x401c5504 // _IOW('U', 4, struct uinput_abs_setup): 28 bytes
	uiSetEvBit   = 0x40045564 // _IOW('U', 100, int)
	uiSetKeyBit  = 0x40045565 // _IOW('U', 101, int)
	uiSetAbsBit  = 0x40045567 // _IOW('U', 103, int)
	uiGetSysname = 0x8000552c // _IOC(_IOC_READ, 'U', 44, len): | len<<16
)

// uinputSetup is struct uinput_setup.
type uinputSetup struct {
	bustype, vendor, product, version uint16
	name                              [80]byte
	ffEffectsMax                      uint32
}

// uinputAbsSetup is struct uinput_abs_setup (struct input_absinfo after the code).
type uinputAbsSetup struct {
	code                                            uint16
	_                                               uint16
	value, minimum, maximum, fuzz, flat, resolution int32
}

// Pad is a created virtual gamepad.
type Pad struct {
	f    *os.File
	p    Profile
	node string
}

// Open creates the virtual pad p. The error says why when /dev/uinput is missing or refused.
func Open(p Profile) (*Pad, error) {
	f, err := os.OpenFile(UinputPath, os.O_WRONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("vpad: %s does not exist (no uinput in this kernel or container; modprobe uinput): %w", UinputPath, err)
		}
		return nil, fmt.Errorf("vpad: cannot open %s: %w", UinputPath, err)
	}
	pad := &Pad{f: f, p: p}
	if err := pad.create(); err != nil {
		f.Close()
		return nil, err
	}
	return pad, nil
}

func (d *Pad) ioctl(req uintptr, arg uintptr) error {
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, d.f.Fd(), req, arg); e != 0 {
		return e
	}
	return nil
}

func (d *Pad) create() error {
	set := func(what string, req uintptr, v uintptr) error {
		if err := d.ioctl(req, v); err != nil {
			return fmt.Errorf("vpad: %s %#x: %w", what, v, err)
		}
		return nil
	}
	if err := set("UI_SET_EVBIT", uiSetEvBit, EvKey); err != nil {
		return err
	}
	if err := set("UI_SET_EVBIT", uiSetEvBit, EvAbs); err != nil {
		return err
	}
	for _, k := range d.p.Keys {
		if err := set("UI_SET_KEYBIT", uiSetKeyBit, uintptr(k)); err != nil {
			return err
		}
	}
	for _, a := range d.p.Axes {
		if err := set("UI_SET_ABSBIT", uiSetAbsBit, uintptr(a.Code)); err != nil {
			return err
		}
		as := uinputAbsSetup{code: a.Code, minimum: a.Min, maximum: a.Max}
		if a.Min >= 0 && (a.Code == AbsX || a.Code == AbsY || a.Code == AbsRX || a.Code == AbsRY) {
			as.value = (a.Min + a.Max + 1) / 2 // a stick of 0..255 (PlayStation) rests in the middle (Profile.Press)
		}
		if err := d.ioctl(uiAbsSetup, uintptr(unsafe.Pointer(&as))); err != nil {
			return fmt.Errorf("vpad: UI_ABS_SETUP %#x: %w", a.Code, err)
		}
	}
	var us uinputSetup
	us.bustype, us.vendor, us.product, us.version = d.p.Bus, d.p.Vendor, d.p.Product, d.p.Version
	copy(us.name[:len(us.name)-1], d.p.Name)
	if err := d.ioctl(uiDevSetup, uintptr(unsafe.Pointer(&us))); err != nil {
		return fmt.Errorf("vpad: UI_DEV_SETUP: %w", err)
	}
	if err := d.ioctl(uiDevCreate, 0); err != nil {
		return fmt.Errorf("vpad: UI_DEV_CREATE: %w", err)
	}
	var name [64]byte
	if err := d.ioctl(uiGetSysname|uintptr(len(name))<<16, uintptr(unsafe.Pointer(&name[0]))); err == nil {
		sys := unix.ByteSliceToString(name[:])
		if m, _ := filepath.Glob(filepath.Join("/sys/devices/virtual/input", sys, "event*")); len(m) > 0 {
			d.node = filepath.Join("/dev/input", filepath.Base(m[0]))
		}
	}
	return nil
}

// Node is the /dev/input/event* node of the pad ("" when sysfs did not say).
func (d *Pad) Node() string { return d.node }

// Press presses (down) or releases a standard button (Profile.Press).
func (d *Pad) Press(name string, down bool) error {
	evs, err := d.p.Press(name, down)
	if err != nil {
		return err
	}
	return d.Write(evs...)
}

// Write writes input events (struct input_event, the time left zero: the kernel stamps it).
func (d *Pad) Write(evs ...Event) error {
	var b []byte
	for _, e := range evs {
		b = AppendEvent(b, e)
	}
	_, err := d.f.Write(b)
	return err
}

// AppendEvent appends e as a struct input_event of this machine (a struct timeval, then type,
// code and value).
func AppendEvent(b []byte, e Event) []byte {
	var tv unix.Timeval
	b = append(b, make([]byte, unsafe.Sizeof(tv))...)
	b = binary.NativeEndian.AppendUint16(b, e.Type)
	b = binary.NativeEndian.AppendUint16(b, e.Code)
	return binary.NativeEndian.AppendUint32(b, uint32(e.Value))
}

// Close destroys the pad.
func (d *Pad) Close() error {
	err := d.ioctl(uiDevDestroy, 0)
	if cerr := d.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Available reports whether a virtual pad can be made here, and if not, why.
func Available() error {
	f, err := os.OpenFile(UinputPath, os.O_WRONLY, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%s does not exist: no uinput in this kernel or container (modprobe uinput)", UinputPath)
		}
		return fmt.Errorf("cannot open %s: %v", UinputPath, strings.TrimPrefix(err.Error(), "open "+UinputPath+": "))
	}
	return f.Close()
}
