package ecs

import (
	"encoding/binary"
	"errors"
	"math"
)

type position struct{ X, Y float32 }
type velocity struct{ X, Y float32 }
type health struct{ HP, Max uint16 }
type tag struct{ N int }

func appendVec2(buf []byte, x, y float32) []byte {
	buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
	return binary.LittleEndian.AppendUint32(buf, math.Float32bits(y))
}

func parseVec2(b []byte) (x, y float32, err error) {
	if len(b) != 8 {
		return 0, 0, errors.New("vec2: need 8 bytes")
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(b)), math.Float32frombits(binary.LittleEndian.Uint32(b[4:])), nil
}

// posCodec / velCodec are test codecs: x f32, y f32 little-endian (8 bytes).
type posCodec struct{}

func (posCodec) Size() int                             { return 8 }
func (posCodec) Append(buf []byte, v *position) []byte { return appendVec2(buf, v.X, v.Y) }
func (posCodec) Parse(b []byte, v *position) (err error) {
	v.X, v.Y, err = parseVec2(b)
	return err
}

type velCodec struct{}

func (velCodec) Size() int                             { return 8 }
func (velCodec) Append(buf []byte, v *velocity) []byte { return appendVec2(buf, v.X, v.Y) }
func (velCodec) Parse(b []byte, v *velocity) (err error) {
	v.X, v.Y, err = parseVec2(b)
	return err
}

var errBadHP = errors.New("health: hp > max")

// healthCodec: hp u16, max u16; rejects hp > max.
type healthCodec struct{}

func (healthCodec) Size() int { return 4 }
func (healthCodec) Append(buf []byte, v *health) []byte {
	buf = binary.LittleEndian.AppendUint16(buf, v.HP)
	return binary.LittleEndian.AppendUint16(buf, v.Max)
}
func (healthCodec) Parse(b []byte, v *health) error {
	if len(b) != 4 {
		return errors.New("health: need 4 bytes")
	}
	hp, mx := binary.LittleEndian.Uint16(b), binary.LittleEndian.Uint16(b[2:])
	if hp > mx {
		return errBadHP
	}
	v.HP, v.Max = hp, mx
	return nil
}

type testStores struct {
	pos *Store[position]
	vel *Store[velocity]
	hp  *Store[health]
	tag *Store[tag]
}

// newTestWorld registers position(1), velocity(2), health(5), tag(40, server-only, no codec).
func newTestWorld() (*World, testStores) {
	w := NewWorld()
	var s testStores
	s.hp = Register[health](w, 5, healthCodec{}, Replicated)
	s.pos = Register[position](w, 1, posCodec{}, Replicated)
	s.tag = Register[tag](w, 40, nil, 0)
	s.vel = Register[velocity](w, 2, velCodec{}, Replicated)
	return w, s
}
