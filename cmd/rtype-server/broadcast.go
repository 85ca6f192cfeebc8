package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// broadcast is `rtype-server broadcast [-admin host:port] TEXT...`: it posts TEXT to the admin
// address of a running server, which pushes it to every lobby connection (BROADCAST,
// docs/PROTOCOL.md §2.5.6). It returns the exit status.
func broadcast(args []string) int {
	fs := flag.NewFlagSet("rtype-server broadcast", flag.ContinueOnError)
	admin := fs.String("admin", env("RTYPE_ADMIN", "127.0.0.1:9090"), "admin address of the running server (its -admin flag) (env RTYPE_ADMIN)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: rtype-server broadcast [-admin host:port] TEXT...\n\nPushes TEXT (1..200 characters) to every player connected to the server's lobby.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	text := strings.Join(fs.Args(), " ")
	if text == "" {
		fs.Usage()
		return 2
	}
	hc := &http.Client{Timeout: 10 * time.Second}
	resp, err := hc.Post("http://"+*admin+"/broadcast", "text/plain; charset=utf-8", strings.NewReader(text))
	if err != nil {
		fmt.Fprintf(os.Stderr, "rtype-server broadcast: no server admin address at %s (start the server with -admin %s): %v\n", *admin, *admin, err)
		return 1
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintf(os.Stderr, "rtype-server broadcast: %s: %s", resp.Status, body)
		return 1
	}
	fmt.Print(string(body))
	return 0
}
