package webpage

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// fakeWasm is a WebAssembly module header and compressible filler.
var fakeWasm = append([]byte("\x00asm\x01\x00\x00\x00"), bytes.Repeat([]byte("rtype wasm "), 4000)...)

// assemble writes a page built from fakeWasm into a temp dir.
func assemble(t *testing.T, version string) (string, Page) {
	t.Helper()
	src := t.TempDir()
	wasm, exec := filepath.Join(src, "c.wasm"), filepath.Join(src, "wasm_exec.js")
	if err := os.WriteFile(wasm, fakeWasm, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exec, []byte("// wasm_exec.js\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "web")
	pg, err := Assemble(out, wasm, exec, version)
	if err != nil {
		t.Fatal(err)
	}
	return out, pg
}

func get(t *testing.T, h http.Handler, method, path string, hdr ...string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func body(t *testing.T, r *http.Response) []byte {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestAssemble(t *testing.T) {
	out, pg := assemble(t, "v1.2.3")
	idx, err := os.ReadFile(filepath.Join(out, Index))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{pg.Wasm, pg.WasmExec, pg.Script, `content="v1.2.3"`, `data-wasm-size="` + itoa(len(fakeWasm)) + `"`} {
		if !bytes.Contains(idx, []byte(want)) {
			t.Errorf("index.html does not contain %q", want)
		}
	}
	if !hashed.MatchString(pg.Wasm) || !strings.HasPrefix(pg.Wasm, "rtype-client.") || !hashed.MatchString(pg.WasmExec) || !hashed.MatchString(pg.Script) {
		t.Errorf("names not content-hashed: %+v", pg)
	}
	gz, err := os.ReadFile(filepath.Join(out, pg.Wasm+".gz"))
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(gz)) != pg.GzipSize || pg.GzipSize >= pg.WasmSize {
		t.Errorf("gzip twin %d bytes, Page says %d, raw %d", len(gz), pg.GzipSize, pg.WasmSize)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	if raw, _ := io.ReadAll(zr); !bytes.Equal(raw, fakeWasm) {
		t.Error("the gzip twin does not decompress to the wasm")
	}
	// A rebuild with another wasm replaces the old hashed files.
	src := t.TempDir()
	other := append(append([]byte(nil), fakeWasm...), 'x')
	os.WriteFile(filepath.Join(src, "c.wasm"), other, 0o644)
	os.WriteFile(filepath.Join(src, "e.js"), []byte("//"), 0o644)
	pg2, err := Assemble(out, filepath.Join(src, "c.wasm"), filepath.Join(src, "e.js"), "v1.2.4")
	if err != nil {
		t.Fatal(err)
	}
	if pg2.Wasm == pg.Wasm {
		t.Fatal("another wasm got the same name")
	}
	if _, err := os.Stat(filepath.Join(out, pg.Wasm)); !os.IsNotExist(err) {
		t.Errorf("the old build's %s is still there (%v)", pg.Wasm, err)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestAssembleRejects(t *testing.T) {
	src := t.TempDir()
	notWasm := filepath.Join(src, "client")
	os.WriteFile(notWasm, []byte("\x7fELF...."), 0o644)
	os.WriteFile(filepath.Join(src, "e.js"), []byte("//"), 0o644)
	if _, err := Assemble(t.TempDir(), notWasm, filepath.Join(src, "e.js"), "v"); err == nil || !strings.Contains(err.Error(), "not a WebAssembly module") {
		t.Errorf("a native binary: err %v", err)
	}
	if _, err := Assemble(t.TempDir(), filepath.Join(src, "missing.wasm"), filepath.Join(src, "e.js"), "v"); err == nil {
		t.Error("a missing wasm: no error")
	}
}

func TestHandlerServesPage(t *testing.T) {
	out, pg := assemble(t, "v1.2.3")
	h := Handler(os.DirFS(out), "v1.2.3")
	if err := Check(os.DirFS(out)); err != nil {
		t.Fatal(err)
	}

	r := get(t, h, "GET", "/")
	if r.StatusCode != 200 || r.Header.Get("Content-Type") != "text/html; charset=utf-8" || r.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("/: %d %q cache %q", r.StatusCode, r.Header.Get("Content-Type"), r.Header.Get("Cache-Control"))
	}
	if csp := r.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "'wasm-unsafe-eval'") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("/: CSP %q", csp)
	}
	if b := body(t, r); !bytes.Contains(b, []byte(pg.Wasm)) {
		t.Error("/ is not the index.html naming the wasm")
	}

	// The wasm: gzip when accepted, the raw bytes otherwise; always application/wasm, immutable.
	r = get(t, h, "GET", "/"+pg.Wasm, "Accept-Encoding", "gzip, deflate, br")
	if r.StatusCode != 200 || r.Header.Get("Content-Encoding") != "gzip" || r.Header.Get("Content-Type") != "application/wasm" {
		t.Fatalf("wasm: %d encoding %q type %q", r.StatusCode, r.Header.Get("Content-Encoding"), r.Header.Get("Content-Type"))
	}
	if cc := r.Header.Get("Cache-Control"); cc != "public, max-age=31536000, immutable" {
		t.Errorf("wasm Cache-Control %q", cc)
	}
	if r.Header.Get("Vary") != "Accept-Encoding" {
		t.Errorf("wasm Vary %q", r.Header.Get("Vary"))
	}
	zr, err := gzip.NewReader(bytes.NewReader(body(t, r)))
	if err != nil {
		t.Fatal(err)
	}
	if raw, _ := io.ReadAll(zr); !bytes.Equal(raw, fakeWasm) {
		t.Error("the gzip-encoded wasm is not the wasm")
	}
	for _, ae := range []string{"", "identity", "gzip;q=0", "deflate"} {
		r = get(t, h, "GET", "/"+pg.Wasm, "Accept-Encoding", ae)
		if r.Header.Get("Content-Encoding") != "" || !bytes.Equal(body(t, r), fakeWasm) || r.Header.Get("Content-Type") != "application/wasm" {
			t.Errorf("Accept-Encoding %q: encoding %q, not the raw wasm", ae, r.Header.Get("Content-Encoding"))
		}
	}
	r = get(t, h, "GET", "/"+pg.WasmExec)
	if r.StatusCode != 200 || r.Header.Get("Content-Type") != "text/javascript; charset=utf-8" || !strings.Contains(r.Header.Get("Cache-Control"), "immutable") {
		t.Errorf("wasm_exec: %d %q %q", r.StatusCode, r.Header.Get("Content-Type"), r.Header.Get("Cache-Control"))
	}

	// HEAD, and a range of the wasm (a resumed download).
	r = get(t, h, "HEAD", "/"+pg.Wasm)
	if r.StatusCode != 200 || r.ContentLength != int64(len(fakeWasm)) {
		t.Errorf("HEAD wasm: %d length %d", r.StatusCode, r.ContentLength)
	}
	r = get(t, h, "GET", "/"+pg.Wasm, "Range", "bytes=0-3")
	if b := body(t, r); r.StatusCode != http.StatusPartialContent || string(b) != "\x00asm" {
		t.Errorf("range: %d %q", r.StatusCode, b)
	}
}

func TestHandlerVersion(t *testing.T) {
	out, _ := assemble(t, "v1.2.3")
	h := Handler(os.DirFS(out), "v2.0.0")
	r := get(t, h, "GET", VersionPath)
	var v Version
	if err := json.Unmarshal(body(t, r), &v); err != nil || v.Version != "v2.0.0" {
		t.Fatalf("version.json: %v %+v", err, v)
	}
	if r.Header.Get("Content-Type") != "application/json" || r.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("version.json headers %v", r.Header)
	}
}

func TestHandlerBrotliFirst(t *testing.T) {
	dir := fstest.MapFS{
		Index:                                   {Data: []byte("<!doctype html>")},
		"rtype-client.0123456789abcdef.wasm":    {Data: fakeWasm},
		"rtype-client.0123456789abcdef.wasm.gz": {Data: []byte("gz")},
		"rtype-client.0123456789abcdef.wasm.br": {Data: []byte("br")},
	}
	h := Handler(dir, "v")
	for _, c := range []struct{ accept, enc, body string }{
		{"gzip, br", "br", "br"}, {"gzip", "gzip", "gz"}, {"br;q=0, gzip", "gzip", "gz"}, {"*", "br", "br"}, {"*;q=0", "", string(fakeWasm)},
	} {
		r := get(t, h, "GET", "/rtype-client.0123456789abcdef.wasm", "Accept-Encoding", c.accept)
		if r.Header.Get("Content-Encoding") != c.enc || string(body(t, r)) != c.body {
			t.Errorf("Accept-Encoding %q: got encoding %q, want %q", c.accept, r.Header.Get("Content-Encoding"), c.enc)
		}
	}
}

func TestHandlerRefuses(t *testing.T) {
	dir := fstest.MapFS{
		Index:          {Data: []byte("<!doctype html>")},
		"a.wasm.gz":    {Data: []byte("twin without its original")},
		".hidden":      {Data: []byte("x")},
		"sub/file.txt": {Data: []byte("x")},
	}
	h := Handler(dir, "v")
	for _, p := range []string{"/a.wasm.gz", "/a.wasm", "/.hidden", "/sub/file.txt", "/sub", "/../etc/passwd", "/nope.js", "//x"} {
		if r := get(t, h, "GET", p, "Accept-Encoding", "gzip"); r.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", p, r.StatusCode)
		}
	}
	for _, m := range []string{"POST", "PUT", "DELETE"} {
		if r := get(t, h, m, "/"); r.StatusCode != http.StatusMethodNotAllowed || r.Header.Get("Allow") != "GET, HEAD" {
			t.Errorf("%s /: %d", m, r.StatusCode)
		}
	}
	// No page built: a clear 503 on the page, and Check says how to build it.
	empty := fstest.MapFS{}
	if r := get(t, Handler(empty, "v"), "GET", "/"); r.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body(t, r)), "make web") {
		t.Errorf("no page: %d", r.StatusCode)
	}
	if err := Check(empty); err == nil || !strings.Contains(err.Error(), "make web") {
		t.Errorf("Check of an empty dir: %v", err)
	}
}

func TestAccepts(t *testing.T) {
	for _, c := range []struct {
		header, token string
		want          bool
	}{
		{"gzip", "gzip", true}, {"GZIP", "gzip", true}, {"deflate, gzip;q=0.5", "gzip", true}, {"gzip;q=0", "gzip", false},
		{"gzip; q=0.000", "gzip", false}, {"gzip;q=bad", "gzip", false}, {"*", "br", true}, {"*;q=0", "br", false},
		{"br;q=0, *", "br", false}, {"", "gzip", false}, {"gzipx", "gzip", false},
	} {
		if got := accepts(c.header, c.token); got != c.want {
			t.Errorf("accepts(%q, %q) = %v", c.header, c.token, got)
		}
	}
}
