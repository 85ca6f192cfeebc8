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
	admin := fs.String("admin", "127.0.0.1:9090", "admin address of the running server (its -admin flag)")
	tokenFile := fs.String("admin-token-file", "", "file holding the server's admin token; else the env RTYPE_ADMIN_TOKEN")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: rtype-server broadcast [-admin host:port] TEXT...\n\nPushes TEXT (1..200 characters) to every player connected to the server's lobby.")
		fs.PrintDefaults()
	}
	if err := bindEnv(fs, os.LookupEnv); err != nil {
		fmt.Fprintln(os.Stderr, "rtype-server broadcast:", err)
		return 2
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	text := strings.Join(fs.Args(), " ")
	if text == "" {
		fs.Usage()
		return 2
	}
	tok, err := adminToken(*tokenFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "rtype-server broadcast:", err)
		return 2
	}
	req, err := http.NewRequest(http.MethodPost, "http://"+*admin+"/broadcast", strings.NewReader(text))
	if err != nil {
		fmt.Fprintln(os.Stderr, "rtype-server broadcast:", err)
		return 2
	}
	req.Header.Set("Content-Type", "text/plain; charset=utf-8")
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	hc := &http.Client{Timeout: 10 * time.Second}
	resp, err := hc.Do(req)
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

// adminToken is the admin token: the first line of file when one is given, else the environment
// variable RTYPE_ADMIN_TOKEN ("" when neither is set). A file that is empty or unreadable is an
// error (the operator meant to set one).
func adminToken(file string) (string, error) {
	if file == "" {
		return strings.TrimSpace(os.Getenv("RTYPE_ADMIN_TOKEN")), nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("admin token: %w", err)
	}
	tok, _, _ := strings.Cut(string(b), "\n")
	if tok = strings.TrimSpace(tok); tok == "" {
		return "", fmt.Errorf("admin token file %s is empty", file)
	}
	return tok, nil
}
