// Temporary: replaced by the list branch at merge (delete this file then: the list branch's
// entry.go and fetch.go declare the same names). The browse branch needs only Entry and Fetch,
// with the signatures agreed for issue 33, to compile and to run its screenshots.

// Package serverlist is the public server list (temporary copy of its client side).
package serverlist

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// Entry is one server as a list server lists it (docs/PROTOCOL.md §list).
type Entry struct {
	Name      string   `json:"name"`
	MOTD      string   `json:"motd,omitempty"`
	Addr      string   `json:"addr"`
	QueryPort int      `json:"query_port"`
	Version   string   `json:"version"`
	Protocol  int      `json:"protocol"`
	Players   int      `json:"players"`
	Capacity  int      `json:"capacity"`
	Lobbies   int      `json:"lobbies"`
	Stages    []string `json:"stages"`
	Password  bool     `json:"password"`
	Region    string   `json:"region,omitempty"`
	Fleet     bool     `json:"fleet"`
}

// Fetch reads every list in urls and returns their entries merged, deduplicated by Addr, and one
// error per list that did not answer (temporary copy).
func Fetch(ctx context.Context, c *http.Client, urls []string) ([]Entry, []error) {
	if c == nil {
		c = http.DefaultClient
	}
	lists := make([][]Entry, len(urls))
	errs := make([]error, len(urls))
	var wg sync.WaitGroup
	for i, u := range urls {
		wg.Go(func() {
			u = strings.TrimRight(u, "/")
			if !strings.HasSuffix(u, "/servers") {
				u += "/servers"
			}
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
			if err != nil {
				errs[i] = err
				return
			}
			resp, err := c.Do(req)
			if err != nil {
				errs[i] = fmt.Errorf("list %s: %w", u, err)
				return
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				errs[i] = fmt.Errorf("list %s: %s", u, resp.Status)
				return
			}
			var l struct {
				Servers []Entry `json:"servers"`
			}
			if err := json.NewDecoder(io.LimitReader(resp.Body, 32<<20)).Decode(&l); err != nil {
				errs[i] = fmt.Errorf("list %s: %w", u, err)
				return
			}
			lists[i] = l.Servers
		})
	}
	wg.Wait()
	var out []Entry
	var failed []error
	seen := map[string]bool{}
	for i := range urls {
		if errs[i] != nil {
			failed = append(failed, errs[i])
			continue
		}
		for _, e := range lists[i] {
			if !seen[e.Addr] {
				seen[e.Addr] = true
				out = append(out, e)
			}
		}
	}
	return out, failed
}
