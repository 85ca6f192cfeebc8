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

// ListURL is the list's address from a list server's base URL: "https://list.example.org"
// and "https://list.example.org/" are "https://list.example.org/servers"; a URL that already
// ends in /servers is kept.
func ListURL(base string) string {
	base = strings.TrimRight(base, "/")
	if strings.HasSuffix(base, PathServers) {
		return base
	}
	return base + PathServers
}

// Fetch reads the list of every list server in urls (base URLs, ListURL) at once and returns
// their entries merged and deduplicated by Addr (the first list in urls that has an address
// wins), and one error per list that did not answer with a list. An entry that is not valid
// (Validate) or has no host is left out: a client does not trust a list server either.
func Fetch(ctx context.Context, c *http.Client, urls []string) ([]Entry, []error) {
	if c == nil {
		c = http.DefaultClient
	}
	lists := make([][]Entry, len(urls))
	errs := make([]error, len(urls))
	var wg sync.WaitGroup
	for i, u := range urls {
		wg.Go(func() { lists[i], errs[i] = fetchOne(ctx, c, ListURL(u)) })
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
			if seen[e.Addr] {
				continue
			}
			seen[e.Addr] = true
			out = append(out, e)
		}
	}
	return out, failed
}

func fetchOne(ctx context.Context, c *http.Client, u string) ([]Entry, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", u, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		return nil, fmt.Errorf("list %s: %s", u, resp.Status)
	}
	var l List
	if err := json.NewDecoder(io.LimitReader(resp.Body, MaxListBody)).Decode(&l); err != nil {
		return nil, fmt.Errorf("list %s: not a server list: %w", u, err)
	}
	out := l.Servers[:0]
	for _, e := range l.Servers {
		if e.Validate() != nil {
			continue
		}
		if h, _, _ := SplitAddr(e.Addr); !h.IsValid() || h.IsUnspecified() {
			continue
		}
		out = append(out, e)
	}
	return out, nil
}
