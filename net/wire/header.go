// Package wire is the byte-level codec of rtype's UDP game protocol: the
// 22-byte datagram header and the size-prefixed commands 1..MaxCmd (those of
// seed 004 §3 plus our extensions), exactly as specified in docs/PROTOCOL.md
// §3–§4.
//
// All integers are little-endian. Every Append appends to the caller's buffer
// and never allocates when the buffer has the capacity; every Parse and
// Validate reads in place, never allocates and never panics, whatever the
// input; nothing read from the wire sizes an allocation.
//
// Receiving: call Validate (or Open) on the whole datagram first, then iterate
// the commands with a Reader and call the typed Parse of each command.
//
// Each command is a type in a file of its own, named after it (ping.go: PING, delents.go:
// DEL_ENTS, state.go: STATE), with its Append, Parse and argument layout; commands.go holds
// the ids, the table of names and limits, and the framing every command shares.
package wire

import "encoding/binary"

// Datagram limits and the protocol version (docs/PROTOCOL.md §3.1, §9).
const (
	// HeaderSize is the size in bytes of the datagram header.
	HeaderSize = 22
	// MaxDatagram is the largest datagram in bytes, header included (seed 000).
	MaxDatagram = 1200
	// Version is the protocol version byte carried by every header.
	Version = 4
	// Magic0 and Magic1 are the first two bytes of every datagram ("RT").
	Magic0, Magic1 = 0x52, 0x54
)

var le = binary.LittleEndian

// Header is the 22-byte datagram header (docs/PROTOCOL.md §3.1; extension
// to seed 004 inspired by seeds 000/003 and netcode.io). The magic, version
// and flags bytes are implicit: Append writes "RT", Version and 0.
//
//	off size field
//	  0    2 magic   0x52 0x54
//	  2    1 version Version
//	  3    1 flags   0
//	  4    4 token   u32 session token from the lobby START line, != 0
//	  8    4 tick    s→c: simulation tick of the state; c→s: newest server tick received
//	 12    2 seq     u16 datagram sequence (per direction, wraps)
//	 14    2 ack     newest seq received from the peer
//	 16    4 ackBits bit i set = seq (ack-1-i) received
//	 20    2 relAck  id of the last reliable command delivered in order (0 = none)
type Header struct {
	Token, Tick uint32
	Seq, Ack    uint16
	AckBits     uint32
	RelAck      uint16
}

// Append appends the 22-byte encoding of h to buf. It does not check h
// (a zero Token is written as is; receivers reject it with ErrToken).
func (h Header) Append(buf []byte) []byte {
	buf = append(buf, Magic0, Magic1, Version, 0)
	buf = le.AppendUint32(buf, h.Token)
	buf = le.AppendUint32(buf, h.Tick)
	buf = le.AppendUint16(buf, h.Seq)
	buf = le.AppendUint16(buf, h.Ack)
	buf = le.AppendUint32(buf, h.AckBits)
	buf = le.AppendUint16(buf, h.RelAck)
	return buf
}

// Parse decodes the header at the start of b (b may hold the whole
// datagram) and returns HeaderSize. Errors, checked in this order: ErrShort,
// ErrMagic, ErrVersion, ErrFlags, ErrToken. On error h is unchanged and n is 0.
// Parse does not check the datagram's total length against MaxDatagram;
// Validate does.
func (h *Header) Parse(b []byte) (n int, err error) {
	if len(b) < HeaderSize {
		return 0, ErrShort
	}
	if b[0] != Magic0 || b[1] != Magic1 {
		return 0, ErrMagic
	}
	if b[2] != Version {
		return 0, ErrVersion
	}
	if b[3] != 0 {
		return 0, ErrFlags
	}
	tok := le.Uint32(b[4:])
	if tok == 0 {
		return 0, ErrToken
	}
	h.Token = tok
	h.Tick = le.Uint32(b[8:])
	h.Seq = le.Uint16(b[12:])
	h.Ack = le.Uint16(b[14:])
	h.AckBits = le.Uint32(b[16:])
	h.RelAck = le.Uint16(b[20:])
	return HeaderSize, nil
}
