package load

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rtype/rtype/net/serverlist"
)

// ListFloodConfig is a flood of a list server (rtype-load -list-flood; docs/BENCHMARKS.md
// "Server list"): Fakes fake registrations from Source, then Reads list reads per second for
// Duration spread over Addrs source addresses counting up from Source.
type ListFloodConfig struct {
	URL       string // the list server's base URL
	Reads     int    // per second
	Fakes     int
	Source    netip.Addr // invalid: the system's choice, one address
	Addrs     int
	Duration  time.Duration
	ServerPID int // the list server's pid: its CPU and RSS are read (Linux)
	Workers   int // requests in flight at most (0: 128)
}

// ListFloodReport is what a list flood measured.
type ListFloodReport struct {
	Fakes         int     `json:"fakes"`
	FakesAccepted int     `json:"fakes_accepted"` // 202: a slot and a token
	Reads         int     `json:"reads"`          // sent
	Skipped       int     `json:"skipped"`        // not sent: every worker busy (the generator's limit)
	Read200       int     `json:"read_200"`
	Read429       int     `json:"read_429"`
	ReadErrors    int     `json:"read_errors"`
	ReadsPerSec   float64 `json:"reads_per_s"`
	ServerCPU     float64 `json:"server_cpu_percent"` // of one core, over the read window
	RSSBeforeMB   float64 `json:"server_rss_before_mb"`
	RSSAfterMB    float64 `json:"server_rss_after_mb"`
	Listed        int     `json:"listed_after"` // entries a fresh reader gets at the end
}

// ListFlood floods the list server as configured.
func ListFlood(ctx context.Context, cfg ListFloodConfig) (ListFloodReport, error) {
	var rep ListFloodReport
	if cfg.Addrs < 1 {
		cfg.Addrs = 1
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 128
	}
	clients := make([]*http.Client, cfg.Addrs)
	for i := range clients {
		d := &net.Dialer{Timeout: 5 * time.Second}
		if cfg.Source.IsValid() {
			a := cfg.Source
			for range i {
				a = a.Next()
			}
			d.LocalAddr = &net.TCPAddr{IP: a.AsSlice()}
		}
		tr := &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: cfg.Workers, IdleConnTimeout: time.Minute}
		clients[i] = &http.Client{Transport: tr, Timeout: 10 * time.Second}
	}
	list := serverlist.ListURL(cfg.URL)
	if cfg.ServerPID > 0 {
		if r, err := rssBytes(cfg.ServerPID); err == nil {
			rep.RSSBeforeMB = float64(r) / 1e6
		}
	}
	for i := range cfg.Fakes {
		e := serverlist.Entry{Name: "fake " + strconv.Itoa(i), Addr: ":" + strconv.Itoa(1024+i%60000), QueryPort: 1024 + i%60000, Version: "x", Protocol: 4, Stages: []string{"stage1"}}
		body, _ := json.Marshal(e)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, list, bytes.NewReader(body))
		if err != nil {
			return rep, err
		}
		req.Header.Set("Authorization", "Bearer "+serverlist.NewSecret())
		resp, err := clients[0].Do(req)
		rep.Fakes++
		if err != nil {
			continue
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusAccepted {
			rep.FakesAccepted++
		}
	}
	var ok, limited, failed atomic.Int64
	jobs := make(chan int, cfg.Workers)
	var wg sync.WaitGroup
	for range cfg.Workers {
		wg.Go(func() {
			for i := range jobs {
				resp, err := clients[i%len(clients)].Get(list)
				if err != nil {
					failed.Add(1)
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				switch resp.StatusCode {
				case http.StatusOK:
					ok.Add(1)
				case http.StatusTooManyRequests:
					limited.Add(1)
				default:
					failed.Add(1)
				}
			}
		})
	}
	cpu0, _ := cpuSeconds(cfg.ServerPID)
	start := time.Now()
	tick := time.NewTicker(time.Millisecond)
	sent := 0
	for now := start; now.Sub(start) < cfg.Duration && ctx.Err() == nil; now = <-tick.C {
		due := int(float64(cfg.Reads) * now.Sub(start).Seconds())
		for sent+rep.Skipped < due {
			select {
			case jobs <- sent:
				sent++
			default:
				rep.Skipped++
			}
		}
	}
	tick.Stop()
	close(jobs)
	wg.Wait()
	el := time.Since(start).Seconds()
	cpu1, _ := cpuSeconds(cfg.ServerPID)
	rep.Reads, rep.Read200, rep.Read429, rep.ReadErrors = sent, int(ok.Load()), int(limited.Load()), int(failed.Load())
	rep.ReadsPerSec = float64(sent) / el
	if cfg.ServerPID > 0 {
		rep.ServerCPU = 100 * (cpu1 - cpu0) / el
		if r, err := rssBytes(cfg.ServerPID); err == nil {
			rep.RSSAfterMB = float64(r) / 1e6
		}
	}
	// a fresh reader (the next address up) sees the real servers
	fresh := &http.Client{Timeout: 10 * time.Second}
	if cfg.Source.IsValid() {
		a := cfg.Source
		for range cfg.Addrs {
			a = a.Next()
		}
		fresh.Transport = &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: a.AsSlice()}}).DialContext}
	}
	l, errs := serverlist.Fetch(ctx, fresh, []string{cfg.URL})
	if len(errs) > 0 {
		return rep, fmt.Errorf("the list after the flood: %v", errs[0])
	}
	rep.Listed = len(l)
	return rep, nil
}
