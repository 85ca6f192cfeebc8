package serverlist

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

const goldenDir = "../../testdata/serverlist"

// listBlock matches the examples of docs/PROTOCOL.md §11: ```udp list=NAME (testdata/serverlist/
// NAME.hex) and ```json list=NAME (NAME.json).
var listBlock = regexp.MustCompile("(?ms)^```(udp|json) list=([a-z0-9_]+)\\s*\\n(.*?)^```")

func parseHex(text string) ([]byte, error) {
	var out []byte
	for _, line := range strings.Split(text, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		for _, tok := range strings.Fields(line) {
			b, err := hex.DecodeString(tok)
			if err != nil {
				return nil, fmt.Errorf("token %q: %v", tok, err)
			}
			out = append(out, b...)
		}
	}
	return out, nil
}

func golden(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(goldenDir, name))
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(name, ".hex") {
		if b, err = parseHex(string(b)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	return b
}

func jsonEqual(t *testing.T, what string, got, want []byte) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v in %s", what, err, got)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("%s: golden: %v", what, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s:\n got  %s\n want %s", what, got, want)
	}
}

// TestProtocolDocExamples: every example of docs/PROTOCOL.md §11 is its golden file, and every
// golden file is shown.
func TestProtocolDocExamples(t *testing.T) {
	doc, err := os.ReadFile("../../docs/PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	shown := map[string]bool{}
	for _, m := range listBlock.FindAllStringSubmatch(string(doc), -1) {
		kind, name, body := m[1], m[2], m[3]
		if kind == "udp" {
			name += ".hex"
			got, err := parseHex(body)
			if err != nil {
				t.Fatalf("doc %s: %v", name, err)
			}
			if want := golden(t, name); !bytes.Equal(got, want) {
				t.Errorf("doc %s:\n doc  % x\n file % x", name, got, want)
			}
		} else {
			name += ".json"
			jsonEqual(t, "doc "+name, []byte(body), golden(t, name))
		}
		shown[name] = true
	}
	files, _ := os.ReadDir(goldenDir)
	for _, f := range files {
		if !shown[f.Name()] {
			t.Errorf("testdata/serverlist/%s is not shown in docs/PROTOCOL.md §11", f.Name())
		}
	}
}

// recordConn is a UDP socket that records what is sent.
type recordConn struct {
	mu   sync.Mutex
	sent []Datagram
}

func (c *recordConn) ReadFrom([]byte) (int, net.Addr, error) { select {} }
func (c *recordConn) WriteTo(b []byte, a net.Addr) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sent = append(c.sent, Datagram{To: a.(*net.UDPAddr).AddrPort(), B: bytes.Clone(b)})
	return len(b), nil
}
func (c *recordConn) Close() error                     { return nil }
func (c *recordConn) LocalAddr() net.Addr              { return &net.UDPAddr{} }
func (c *recordConn) SetDeadline(time.Time) error      { return nil }
func (c *recordConn) SetReadDeadline(time.Time) error  { return nil }
func (c *recordConn) SetWriteDeadline(time.Time) error { return nil }

// fixedRand reads a0 a1 .. af again and again: the golden token.
type fixedRand struct{}

func (fixedRand) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = byte(0xa0 + i%16)
	}
	return len(b), nil
}

// TestGoldenExchange plays the documented exchange: register.json POSTed from 198.51.100.7 is
// answered registered.json and sends token.hex to 198.51.100.7:4242; the game server's answerer
// answers token.hex with echo.hex, which lists the entry: GET is list.json. Naming another
// address is answered error.json.
func TestGoldenExchange(t *testing.T) {
	conn := &recordConn{}
	s := NewServer(ServerConfig{Conn: conn, Table: TableConfig{Rand: fixedRand{}}})
	h := s.Handler()
	do := func(method, target, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, target, strings.NewReader(body))
		req.RemoteAddr = "198.51.100.7:51000"
		req.Header.Set("Authorization", "Bearer "+testSecret)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	reg := golden(t, "register.json")
	var e Entry
	dec := json.NewDecoder(bytes.NewReader(reg))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil || e.Validate() != nil {
		t.Fatalf("register.json: %v %v", err, e.Validate())
	}
	w := do("POST", PathServers, string(reg))
	if w.Code != http.StatusAccepted {
		t.Fatalf("POST: %d %s", w.Code, w.Body)
	}
	jsonEqual(t, "POST reply", w.Body.Bytes(), golden(t, "registered.json"))
	token := golden(t, "token.hex")
	if len(conn.sent) != 1 || !bytes.Equal(conn.sent[0].B, token) || conn.sent[0].To != netip.MustParseAddrPort("198.51.100.7:4242") {
		t.Fatalf("sent %+v", conn.sent)
	}
	var echo []byte
	if !AnswerToken(testSecret)(token, conn.sent[0].To, func(b []byte, _ netip.AddrPort) error { echo = bytes.Clone(b); return nil }) {
		t.Fatal("the answerer did not take the token")
	}
	if want := golden(t, "echo.hex"); !bytes.Equal(echo, want) || len(echo) > len(token) {
		t.Fatalf("echo % x, want % x", echo, want)
	}
	s.mu.Lock()
	listed := s.t.Echo(s.now(), netip.MustParseAddrPort("198.51.100.7:4242"), echo)
	s.mu.Unlock()
	if !listed {
		t.Fatal("echo.hex did not list the entry")
	}
	w = do("GET", PathServers, "")
	if w.Code != http.StatusOK || w.Header().Get("ETag") == "" {
		t.Fatalf("GET: %d %v", w.Code, w.Header())
	}
	jsonEqual(t, "GET", w.Body.Bytes(), golden(t, "list.json"))
	e.Addr = "203.0.113.9:4242"
	b, _ := json.Marshal(e)
	w = do("POST", PathServers, string(b))
	if w.Code != http.StatusForbidden {
		t.Fatalf("naming another address: %d", w.Code)
	}
	jsonEqual(t, "403 reply", w.Body.Bytes(), golden(t, "error.json"))
}
