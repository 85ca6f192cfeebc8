package serverlist

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// LeaveTimeout bounds a game server's leaving its lists when it stops (DELETE).
const LeaveTimeout = 3 * time.Second

// ChangeEvery is how often, at most, a game server refreshes its registration because its
// players or lobbies changed.
const ChangeEvery = time.Second

// NewSecret is a fresh registration secret: 32 hexadecimal characters of crypto/rand.
func NewSecret() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// AnnounceConfig configures a game server's registration with its lists.
type AnnounceConfig struct {
	// Lists are the list servers' base URLs (-list).
	Lists []string
	// Secret is the registration's bearer token, the key its echoes are made with (AnswerToken
	// must answer with the same); NewSecret.
	Secret string
	// Entry is the server's entry now; Announce calls it from several goroutines, about once a
	// second per list.
	Entry func() Entry
	// Client makes the requests (nil: a client with a 10 s timeout).
	Client *http.Client
	// Interval is how often the registration is refreshed (0: RefreshInterval).
	Interval time.Duration
	Logger   *slog.Logger
}

// Announce registers the entry with every list, refreshes it every Interval and, looked at once a
// second (ChangeEvery), whenever its players or lobbies changed; a list that fails is tried again
// within 5 s. When ctx ends it leaves every list it registered with (DELETE, within LeaveTimeout)
// and returns.
func Announce(ctx context.Context, cfg AnnounceConfig) {
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: 10 * time.Second}
	}
	if cfg.Interval <= 0 {
		cfg.Interval = RefreshInterval
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	var wg sync.WaitGroup
	for _, u := range cfg.Lists {
		wg.Go(func() { announceOne(ctx, cfg, ListURL(u)) })
	}
	wg.Wait()
}

func announceOne(ctx context.Context, cfg AnnounceConfig, u string) {
	log := cfg.Logger.With("list", u)
	retry := min(cfg.Interval, 5*time.Second)
	var last Entry
	var lastAt time.Time
	var lastErr, listedAs string
	registered, ok := false, false
	tick := time.NewTicker(ChangeEvery)
	defer tick.Stop()
	for {
		e := cfg.Entry()
		due := cfg.Interval
		if !ok {
			due = retry
		}
		if lastAt.IsZero() || time.Since(lastAt) >= due || (ok && (e.Players != last.Players || e.Lobbies != last.Lobbies)) {
			reg, err := post(ctx, cfg, u, e)
			lastAt, last = time.Now(), e
			switch {
			case err != nil && ctx.Err() != nil:
			case err != nil:
				ok = false
				if err.Error() != lastErr {
					log.Warn("server list registration failed", "err", err)
					lastErr = err.Error()
				}
			default:
				if !registered || lastErr != "" {
					log.Info("registered with the server list", "status", reg.Status, "addr", reg.Addr, "expires_in", reg.ExpiresIn)
				}
				registered, ok, lastErr, listedAs = true, true, "", reg.Addr
			}
		}
		select {
		case <-ctx.Done():
			if registered {
				if listedAs == "" {
					listedAs = last.Addr
				}
				leave(cfg, u, listedAs, log)
			}
			return
		case <-tick.C:
		}
	}
}

func post(ctx context.Context, cfg AnnounceConfig, u string, e Entry) (Registration, error) {
	body, err := json.Marshal(e)
	if err != nil {
		return Registration{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return Registration{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+cfg.Secret)
	resp, err := cfg.Client.Do(req)
	if err != nil {
		return Registration{}, err
	}
	defer resp.Body.Close()
	var r Registration
	derr := json.NewDecoder(io.LimitReader(resp.Body, MaxBody)).Decode(&r)
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusAccepted {
		if derr == nil && r.Error != "" {
			return r, fmt.Errorf("%s: %s", resp.Status, r.Error)
		}
		return r, fmt.Errorf("%s", resp.Status)
	}
	return r, derr
}

func leave(cfg AnnounceConfig, u, addr string, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), LeaveTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, u+"/"+url.PathEscape(addr), nil)
	if err != nil {
		return
	}
	req.Header.Set("Authorization", "Bearer "+cfg.Secret)
	resp, err := cfg.Client.Do(req)
	if err != nil {
		log.Warn("could not leave the server list", "err", err)
		return
	}
	resp.Body.Close()
	log.Info("left the server list", "status", resp.Status)
}
