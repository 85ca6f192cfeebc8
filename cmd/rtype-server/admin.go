package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// adminUsage lists the `rtype-server admin` commands (docs/HOSTING.md "Moderation").
const adminUsage = `usage: rtype-server admin [-admin host:port] [-admin-token-file FILE] COMMAND [ARGS]

Moderates the running server through its admin address (with the admin token):
  players                          list the open lobby connections (JSON)
  lobbies                          list the lobbies (JSON)
  games                            list the running games (JSON)
  bans                             list the bans in force (JSON)
  kick [-reason R] PLAYER          close PLAYER's connections (a name or a user UUID), telling why
  ban [-for 72h] [-reason R] NAME  ban a player name
  ban -addr IP|CIDR [-for D] [-reason R]
                                   ban an address or a network
  unban ID|NAME|CIDR               remove the bans that match
  mute NAME / unmute NAME          stop / allow again that player's chat
`

// admin is `rtype-server admin ...`; it returns the exit status.
func admin(args []string) int {
	fs := flag.NewFlagSet("rtype-server admin", flag.ContinueOnError)
	addr := fs.String("admin", "127.0.0.1:9090", "admin address of the running server (its -admin flag)")
	tokenFile := fs.String("admin-token-file", "", "file holding the server's admin token; else the env RTYPE_ADMIN_TOKEN")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), adminUsage)
		fs.PrintDefaults()
	}
	if err := bindEnv(fs, os.LookupEnv); err != nil {
		fmt.Fprintln(os.Stderr, "rtype-server admin:", err)
		return 2
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	cmd, rest := fs.Arg(0), fs.Args()[1:]
	method, path, form, err := adminRequest(cmd, rest)
	if err != nil {
		fmt.Fprintf(os.Stderr, "rtype-server admin %s: %v\n", cmd, err)
		return 2
	}
	tok, err := adminToken(*tokenFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "rtype-server admin:", err)
		return 2
	}
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, "http://"+*addr+path, body)
	if err != nil {
		fmt.Fprintln(os.Stderr, "rtype-server admin:", err)
		return 2
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		fmt.Fprintf(os.Stderr, "rtype-server admin: no server admin address at %s (start the server with -admin %s): %v\n", *addr, *addr, err)
		return 1
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintf(os.Stderr, "rtype-server admin %s: %s: %s", cmd, resp.Status, out)
		return 1
	}
	fmt.Print(string(out))
	return 0
}

// adminRequest is the HTTP request of admin command cmd with its arguments.
func adminRequest(cmd string, args []string) (method, path string, form url.Values, err error) {
	sub := flag.NewFlagSet("rtype-server admin "+cmd, flag.ContinueOnError)
	sub.SetOutput(io.Discard)
	reason := sub.String("reason", "", "why (told to the player)")
	dur := sub.String("for", "", "how long the ban lasts, e.g. 30m or 72h; none: for ever")
	addr := sub.String("addr", "", "ban this IP address or CIDR instead of a name")
	if err := sub.Parse(args); err != nil {
		return "", "", nil, err
	}
	one := func(what string) (string, error) {
		if sub.NArg() != 1 {
			return "", fmt.Errorf("give %s (one argument)", what)
		}
		return sub.Arg(0), nil
	}
	switch cmd {
	case "players", "lobbies", "games", "bans":
		if len(args) > 0 {
			return "", "", nil, fmt.Errorf("takes no arguments")
		}
		return http.MethodGet, "/" + cmd, nil, nil
	case "kick":
		p, err := one("the player's name or user UUID")
		return http.MethodPost, "/kick", url.Values{"player": {p}, "reason": {*reason}}, err
	case "ban":
		f := url.Values{"reason": {*reason}, "for": {*dur}}
		if *addr != "" {
			if sub.NArg() > 0 {
				return "", "", nil, fmt.Errorf("-addr bans a network: no name too")
			}
			f.Set("addr", *addr)
			return http.MethodPost, "/ban", f, nil
		}
		n, err := one("the player's name, or -addr IP|CIDR")
		f.Set("name", n)
		return http.MethodPost, "/ban", f, err
	case "unban":
		k, err := one("the ban's id, name or network")
		return http.MethodPost, "/unban", url.Values{"ban": {k}}, err
	case "mute", "unmute":
		n, err := one("the player's name")
		return http.MethodPost, "/" + cmd, url.Values{"player": {n}}, err
	}
	return "", "", nil, fmt.Errorf("unknown command (see rtype-server admin -h)")
}
