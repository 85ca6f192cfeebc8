package fleet

import (
	"bytes"
	"crypto/cipher"
	"encoding/hex"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/stagefile"
)

var update = flag.Bool("update", false, "rewrite testdata/fleet/*.hex from the code")

// The example handshake of docs/CONTROL.md: this secret and these nonces.
var (
	vecSecret = []byte("rtype-example-control-secret")
	vecNh     = seqBytes(0x00, NonceSize)
	vecNl     = seqBytes(0x10, NonceSize)
	vecLoad   = []byte(`{"type":"load","load":{"games":0,"capacity":64}}`)
)

func seqBytes(from byte, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = from + byte(i)
	}
	return b
}

// hexLines writes b as the golden format: 16 bytes a line, with a comment on the first.
func hexLines(comment string, b []byte) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "# %s\n", comment)
	for i := 0; i < len(b); i += 16 {
		row := b[i:min(i+16, len(b))]
		parts := make([]string, len(row))
		for j, c := range row {
			parts[j] = hex.EncodeToString([]byte{c})
		}
		sb.WriteString(strings.Join(parts, " ") + "\n")
	}
	return sb.String()
}

// parseHex reads the golden format: hex byte pairs, '#' to the end of the line a comment.
func parseHex(text string) ([]byte, error) {
	var out []byte
	for _, line := range strings.Split(text, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		for _, tok := range strings.Fields(line) {
			b, err := hex.DecodeString(tok)
			if err != nil {
				return nil, err
			}
			out = append(out, b...)
		}
	}
	return out, nil
}

// vectors are the example's messages as the code makes them.
func vectors(t testing.TB) map[string][]byte {
	_, h2l := SessionKeys(vecSecret, vecNh, vecNl)
	return map[string][]byte{
		"host_hello":  AppendHostHello(nil, vecNh),
		"lobby_hello": AppendLobbyHello(nil, vecSecret, vecNh, vecNl),
		"host_proof":  HostProof(vecSecret, vecNh, vecNl),
		"first_frame": SealFrame(nil, mustGCM(t, h2l), 0, vecLoad),
	}
}

func mustGCM(t testing.TB, key []byte) cipher.AEAD {
	a, err := gcm(key)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

var comments = map[string]string{
	"host_hello":  "host -> lobby: \"RTYC\", version 1, host nonce 00..0f",
	"lobby_hello": "lobby -> host: \"RTYC\", version 1, lobby nonce 10..1f, HMAC-SHA256 proof",
	"host_proof":  "host -> lobby: the host's HMAC-SHA256 proof",
	"first_frame": "host -> lobby, frame 0: length, AES-256-GCM of {\"type\":\"load\",\"load\":{\"games\":0,\"capacity\":64}} and tag",
}

const goldenDir = "../../testdata/fleet"

// TestVectors: the handshake and first frame of docs/CONTROL.md §5 are what the code makes of
// its secret and nonces (testdata/fleet/*.hex), the document shows those files, and the frame
// opens to the load message.
func TestVectors(t *testing.T) {
	vs := vectors(t)
	doc, err := os.ReadFile("../../docs/CONTROL.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := map[string]string{}
	for _, m := range regexp.MustCompile("(?s)```hex golden=([a-z_]+)\n(.*?)```").FindAllStringSubmatch(string(doc), -1) {
		blocks[m[1]] = m[2]
	}
	for name, want := range vs {
		path := filepath.Join(goldenDir, name+".hex")
		if *update {
			if err := os.MkdirAll(goldenDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(hexLines(comments[name], want)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := parseHex(string(text))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %x\nwant %x", path, got, want)
		}
		if blocks[name] != string(text) {
			t.Errorf("docs/CONTROL.md block golden=%s differs from %s", name, path)
		}
	}
	if len(blocks) != len(vs) {
		t.Errorf("docs/CONTROL.md has %d golden blocks, want %d", len(blocks), len(vs))
	}
	_, h2l := SessionKeys(vecSecret, vecNh, vecNl)
	f := vs["first_frame"]
	plain, err := mustGCM(t, h2l).Open(nil, frameNonce(0), f[4:], f[:4])
	if err != nil || !bytes.Equal(plain, vecLoad) {
		t.Fatalf("first frame opens to %q, %v", plain, err)
	}
	if len(vs["host_hello"]) != HostHelloSize || len(vs["lobby_hello"]) != LobbyHelloSize || len(vs["host_proof"]) != HostProofSize {
		t.Fatal("handshake sizes")
	}
}

// TestDocMessages: the JSON examples of docs/CONTROL.md §4 are messages as the code writes
// them (decoded and encoded again, byte for byte), their starts and members are valid, and the
// lobby takes their replay part and record (§4.1).
func TestDocMessages(t *testing.T) {
	doc, err := os.ReadFile("../../docs/CONTROL.md")
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile("../../testdata/replay/golden.rtr")
	if err != nil {
		t.Fatal(err)
	}
	tiny, err := os.ReadFile("../../testdata/lobby/tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	var parts replayParts
	var stageIn stageParts
	var stage *stagefile.File
	n, players, records, starts := 0, 0, 0, 0
	for _, line := range strings.Split(string(doc), "\n") {
		_, js, ok := strings.Cut(line, "> ")
		if !ok || !(strings.HasPrefix(line, "lobby> ") || strings.HasPrefix(line, "host>  ")) {
			continue
		}
		js = strings.TrimSpace(js)
		m, err := decode([]byte(js))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		if got := string(encode(m)); got != js {
			t.Errorf("doc example\n %s\nencodes as\n %s", js, got)
		}
		switch m.Type {
		case TypeStage: // §4.2: the host takes the whole of testdata/lobby/tiny.json
			f, err := stageIn.add(m.Hash, m.Part, m.Parts, m.Data)
			if err != nil || f == nil || !bytes.Equal(f.Data, tiny) {
				t.Errorf("%s: %v; want the whole of testdata/lobby/tiny.json", js, err)
			}
			stage = f
		case TypeLoad:
			for _, h := range m.Stages { // §4.2: the embedded stages' hashes
				if f, err := stagefile.Embedded(embeddedByHash(h), game.ParseScript); err != nil || f.Hash != h {
					t.Errorf("%s: %s is no embedded stage's hash", js, h)
				}
			}
		case TypeStart:
			sp, err := m.Spec.gameSpec()
			if err != nil {
				t.Errorf("%s: %v", js, err)
			}
			if stage == nil || m.Spec.Hash != stage.Hash {
				t.Errorf("%s: the start does not name the stage sent before it", js)
			}
			players = len(sp.Members)
			starts++
		case TypeReplay: // §4.1: a part the lobby takes, of a replay file (abridged)
			if err := parts.add(m.Game, m.Part, m.Parts, m.Data); err != nil {
				t.Errorf("%s: %v", js, err)
			}
			if !bytes.HasPrefix(golden, m.Data) {
				t.Errorf("%s: the data is not the start of a replay file (testdata/replay/golden.rtr)", js)
			}
		case TypeEnded:
			if m.Record != nil {
				if err := m.Record.Check(players); err != nil {
					t.Errorf("%s: %v", js, err)
				}
				if b, err := parts.take(m.Game); err != nil || len(b) == 0 {
					t.Errorf("%s: the example's replay: %d bytes, %v", js, len(b), err)
				}
				records++
			}
		}
		n++
	}
	if n < 8 || records != 1 || starts != 1 || stage == nil {
		t.Fatalf("found %d example messages in docs/CONTROL.md (%d ended with a record, %d starts, stage %v), want 8 (1, 1, sent)", n, records, starts, stage != nil)
	}
}

// embeddedByHash is the name of the embedded stage whose file has hash h ("": none).
func embeddedByHash(h string) string {
	for _, name := range stagefile.EmbeddedNames() {
		if f, err := stagefile.Embedded(name, game.ParseScript); err == nil && f.Hash == h {
			return name
		}
	}
	return ""
}

// FuzzMessage: any plaintext a peer sends is a message or an error, never a panic, and a
// start's spec is checked before it reaches the runtime.
func FuzzMessage(f *testing.F) {
	f.Add(vecLoad)
	f.Add(encode(&Msg{Type: TypeStart, ID: 1, Spec: specOf(spec("ABCDE", 4))}))
	f.Add([]byte(`{"type":"start","spec":{"members":[{"slot":99}]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decode(b)
		if err != nil {
			return
		}
		if s, err := m.Spec.gameSpec(); err == nil {
			if len(s.Members) == 0 || len(s.Members) > 4 {
				t.Fatalf("spec with %d members accepted", len(s.Members))
			}
			for _, mb := range s.Members {
				if mb.Token == 0 {
					t.Fatal("token 0 accepted")
				}
			}
		}
	})
}

// FuzzFrame: whatever bytes follow the handshake, Read returns a message that authenticates
// or an error — never a panic, never more than MaxFrame+TagSize bytes read into memory for
// one frame. The seed is the example's first frame (it opens under the example's keys).
func FuzzFrame(f *testing.F) {
	vs := vectors(f)
	f.Add(vs["first_frame"])
	f.Add([]byte{0, 0, 0, 0})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	_, h2l := SessionKeys(vecSecret, vecNh, vecNl)
	f.Fuzz(func(t *testing.T, b []byte) {
		a, p := net.Pipe()
		defer a.Close()
		go func() { p.Write(b); p.Close() }()
		c := &Conn{nc: a, rd: mustGCM(t, h2l)}
		for {
			m, err := c.Read(time.Now().Add(time.Second))
			if err != nil {
				return
			}
			if len(m) > MaxFrame {
				t.Fatalf("a message of %d bytes", len(m))
			}
		}
	})
}
