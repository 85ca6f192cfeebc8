package wire

import "errors"

// Error is the type of every sentinel error of this package. Each sentinel has
// a stable reason index (see ReasonIndex and Reasons) so that a transport can
// keep one drop counter per reason (docs/PROTOCOL.md §6, seed 002 §6).
type Error struct {
	reason int
	msg    string
}

func (e *Error) Error() string { return e.msg }

// Reason returns the metric name of the error (an element of Reasons).
func (e *Error) Reason() string { return Reasons[e.reason] }

// Sentinel errors returned by Parse, Validate and friends. They are returned
// unwrapped (no allocation); compare with == or errors.Is.
var (
	// ErrShort: the datagram is shorter than HeaderSize (22 bytes).
	ErrShort = &Error{0, "wire: datagram shorter than the 22-byte header"}
	// ErrTooLarge: the datagram is larger than MaxDatagram (1200 bytes).
	ErrTooLarge = &Error{1, "wire: datagram larger than 1200 bytes"}
	// ErrMagic: the first two bytes are not "RT" (0x52 0x54).
	ErrMagic = &Error{2, "wire: bad magic"}
	// ErrVersion: the version byte is not Version.
	ErrVersion = &Error{3, "wire: unsupported protocol version"}
	// ErrFlags: the header flags byte is not 0.
	ErrFlags = &Error{4, "wire: non-zero header flags"}
	// ErrToken: the header token is 0 (tokens handed out by the lobby are never 0).
	ErrToken = &Error{5, "wire: zero session token"}
	// ErrSize: a command's u16 size prefix is truncated, is 0, or runs past
	// the end of the datagram.
	ErrSize = &Error{6, "wire: command size prefix is 0, truncated or runs past the datagram"}
	// ErrUnknownCmd: the command id is not one of 1..MaxCmd.
	ErrUnknownCmd = &Error{7, "wire: unknown command id"}
	// ErrArgLen: the command's size does not match the exact argument length
	// of that command.
	ErrArgLen = &Error{8, "wire: argument length does not match the command"}
	// ErrBadValue: an enumerated or constrained argument is out of range
	// (GAME_END result, ACT_MOVE/INPUT reserved bits, BYE reason, INPUT count,
	// REL id 0, player slot, nil HERE uuid, WELCOME tickRate 0).
	ErrBadValue = &Error{9, "wire: argument value out of range"}
	// ErrEntityID: an entity id has its top bit set.
	ErrEntityID = &Error{10, "wire: entity id has its top bit set"}
	// ErrComponent: inside ENTITY a component is unknown, has a componentSize
	// different from its fixed size, is duplicated, is truncated, or the
	// number of components differs from compCount; or DEL_COMP names an
	// unknown component.
	ErrComponent = &Error{11, "wire: bad component"}
	// ErrRel: a REL command is the last command of the datagram or is not
	// followed by a reliable-capable command (CmdID.ReliableCapable).
	ErrRel = &Error{12, "wire: REL not followed by a reliable-capable command"}
	// ErrCmdID: a typed Parse was given a command with another id (never
	// returned by Validate).
	ErrCmdID = &Error{13, "wire: command id does not match the parsed type"}
)

// ErrCmdSize is another name for ErrSize.
var ErrCmdSize = ErrSize

// Reasons lists the metric names of the drop reasons, indexed by ReasonIndex.
// The last entry, "other", stands for any error not from this package.
var Reasons = [...]string{
	"short", "too_large", "magic", "version", "flags", "token", "size",
	"unknown_cmd", "arg_len", "bad_value", "entity_id", "component", "rel",
	"cmd_id", "other",
}

// NumReasons is len(Reasons): size a counter array with it.
const NumReasons = len(Reasons)

var sentinels = [...]*Error{
	ErrShort, ErrTooLarge, ErrMagic, ErrVersion, ErrFlags, ErrToken, ErrSize,
	ErrUnknownCmd, ErrArgLen, ErrBadValue, ErrEntityID, ErrComponent, ErrRel,
	ErrCmdID,
}

// ReasonIndex maps an error to an index into Reasons: the sentinel's own
// index (also through wrapping), NumReasons-1 ("other") for a foreign error,
// and -1 for nil. It does not allocate.
func ReasonIndex(err error) int {
	if err == nil {
		return -1
	}
	if e, ok := err.(*Error); ok {
		return e.reason
	}
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return s.reason
		}
	}
	return NumReasons - 1
}
