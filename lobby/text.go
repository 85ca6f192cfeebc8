package lobby

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxTextRunes is the most characters (Unicode code points) of one chat line
// or server broadcast (docs/PROTOCOL.md §2.4.9).
const MaxTextRunes = 200

// ErrBadText is wrapped by every DecodeText and CheckText error.
var ErrBadText = errors.New("lobby: bad text")

// EncodeText returns the wire form of a chat or broadcast text
// (docs/PROTOCOL.md §2.4.9): bytes 0x20..0x7E other than '%' as they are
// (spaces and commas included), '%' and every other byte (UTF-8 beyond ASCII)
// as '%' and two upper-case hex digits. The result is printable ASCII.
func EncodeText(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c <= 0x7e && c != '%' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// DecodeText turns the wire form of a text back into UTF-8 and checks it
// (CheckText): '%' must be followed by two hex digits (either case).
func DecodeText(wire string) (string, error) {
	if strings.IndexByte(wire, '%') < 0 {
		return wire, CheckText(wire)
	}
	b := make([]byte, 0, len(wire))
	for i := 0; i < len(wire); i++ {
		c := wire[i]
		if c != '%' {
			b = append(b, c)
			continue
		}
		if i+2 >= len(wire) || unhex(wire[i+1]) < 0 || unhex(wire[i+2]) < 0 {
			return "", textErr("'%' must be followed by two hex digits")
		}
		b = append(b, byte(unhex(wire[i+1])<<4|unhex(wire[i+2])))
		i += 2
	}
	s := string(b)
	return s, CheckText(s)
}

// CheckText reports whether s is a valid chat or broadcast text: valid UTF-8,
// 1..MaxTextRunes characters, no control character, not only spaces.
func CheckText(s string) error {
	switch {
	case !utf8.ValidString(s):
		return textErr("text is not valid UTF-8")
	case strings.TrimSpace(s) == "":
		return textErr("empty text")
	case utf8.RuneCountInString(s) > MaxTextRunes:
		return textErr("text longer than 200 characters")
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return textErr("text contains a control character")
	}
	return nil
}

// MaxMarks is the most combining marks (Unicode categories Mn, Mc, Me) a chat line keeps in
// a row: enough for any script, not for a "stack" that paints over the lines around it.
const MaxMarks = 2

// SanitizeText removes from a text what would let it pass for something else on screen
// (docs/PROTOCOL.md §2.4.9): format characters (Unicode category Cf: the direction
// overrides, embeddings and isolates U+202A..U+202E and U+2066..U+2069, the direction marks,
// the zero-width and invisible characters, U+FEFF), the line and paragraph separators
// U+2028 and U+2029, the Hangul fillers, and combining marks beyond MaxMarks in a row. The
// server relays chat sanitized; a client may apply it to whatever it shows.
func SanitizeText(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r >= 0x80 }) {
		return s // ASCII: nothing to remove
	}
	var b strings.Builder
	b.Grow(len(s))
	marks := 0
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Cf, r), r == 0x2028, r == 0x2029, invisibleLetter(r):
			continue
		case unicode.In(r, unicode.Mn, unicode.Mc, unicode.Me):
			if marks++; marks > MaxMarks {
				continue
			}
		default:
			marks = 0
		}
		b.WriteRune(r)
	}
	return b.String()
}

// invisibleLetter reports whether r is a letter drawn as blank space (the Hangul fillers and
// the half-width one), which would pass for spaces or nothing.
func invisibleLetter(r rune) bool {
	return r == 0x115f || r == 0x1160 || r == 0x3164 || r == 0xffa0
}

// textErr returns an error wrapping ErrBadText whose message ends with reason.
func textErr(reason string) error { return fmt.Errorf("%w: %s", ErrBadText, reason) }

// TextReason is the reason of a text error, as a 500 body says it.
func TextReason(err error) string { return strings.TrimPrefix(err.Error(), ErrBadText.Error()+": ") }

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// TextArgs splits the wire form of a text into command arguments: a text
// travels with its commas as they are, so it is the rest of the line and
// AppendCommand joins these parts back with ','.
func TextArgs(wire string) []string { return strings.Split(wire, ",") }
