package serverlist

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// recorder is an in-memory list server: it answers every registration "listed" and records
// the requests with their (virtual) times.
type recorder struct {
	mu   sync.Mutex
	reqs []string // "POST players=N" or "DELETE path"
	at   []time.Duration
	t0   time.Time
	down atomic.Bool
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if r.down.Load() {
		return nil, io.ErrUnexpectedEOF
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if req.Header.Get("Authorization") != "Bearer "+testSecret {
		return &http.Response{StatusCode: 403, Body: io.NopCloser(strings.NewReader("{}")), Request: req}, nil
	}
	line := req.Method + " " + req.URL.Path
	if req.Method == http.MethodPost {
		var e Entry
		json.NewDecoder(req.Body).Decode(&e)
		line = "POST players=" + itoa(e.Players)
	}
	r.reqs = append(r.reqs, line)
	r.at = append(r.at, time.Since(r.t0))
	body := `{"status":"listed","addr":"198.51.100.7:4242","expires_in":60}`
	return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader(body)), Request: req, Header: http.Header{}}, nil
}

// TestAnnounce (virtual time): a game server registers at once, refreshes every
// RefreshInterval, refreshes when its players change but at most once per ChangeEvery, and
// leaves (DELETE of the address the list gave) when it stops.
func TestAnnounce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{t0: time.Now()}
		var players atomic.Int64
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			Announce(ctx, AnnounceConfig{Lists: []string{"https://list.example.org"}, Secret: testSecret, Client: &http.Client{Transport: rec}, Logger: slog.New(slog.DiscardHandler),
				Entry: func() Entry { e := testEntry(":4242", 4242); e.Players = int(players.Load()); return e }})
		}()
		time.Sleep(45 * time.Second) // two refreshes
		synctest.Wait()
		// ten changes within 100 ms: at most two refreshes in the next seconds
		for i := range 10 {
			players.Store(int64(i + 1))
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(3 * time.Second)
		cancel()
		<-done
		rec.mu.Lock()
		defer rec.mu.Unlock()
		got := strings.Join(rec.reqs, ", ")
		if !strings.HasPrefix(got, "POST players=0, POST players=0, POST players=0, POST players=") || !strings.HasSuffix(got, "POST players=10, DELETE /servers/198.51.100.7:4242") {
			t.Fatalf("requests: %s", got)
		}
		if rec.at[0] != 0 || rec.at[1] != RefreshInterval || rec.at[2] != 2*RefreshInterval {
			t.Fatalf("refresh times %v", rec.at)
		}
		changes := len(rec.reqs) - 4
		if changes < 1 || changes > 2 {
			t.Fatalf("%d refreshes for ten changes within 100 ms: %s", changes, got)
		}
		for i := 4; i < len(rec.at)-1; i++ {
			if rec.at[i]-rec.at[i-1] < ChangeEvery {
				t.Fatalf("refreshes %v apart: %v", rec.at[i]-rec.at[i-1], rec.at)
			}
		}
	})
}
