package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"
)

// health is `rtype-server health`: GET /healthz of a running server's metrics address (its
// -metrics, here from -metrics or the env RTYPE_METRICS, as the server reads it), exit 0 when
// it answers 200 within -timeout, 1 otherwise. A container image without a shell or curl
// (deploy/Dockerfile's HEALTHCHECK) checks the server with its own binary.
func health(args []string) int {
	fs := flag.NewFlagSet("rtype-server health", flag.ContinueOnError)
	addr := fs.String("metrics", "", "metrics address of the running server (its -metrics flag); a host-less :PORT means this machine")
	timeout := fs.Duration("timeout", 3*time.Second, "how long to wait for the answer")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: rtype-server health [-metrics host:port]\n\nExits 0 when the server's GET /healthz answers 200, 1 otherwise.")
		fs.PrintDefaults()
	}
	if err := bindEnv(fs, os.LookupEnv); err != nil {
		fmt.Fprintln(os.Stderr, "rtype-server health:", err)
		return 2
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *addr == "" {
		fmt.Fprintln(os.Stderr, "rtype-server health: no metrics address: pass -metrics (or RTYPE_METRICS) as the server has it")
		return 2
	}
	host, port, err := net.SplitHostPort(*addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "rtype-server health: -metrics %q: %v\n", *addr, err)
		return 2
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	url := "http://" + net.JoinHostPort(host, port) + "/healthz"
	resp, err := (&http.Client{Timeout: *timeout}).Get(url)
	if err != nil {
		fmt.Fprintf(os.Stderr, "rtype-server health: %s: %v\n", url, err)
		return 1
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintf(os.Stderr, "rtype-server health: %s: %s %s\n", url, resp.Status, strings.TrimSpace(string(body)))
		return 1
	}
	return 0
}
