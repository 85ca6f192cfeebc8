// Package webpage is the browser client's page: Assemble writes the web directory (`make web`:
// bin/web/) from the client's js/wasm build and the Go toolchain's wasm_exec.js, and Handler
// serves such a directory over HTTP (the server's -web address mounts it at "/").
//
// The directory holds index.html (no-cache: it names the others), the client's .wasm under a
// content-hashed name with its gzip (and, where the Debian `brotli` tool made one, brotli)
// twin beside it, wasm_exec.js and the page's script, both content-hashed too: a hashed name
// never changes meaning, so it is served immutable for a year, and a new build is a new
// index.html naming new files. Handler serves a compressed twin with Content-Encoding when the
// request accepts it, the .wasm as application/wasm (what WebAssembly.instantiateStreaming
// needs), and /version.json, the server's version: the page compares it with the version it
// was built from (index.html's <meta name="rtype-version">) and says so when they differ.
package webpage

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Index is the page's entry file, VersionPath the path of the server's version answer.
const (
	Index       = "index.html"
	VersionPath = "/version.json"
)

// MaxAge is how long a browser keeps a content-hashed file (a year, the longest HTTP caches honour).
const MaxAge = 365 * 24 * time.Hour

// hashed matches a content-hashed name: base.<16 hex digits>.ext.
var hashed = regexp.MustCompile(`\.[0-9a-f]{16}\.[a-z]+$`)

// Version is the body of /version.json.
type Version struct {
	Version string `json:"version"`
}

// CSP is the page's Content-Security-Policy: its own scripts and the wasm they compile, its own
// origin for fetch and the WebSocket lobby, no frames around it.
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval' blob:; worker-src 'self' blob:; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data: blob:; connect-src 'self'; media-src 'self' blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

// encodings are the compressed twins Handler looks for, best first: name+suffix.
var encodings = []struct{ token, suffix string }{{"br", ".br"}, {"gzip", ".gz"}}

// Check reports whether dir holds a page: an index.html. The server calls it at start, so that
// a -web address without a built page is a clear error, not a 503 on the first visit.
func Check(dir fs.FS) error {
	if _, err := fs.Stat(dir, Index); err != nil {
		return fmt.Errorf("webpage: no %s in the web directory (build it with `make web`): %w", Index, err)
	}
	return nil
}

// Handler serves the web directory dir (see the package comment) and /version.json saying
// version. Only GET and HEAD; no directory listings; paths outside dir are 404.
func Handler(dir fs.FS, version string) http.Handler {
	vj, _ := json.Marshal(Version{Version: version})
	vj = append(vj, '\n')
	return &handler{dir: dir, version: vj}
}

type handler struct {
	dir     fs.FS
	version []byte
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	hd := w.Header()
	hd.Set("X-Content-Type-Options", "nosniff")
	p := r.URL.Path
	if p == VersionPath {
		hd.Set("Content-Type", "application/json")
		hd.Set("Cache-Control", "no-store")
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(h.version))
		return
	}
	name := strings.TrimPrefix(p, "/")
	if name == "" {
		name = Index
	}
	// One level: the page is a flat directory. Compressed twins are not asked for by name.
	if !fs.ValidPath(name) || strings.Contains(name, "/") || strings.HasPrefix(name, ".") ||
		strings.HasSuffix(name, ".gz") || strings.HasSuffix(name, ".br") {
		http.NotFound(w, r)
		return
	}
	ctype := contentType(name)
	switch {
	case name == Index:
		hd.Set("Cache-Control", "no-cache")
		hd.Set("Content-Security-Policy", CSP)
		hd.Set("Referrer-Policy", "no-referrer")
	case hashed.MatchString(name):
		hd.Set("Cache-Control", "public, max-age="+strconv.Itoa(int(MaxAge/time.Second))+", immutable")
	default:
		hd.Set("Cache-Control", "no-cache")
	}
	f, enc, err := h.open(name, r.Header.Get("Accept-Encoding"))
	if err != nil {
		if name == Index {
			http.Error(w, "The browser client is not built on this server (make web).", http.StatusServiceUnavailable)
			return
		}
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.IsDir() {
		http.NotFound(w, r)
		return
	}
	hd.Add("Vary", "Accept-Encoding")
	if enc != "" {
		hd.Set("Content-Encoding", enc)
	}
	hd.Set("Content-Type", ctype)
	rs, ok := f.(io.ReadSeeker)
	if !ok {
		b, err := io.ReadAll(f)
		if err != nil {
			http.Error(w, "read error", http.StatusInternalServerError)
			return
		}
		rs = bytes.NewReader(b)
	}
	// ServeContent answers Range and If-Modified-Since; the encoded twin is its own
	// representation (Vary), so a range of it is a range of the compressed bytes.
	http.ServeContent(w, r, "", st.ModTime(), rs)
}

// open opens name's best compressed twin the Accept-Encoding header allows, else name.
func (h *handler) open(name, accept string) (fs.File, string, error) {
	for _, e := range encodings {
		if !accepts(accept, e.token) {
			continue
		}
		if f, err := h.dir.Open(name + e.suffix); err == nil {
			if _, err := fs.Stat(h.dir, name); err == nil { // a twin is served only beside its original
				return f, e.token, nil
			}
			f.Close()
		}
	}
	f, err := h.dir.Open(name)
	return f, "", err
}

// accepts reports whether an Accept-Encoding header value allows token (RFC 9110 §12.5.3: a
// listed token or "*" with a q-value above 0).
func accepts(header, token string) bool {
	star := false
	for _, part := range strings.Split(header, ",") {
		enc, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		enc = strings.ToLower(strings.TrimSpace(enc))
		q := 1.0
		for _, p := range strings.Split(params, ";") {
			k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
			if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
				if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
					q = f
				} else {
					q = 0
				}
			}
		}
		switch enc {
		case token:
			return q > 0
		case "*":
			star = q > 0
		}
	}
	return star
}

// contentType is the Content-Type of a page file by its extension.
func contentType(name string) string {
	switch path.Ext(name) {
	case ".html":
		return "text/html; charset=utf-8"
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".wasm":
		return "application/wasm"
	case ".json":
		return "application/json"
	case ".css":
		return "text/css; charset=utf-8"
	}
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return "application/octet-stream"
}

//go:embed page
var pageFS embed.FS

// Page is what Assemble wrote: the hashed names index.html refers to and the sizes a host
// wants to know (docs/BENCHMARKS.md's download size).
type Page struct {
	Version  string
	Wasm     string // rtype-client.<hash>.wasm
	WasmExec string // wasm_exec.<hash>.js
	Script   string // rtype.<hash>.js
	WasmSize int64  // raw .wasm bytes
	GzipSize int64  // its gzip twin
}

// Assemble writes the page into out (created; files of an older build are removed): the
// client's wasm (read from wasmPath) under a hashed name with its gzip twin, wasmExecPath (the
// wasm_exec.js of the toolchain that built it: the two must match) and the page's script under
// hashed names, and index.html naming them, stamped with version.
func Assemble(out, wasmPath, wasmExecPath, version string) (Page, error) {
	pg := Page{Version: version}
	wasm, err := os.ReadFile(wasmPath)
	if err != nil {
		return pg, fmt.Errorf("webpage: the client's wasm: %w", err)
	}
	if !bytes.HasPrefix(wasm, []byte("\x00asm")) {
		return pg, fmt.Errorf("webpage: %s is not a WebAssembly module (build it with GOOS=js GOARCH=wasm)", wasmPath)
	}
	exec, err := os.ReadFile(wasmExecPath)
	if err != nil {
		return pg, fmt.Errorf("webpage: wasm_exec.js: %w", err)
	}
	script, err := pageFS.ReadFile("page/rtype.js")
	if err != nil {
		return pg, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return pg, fmt.Errorf("webpage: %w", err)
	}
	if ents, err := os.ReadDir(out); err == nil { // an older build's hashed files
		for _, e := range ents {
			if !e.IsDir() {
				os.Remove(filepath.Join(out, e.Name()))
			}
		}
	}
	pg.Wasm = HashedName("rtype-client", ".wasm", wasm)
	pg.WasmExec = HashedName("wasm_exec", ".js", exec)
	pg.Script = HashedName("rtype", ".js", script)
	pg.WasmSize = int64(len(wasm))
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(wasm)
	if err := zw.Close(); err != nil {
		return pg, err
	}
	pg.GzipSize = int64(gz.Len())
	tmpl, err := template.ParseFS(pageFS, "page/index.html")
	if err != nil {
		return pg, err
	}
	var idx bytes.Buffer
	if err := tmpl.Execute(&idx, pg); err != nil {
		return pg, fmt.Errorf("webpage: index.html: %w", err)
	}
	files := []struct {
		name string
		b    []byte
	}{
		{pg.Wasm, wasm}, {pg.Wasm + ".gz", gz.Bytes()}, {pg.WasmExec, exec}, {pg.Script, script},
		{Index, idx.Bytes()}, // last: a page never names files not there yet
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(out, f.name), f.b, 0o644); err != nil {
			return pg, fmt.Errorf("webpage: %w", err)
		}
	}
	return pg, nil
}

// HashedName is base.<first 16 hex digits of b's SHA-256>ext.
func HashedName(base, ext string, b []byte) string {
	s := sha256.Sum256(b)
	return base + "." + hex.EncodeToString(s[:8]) + ext
}
