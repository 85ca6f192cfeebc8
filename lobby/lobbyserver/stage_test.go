package lobbyserver

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby"
)

// bigStageFile writes a valid stage file whose gzip is several GET_STAGE parts long and returns
// its path.
func bigStageFile(t *testing.T, dir, name string) string {
	t.Helper()
	var waves []string
	kinds := []string{"straight", "sine", "homing", "turret"}
	x := uint32(12345)
	for i := range 600 {
		x = x*1103515245 + 12345 // a few bits of noise so that gzip cannot squeeze it to one part
		waves = append(waves, fmt.Sprintf(`{"at": %d, "kind": %q, "count": %d, "y": %d, "spacing": %d}`,
			i*37+int(x>>20)%30, kinds[int(x>>8)%len(kinds)], 1+int(x>>12)%5, 100+int(x>>4)%800, 20+int(x>>16)%90))
	}
	data := `{"name":"Big","scrollSpeed":240,"sections":[{"at":0,"song":1,"name":"go"}],"waves":[` +
		strings.Join(waves, ",\n") +
		`],"boss":{"at":30000,"kind":"small","hp":10,"song":3,"phases":[{"below":100,"pattern":"aimed","interval":60,"bullets":1,"speed":300,"open":60,"closed":60,"sway":0}]}}`
	p := filepath.Join(dir, name+".json")
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A server that runs a stage file the client does not embed hands it over: the client learns
// its name and hash from the STAGE push, fetches it part by part, checks the hash and parses
// it to the very stage the server plays.
func TestClientFetchesAStageItDoesNotHave(t *testing.T) {
	path := bigStageFile(t, t.TempDir(), "cave")
	cat, err := stagefile.LoadCatalogue(path, game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	srvFile := cat.Default()
	if srvFile.Name != "cave" {
		t.Fatalf("default stage %q, want cave (the file's base name)", srvFile.Name)
	}
	srv, addr := startServer(t, ServerConfig{Stages: cat, Starter: newFakeStarter()})
	if n := len(srv.core.stageParts[srvFile.Hash]); n < 2 {
		t.Fatalf("the test stage has %d GET_STAGE parts, want several", n)
	}
	c, _ := dialClient(t, addr, "alice")
	code, err := c.Join("")
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "STAGE push", func() bool { gc, st := c.Stage(); return gc == code && st.Name != "" })
	_, st := c.Stage()
	if st != (lobby.StageInfo{Name: "cave", Hash: srvFile.Hash}) {
		t.Fatalf("STAGE push %+v, want cave %s", st, srvFile.Hash)
	}
	ss, err := c.Stages()
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != len(cat.Files()) || ss[0] != st {
		t.Fatalf("GET_STAGES = %v, want %d stages, cave first", ss, len(cat.Files()))
	}
	f, err := c.ResolveStage(st.Name, st.Hash, game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(f.Data, srvFile.Data) || f.Hash != srvFile.Hash || !reflect.DeepEqual(f.Script, srvFile.Script) {
		t.Fatalf("fetched stage differs from the server's (%d bytes, hash %s)", len(f.Data), f.Hash)
	}
	// An embedded stage whose hash matches needs no network: same bytes as the embedded file.
	short := cat.ByName("short")
	f2, err := c.ResolveStage("short", short.Hash, game.ParseScript)
	if err != nil || !bytes.Equal(f2.Data, short.Data) {
		t.Fatalf("ResolveStage(short) = %v, %v", f2, err)
	}
	// A hash the server does not offer is a 500.
	_, err = c.FetchStage("0123456789abcdef")
	respErr(t, err, 500)
	if _, err := c.FetchStage("XYZ"); err == nil {
		t.Fatal("FetchStage accepted a malformed hash")
	}
}

// A stage file named like an embedded stage replaces it on that server: clients that embed
// the other file see a different hash and fetch the server's.
func TestStageFileShadowsEmbeddedStage(t *testing.T) {
	path := bigStageFile(t, t.TempDir(), "short")
	cat, err := stagefile.LoadCatalogue(path, game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	_, addr := startServer(t, ServerConfig{Stages: cat})
	c, _ := dialClient(t, addr, "alice")
	ss, err := c.Stages()
	if err != nil {
		t.Fatal(err)
	}
	embedded, err := stagefile.Embedded("short", game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	if ss[0].Name != "short" || ss[0].Hash == embedded.Hash || ss[0].Hash != cat.ByName("short").Hash {
		t.Fatalf("GET_STAGES = %v: want the file's short (%s) first", ss, cat.ByName("short").Hash)
	}
	f, err := c.ResolveStage("short", ss[0].Hash, game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	if game.StageOf(f).Name != "Big" {
		t.Fatalf("resolved %q, want the server's file (Big)", game.StageOf(f).Name)
	}
}

// Stage choice through lobby.Client: create with a stage, owner-only SET_STAGE, STAGE pushes to
// every member, the stage in GET_LOBBIES, in StartGame and in StartInfo.
func TestClientStageChoice(t *testing.T) {
	st := newFakeStarter()
	_, addr := startServer(t, ServerConfig{Starter: st})
	alice, _ := dialClient(t, addr, "alice")
	bob, _ := dialClient(t, addr, "bob")
	_, err := alice.Create("nosuch")
	if re := respErr(t, err, 500); !strings.Contains(re.Reason, `unknown stage "nosuch"`) || !strings.Contains(re.Reason, "short") {
		t.Fatalf("unknown stage reason %q: want the name and the offered stages", re.Reason)
	}
	code, err := alice.Create("short")
	if err != nil {
		t.Fatal(err)
	}
	short, _ := stagefile.Embedded("short", game.ParseScript)
	if ls, _ := bob.Lobbies(); !reflect.DeepEqual(ls, []lobby.LobbyInfo{{Code: code, Players: 1, Running: false, Stage: "short", Difficulty: 0}}) {
		t.Fatalf("Lobbies = %v", ls)
	}
	if _, err := bob.Join(code); err != nil {
		t.Fatal(err)
	}
	for _, c := range []*lobby.Client{alice, bob} {
		eventually(t, "STAGE short", func() bool {
			gc, s := c.Stage()
			return gc == code && s == lobby.StageInfo{Name: "short", Hash: short.Hash}
		})
	}
	respErr(t, bob.SetStage("stage1"), 500) // not the owner
	respErr(t, alice.SetStage("nosuch"), 500)
	if err := alice.SetStage("stage1"); err != nil {
		t.Fatal(err)
	}
	def := lobby.StageInfo{Name: "stage1", Hash: defaultHash(t)}
	for _, c := range []*lobby.Client{alice, bob} {
		eventually(t, "STAGE stage1", func() bool { _, s := c.Stage(); return s == def })
	}
	if err := alice.Start(); err != nil {
		t.Fatal(err)
	}
	call := <-st.ch
	if call.stage != "stage1" {
		t.Fatalf("StartGame stage %q, want stage1", call.stage)
	}
	for _, c := range []*lobby.Client{alice, bob} {
		si, err := c.WaitStart(waitCtx(t))
		if err != nil || si.Stage != def {
			t.Fatalf("WaitStart = %+v, %v; want stage %v", si, err, def)
		}
	}
	respErr(t, alice.SetStage("short"), 500) // running
	if err := bob.Leave(); err != nil {
		t.Fatal(err)
	}
	if gc, s := bob.Stage(); gc != "" || s != (lobby.StageInfo{}) {
		t.Fatalf("Stage after LEAVE = %q %v, want none", gc, s)
	}
	if err := alice.SetStage("short"); err == nil {
		t.Fatal("SET_STAGE accepted in a running lobby")
	}
	respErr(t, bob.SetStage("short"), 500) // not in a lobby
}

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// DecodeStage refuses data that is not gzip, that is corrupt, that decompresses to more than
// stagefile.MaxBytes, or whose hash differs; each error says which.
func TestDecodeStageRejects(t *testing.T) {
	good := []byte(`{"a":1}`)
	h := stagefile.Hash(good)
	if got, err := lobby.DecodeStage(h, gzipped(good)); err != nil || !bytes.Equal(got, good) {
		t.Fatalf("DecodeStage(good) = %q, %v", got, err)
	}
	corrupt := gzipped(good)
	corrupt[len(corrupt)-6] ^= 0xff // CRC-32
	bomb := make([]byte, stagefile.MaxBytes+1)
	for _, tc := range []struct {
		name, hash string
		gz         []byte
		want       string
	}{
		{"not gzip", h, []byte("plain text"), "not gzip"},
		{"corrupt", h, corrupt, "corrupt gzip"},
		{"truncated", h, gzipped(good)[:15], "corrupt gzip"},
		{"too large", stagefile.Hash(bomb), gzipped(bomb), "more than 1048576 bytes"},
		{"hash mismatch", "0123456789abcdef", gzipped(good), "hashes to " + h},
	} {
		_, err := lobby.DecodeStage(tc.hash, tc.gz)
		if !errors.Is(err, lobby.ErrBadStage) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: DecodeStage = %v, want ErrBadStage saying %q", tc.name, err, tc.want)
		}
	}
}

// stageServer is a fake lobby server that answers AUTHENTICATE, then each GET_STAGE part i with
// bodies[i] (a 200).
func stageServer(t *testing.T, bodies ...string) string {
	addr, wait := fakeServer(t, func(nc net.Conn, lr *lobby.LineReader) {
		for {
			l, err := lr.ReadLine()
			if err != nil {
				return
			}
			cmd, _ := lobby.ParseCommand(l)
			i, _ := strconv.Atoi(cmd.Args[1])
			if i >= len(bodies) {
				nc.Write([]byte("500 " + vSrv + " out of range\r\n"))
				continue
			}
			nc.Write([]byte("200 " + vSrv + " " + bodies[i] + "\r\n"))
		}
	})
	t.Cleanup(wait)
	return addr
}

// FetchStage: a malformed part is a protocol violation (connection closed); parts that do not
// add up to the hashed file are ErrBadStage.
func TestFetchStageRejectsBadServers(t *testing.T) {
	good := []byte(`{"a":1}`)
	h := stagefile.Hash(good)
	gz := gzipped(good)
	b64 := base64.StdEncoding.EncodeToString
	half := len(gz) / 2
	for _, tc := range []struct {
		name   string
		bodies []string
		proto  bool
		want   string
	}{
		{"two parts", []string{"2," + b64(gz[:half]), "2," + b64(gz[half:])}, false, ""},
		{"bad base64", []string{"1,not*base64!"}, true, "not standard base64"},
		{"no count", []string{b64(gz)}, true, "not <parts>,<base64>"},
		{"zero parts", []string{"0," + b64(gz)}, true, "is not 1..1024"},
		{"part count changes", []string{"2," + b64(gz[:half]), "3," + b64(gz[half:])}, false, "part 1 says 3 parts"},
		{"not gzip", []string{"1," + b64([]byte("hello"))}, false, "not gzip"},
		{"other file", []string{"1," + b64(gzipped([]byte(`{"b":2}`)))}, false, "hashes to"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := lobby.Dial(waitCtx(t), stageServer(t, tc.bodies...))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := c.Authenticate("a"); err != nil {
				t.Fatal(err)
			}
			got, err := c.FetchStage(h)
			switch {
			case tc.want == "":
				if err != nil || !bytes.Equal(got, good) {
					t.Fatalf("FetchStage = %q, %v; want the file", got, err)
				}
			case tc.proto && (!errors.Is(err, lobby.ErrProtocol) || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("FetchStage = %v, want ErrProtocol saying %q", err, tc.want)
			case !tc.proto && (!errors.Is(err, lobby.ErrBadStage) || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("FetchStage = %v, want ErrBadStage saying %q", err, tc.want)
			}
		})
	}
}

func TestStagesBody(t *testing.T) {
	ss := []lobby.StageInfo{{Name: "stage1", Hash: "0123456789abcdef"}, {Name: "my-cave_2", Hash: "fedcba9876543210"}}
	body := string(lobby.AppendStages(nil, ss))
	if want := "stage1:0123456789abcdef,my-cave_2:fedcba9876543210"; body != want {
		t.Fatalf("AppendStages = %q, want %q", body, want)
	}
	if got, err := lobby.ParseStages(body); err != nil || !reflect.DeepEqual(got, ss) {
		t.Fatalf("ParseStages = %v, %v", got, err)
	}
	for _, bad := range []string{
		"", "stage1", "stage1:0123", "stage1:0123456789ABCDEF", "stage1:0123456789abcdef,",
		"a b:0123456789abcdef", "s:0123456789abcdef,s:fedcba9876543210", ":0123456789abcdef",
	} {
		if got, err := lobby.ParseStages(bad); err == nil {
			t.Errorf("ParseStages(%q) = %v, want an error", bad, got)
		}
	}
	for _, bad := range []string{"", "1", "1,", "01,AAAA", "+1,AAAA", "1025,AAAA", "1,AAA", "1,AA==\n",
		"1," + strings.Repeat("A", base64.StdEncoding.EncodedLen(lobby.StagePartBytes)+4)} {
		if n, gz, err := lobby.ParseStagePart(bad); err == nil {
			t.Errorf("ParseStagePart(%q) = %d, %x; want an error", bad, n, gz)
		}
	}
}
