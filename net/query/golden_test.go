package query

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const goldenDir = "../../testdata/query"

// parseHex reads the golden text format of testdata/query: hex byte pairs separated by
// whitespace, "00*N" for N copies of a byte, '#' starts a comment to the end of the line.
func parseHex(text string) ([]byte, error) {
	var out []byte
	for lineNo, line := range strings.Split(text, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		for _, tok := range strings.Fields(line) {
			rep := 1
			if b, n, ok := strings.Cut(tok, "*"); ok {
				var err error
				if rep, err = strconv.Atoi(n); err != nil || rep < 1 || len(b) != 2 {
					return nil, fmt.Errorf("line %d: token %q: want BYTE*COUNT", lineNo+1, tok)
				}
				tok = b
			}
			b, err := hex.DecodeString(tok)
			if err != nil {
				return nil, fmt.Errorf("line %d: token %q: %v", lineNo+1, tok, err)
			}
			for range rep {
				out = append(out, b...)
			}
		}
	}
	return out, nil
}

func readGolden(t *testing.T, name string) []byte {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(goldenDir, name+".hex"))
	if err != nil {
		t.Fatalf("golden %s: %v", name, err)
	}
	b, err := parseHex(string(text))
	if err != nil {
		t.Fatalf("golden %s: %v", name, err)
	}
	return b
}

// goldenPlayers are the players of players.hex.
var goldenPlayers = []Player{{Name: "ann", Score: 1200, Duration: 95.5}, {Name: "bo", Score: 0, Duration: 3}}

const goldenChallenge, goldenNonce = 0x4a2b1c0d, 0x0807060504030201

// Every example of docs/PROTOCOL.md §12 and §13 is what the encoders write and the decoders read.
func TestGoldens(t *testing.T) {
	in := sampleInfo()
	want := in
	want.Folder, want.Game, want.Environment = Folder, GameName, defaultEnvironment
	for name, enc := range map[string][]byte{
		"info_request":           AppendInfoRequest(nil, 0),
		"challenge":              AppendChallenge(nil, goldenChallenge),
		"info_request_challenge": AppendInfoRequest(nil, goldenChallenge),
		"info":                   AppendInfo(nil, &in),
		"player_request":         AppendPlayerRequest(nil, goldenChallenge),
		"players":                AppendPlayers(nil, goldenPlayers),
		"lan_probe":              AppendLANProbe(nil, goldenNonce),
		"lan_answer":             AppendLANAnswer(nil, goldenNonce, &in),
	} {
		if g := readGolden(t, name); !bytes.Equal(g, enc) {
			t.Errorf("%s: encoder writes\n % x\ntestdata/query/%s.hex has\n % x", name, enc, name, g)
		}
	}
	if c, err := ParseChallenge(readGolden(t, "challenge")); err != nil || c != goldenChallenge {
		t.Errorf("challenge: %x, %v", c, err)
	}
	if got, err := ParseInfo(readGolden(t, "info")); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("info: %+v, %v", got, err)
	}
	if got, err := ParsePlayers(readGolden(t, "players")); err != nil || !reflect.DeepEqual(got, goldenPlayers) {
		t.Errorf("players: %+v, %v", got, err)
	}
	if n, err := ParseLANProbe(readGolden(t, "lan_probe")); err != nil || n != goldenNonce {
		t.Errorf("lan_probe: %x, %v", n, err)
	}
	if n, got, err := ParseLANAnswer(readGolden(t, "lan_answer")); err != nil || n != goldenNonce || !reflect.DeepEqual(got, want) {
		t.Errorf("lan_answer: %x %+v, %v", n, got, err)
	}
}

// queryBlock matches docs/PROTOCOL.md's examples of this package: ```query golden=NAME ... ```
var queryBlock = regexp.MustCompile("(?ms)^```query golden=([a-z0-9_]+)\\s*\\n(.*?)^```")

// docs/PROTOCOL.md shows every golden of testdata/query, each as the file has it.
func TestProtocolDocMatchesGoldens(t *testing.T) {
	doc, err := os.ReadFile("../../docs/PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	shown := map[string]bool{}
	for _, m := range queryBlock.FindAllStringSubmatch(string(doc), -1) {
		name := m[1]
		shown[name] = true
		got, err := parseHex(m[2])
		if err != nil {
			t.Errorf("doc block %s: %v", name, err)
			continue
		}
		if want := readGolden(t, name); !bytes.Equal(got, want) {
			t.Errorf("doc block %s differs from testdata/query/%s.hex:\n doc  % x\n file % x", name, name, got, want)
		}
	}
	files, _ := filepath.Glob(filepath.Join(goldenDir, "*.hex"))
	if len(files) == 0 {
		t.Fatal("no goldens in testdata/query")
	}
	for _, f := range files {
		if name := strings.TrimSuffix(filepath.Base(f), ".hex"); !shown[name] {
			t.Errorf("testdata/query/%s.hex is not shown in docs/PROTOCOL.md (a ```query golden=%s block)", name, name)
		}
	}
}
