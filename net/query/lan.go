package query

import (
	"encoding/binary"
	"errors"
)

// LAN discovery (docs/PROTOCOL.md §13): a client broadcasts a probe, Prefix 'l' and an 8-byte
// nonce, padded with zeros to LANProbeSize; every server on the link answers it from its game
// socket with Prefix 'L', the nonce and A2S_INFO's fields (§12.2). A server answers only a
// probe at least as long as its answer, so discovery never amplifies: a spoofed probe gets its
// victim at most the bytes the spoofer sent.

// NonceSize is the length of a probe's nonce.
const NonceSize = 8

// MaxInfoBody is the longest A2S_INFO body (after the type byte) AppendInfo writes: every string
// at its limit.
const MaxInfoBody = 1 + 4*(maxField+1) + 2 + 4 + 3 + (maxField + 1) + 1 + 2 + (maxKeywords + 1)

// LANProbeSize is the size of a probe as the client sends it: room for the longest answer, which
// the server sends only to a probe at least as long.
const LANProbeSize = 5 + NonceSize + MaxInfoBody

// lanProbeMin is the shortest datagram read as a probe (shorter ones are not answered at all).
const lanProbeMin = 5 + NonceSize

// ErrNotPadded: a probe shorter than its answer, which is not sent.
var ErrNotPadded = errors.New(errPrefix + "LAN probe shorter than its answer")

// AppendLANProbe appends a probe with nonce, padded to LANProbeSize.
func AppendLANProbe(b []byte, nonce uint64) []byte {
	b = append(b, Prefix[:]...)
	b = append(b, TypeLANProbe)
	b = binary.LittleEndian.AppendUint64(b, nonce)
	for range LANProbeSize - lanProbeMin {
		b = append(b, 0)
	}
	return b
}

// ParseLANProbe reads a probe's nonce.
func ParseLANProbe(b []byte) (uint64, error) {
	rest, err := header(b, TypeLANProbe)
	if err != nil {
		return 0, err
	}
	if len(rest) < NonceSize {
		return 0, ErrShort
	}
	return binary.LittleEndian.Uint64(rest), nil
}

// AppendLANAnswer appends the answer to the probe with nonce.
func AppendLANAnswer(b []byte, nonce uint64, in *Info) []byte {
	b = append(b, Prefix[:]...)
	b = append(b, TypeLANAnswer)
	b = binary.LittleEndian.AppendUint64(b, nonce)
	return appendInfoBody(b, in)
}

// ParseLANAnswer reads an answer: its nonce and the server's Info.
func ParseLANAnswer(b []byte) (uint64, Info, error) {
	rest, err := header(b, TypeLANAnswer)
	if err != nil {
		return 0, Info{}, err
	}
	if len(rest) < NonceSize {
		return 0, Info{}, ErrShort
	}
	in, err := parseInfoBody(rest[NonceSize:])
	return binary.LittleEndian.Uint64(rest), in, err
}
