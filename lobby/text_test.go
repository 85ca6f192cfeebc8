package lobby

import (
	"strings"
	"testing"
)

func TestTextCodec(t *testing.T) {
	for _, tc := range []struct{ text, wire string }{
		{"hello world", "hello world"},
		{"a,b, c", "a,b, c"},
		{"100% sure", "100%25 sure"},
		{"héllo ✈", "h%C3%A9llo %E2%9C%88"},
		{"(GG);", "(GG);"},
	} {
		if got := EncodeText(tc.text); got != tc.wire {
			t.Errorf("EncodeText(%q) = %q, want %q", tc.text, got, tc.wire)
		}
		if got, err := DecodeText(tc.wire); err != nil || got != tc.text {
			t.Errorf("DecodeText(%q) = %q, %v", tc.wire, got, err)
		}
	}
	if got, err := DecodeText("%c3%a9"); err != nil || got != "é" {
		t.Errorf("lower-case hex: %q, %v", got, err)
	}
	for _, bad := range []string{"", "   ", "%", "%4", "%zz", "%C3", "tab%09", "%7F", strings.Repeat("x", MaxTextRunes+1)} {
		if _, err := DecodeText(bad); err == nil {
			t.Errorf("DecodeText(%q) accepted", bad)
		}
	}
	if _, err := DecodeText(strings.Repeat("é", MaxTextRunes)); err != nil {
		t.Errorf("200 characters refused: %v", err)
	}
}

func FuzzText(f *testing.F) {
	f.Add("héllo, 100% ✈")
	f.Fuzz(func(t *testing.T, s string) {
		w := EncodeText(s)
		if !printable(w) {
			t.Fatalf("EncodeText(%q) = %q is not printable ASCII", s, w)
		}
		got, err := DecodeText(w)
		if (err == nil) != (CheckText(s) == nil) {
			t.Fatalf("DecodeText(EncodeText(%q)) error %v, CheckText %v", s, err, CheckText(s))
		}
		if err == nil && got != s {
			t.Fatalf("round trip %q -> %q -> %q", s, w, got)
		}
	})
}
