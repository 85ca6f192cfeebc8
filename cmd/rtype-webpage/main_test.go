package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	dir := t.TempDir()
	wasm, exec, out := filepath.Join(dir, "c.wasm"), filepath.Join(dir, "wasm_exec.js"), filepath.Join(dir, "web")
	os.WriteFile(wasm, []byte("\x00asm\x01\x00\x00\x00"), 0o644)
	os.WriteFile(exec, []byte("//"), 0o644)
	var so, se bytes.Buffer
	if code := run([]string{"-wasm", wasm, "-wasm-exec", exec, "-out", out, "-version", "v7"}, &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	if !strings.Contains(so.String(), "version v7") {
		t.Errorf("stdout %q", so.String())
	}
	if _, err := os.Stat(filepath.Join(out, "index.html")); err != nil {
		t.Error(err)
	}
	if code := run([]string{"-out", out}, &so, &se); code != 2 {
		t.Errorf("no -wasm: exit %d, want 2", code)
	}
	se.Reset()
	if code := run([]string{"-wasm", exec, "-wasm-exec", exec, "-out", out}, &so, &se); code != 1 || !strings.Contains(se.String(), "not a WebAssembly module") {
		t.Errorf("a js file as the wasm: exit %d, %q", code, se.String())
	}
}
