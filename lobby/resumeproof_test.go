package lobby

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// TestResumeProofVector checks the RESUME proof example of docs/PROTOCOL.md §2.4.20: the
// document shows testdata/lobby/resume_proof.hex as it is, its MAC input is the label, the
// upper-case code, the slot byte and the UUID's RFC 4122 bytes, ResumeProof (what the server
// checks and Client.Resume sends) gives its proof, and the document's RESUME line carries it.
func TestResumeProofVector(t *testing.T) {
	file, err := os.ReadFile("../testdata/lobby/resume_proof.hex")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../docs/PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?ms)^```resume-proof golden=resume_proof\n(.*?)^```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/PROTOCOL.md has no ```resume-proof golden=resume_proof block")
	}
	if !bytes.Equal(m[1], file) {
		t.Errorf("the block of docs/PROTOCOL.md §2.4.20 differs from testdata/lobby/resume_proof.hex:\n%s\nwant\n%s", m[1], file)
	}
	v := map[string][]byte{}
	sec := ""
	for n, line := range strings.Split(string(file), "\n") {
		line, _, _ = strings.Cut(line, "#")
		line = strings.TrimSpace(line)
		if name, ok := strings.CutSuffix(line, ":"); ok {
			sec = name
			continue
		}
		for _, tok := range strings.Fields(line) {
			b, err := hex.DecodeString(tok)
			if err != nil || sec == "" {
				t.Fatalf("line %d: %q is not a hex byte of a section", n+1, tok)
			}
			v[sec] = append(v[sec], b...)
		}
	}
	var key [16]byte
	if len(v["key"]) != len(key) || len(v["proof"]) != 16 {
		t.Fatalf("key %d bytes, proof %d bytes: want 16 each", len(v["key"]), len(v["proof"]))
	}
	copy(key[:], v["key"])
	// The values named in the vector's comments, written independently of it.
	const code, slot = "K7QF2", 1
	user := uuid.MustParse("4b0e1a1c-3b7e-4a57-9d51-0c6f1b2f6f3e")
	want := append(append(append([]byte("rtype resume v1"), code...), slot), user[:]...)
	if !bytes.Equal(v["input"], want) {
		t.Errorf("input % x, want % x", v["input"], want)
	}
	mac := hmac.New(sha256.New, key[:])
	mac.Write(v["input"])
	if sum := mac.Sum(nil)[:16]; !bytes.Equal(sum, v["proof"]) {
		t.Errorf("HMAC-SHA256(key, input)[:16] = % x, the vector says % x", sum, v["proof"])
	}
	if got := ResumeProof(key, code, slot, user); got != hex.EncodeToString(v["proof"]) {
		t.Errorf("ResumeProof = %s, want %x", got, v["proof"])
	}
	if ResumeProof(key, code, slot, user) == RejoinProof(key, code, slot, user) {
		t.Error("a RESUME proof equals the REJOIN proof of the same slot")
	}
	line := CmdResume + " " + user.String() + ";" + code + ",1," + hex.EncodeToString(v["proof"]) + `\r\n`
	if !bytes.Contains(doc, []byte("`"+line+"`")) {
		t.Errorf("docs/PROTOCOL.md §2.4.20 does not show the line %s", line)
	}
}
