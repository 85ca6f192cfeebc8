// Command rtype-webpage assembles the browser client's page (`make web` runs it): flags →
// net/webpage.Assemble.
//
//	rtype-webpage -wasm bin/rtype-client.wasm -wasm-exec "$(go env GOROOT)/lib/wasm/wasm_exec.js" -out bin/web [-version V]
//
// Exit status 0 when the page is written, 1 on an error, 2 on bad flags.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/rtype/rtype/game/buildinfo"
	"github.com/rtype/rtype/net/webpage"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rtype-webpage", flag.ContinueOnError)
	fs.SetOutput(stderr)
	wasm := fs.String("wasm", "", "the client built with GOOS=js GOARCH=wasm")
	exec := fs.String("wasm-exec", "", "wasm_exec.js of the Go toolchain that built it ($(go env GOROOT)/lib/wasm/wasm_exec.js)")
	out := fs.String("out", "bin/web", "the web directory to write (the server's -web serves it)")
	version := fs.String("version", buildinfo.Get(), "the version stamped in the page (the client's and the server's)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *wasm == "" || *exec == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "rtype-webpage: -wasm and -wasm-exec are required, and no arguments")
		return 2
	}
	pg, err := webpage.Assemble(*out, *wasm, *exec, *version)
	if err != nil {
		fmt.Fprintln(stderr, "rtype-webpage:", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: %s (%d bytes, %d gzip), %s, %s, version %s\n", *out, pg.Wasm, pg.WasmSize, pg.GzipSize, pg.WasmExec, pg.Script, pg.Version)
	return 0
}
