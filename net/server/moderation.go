package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/lobbyserver"
	"github.com/rtype/rtype/lobby/scores/scoredb"
)

// moderation is the admin address's moderation (docs/HOSTING.md "Moderation"): it lists the
// lobby's players, lobbies and games, kicks, bans and mutes. Bans are kept in the hall of
// fame's database (scoredb, the bans table) when there is one, else in memory only.
type moderation struct {
	srv *lobbyserver.Server
	// store is the database (nil while it is down, or -db off: hasDB tells them apart).
	store func() *scoredb.Store
	hasDB bool
	log   *slog.Logger
	now   func() time.Time
}

func newModeration(srv *lobbyserver.Server, hall *scoredb.Hall, log *slog.Logger) *moderation {
	m := &moderation{srv: srv, log: log, now: time.Now, store: func() *scoredb.Store { return nil }}
	if hall != nil {
		m.store, m.hasDB = hall.Store, true
	}
	return m
}

// errNoDB: the database that keeps the bans is down.
var errNoDB = errors.New("the database is down: the bans cannot be read or kept now")

// loadBans reads the bans from the database and puts them in force (those who are banned and
// connected are expelled). Without a database the bans in force stay.
func (m *moderation) loadBans(ctx context.Context) error {
	if !m.hasDB {
		return nil
	}
	st := m.store()
	if st == nil {
		return errNoDB
	}
	rows, err := st.Bans(ctx, m.now())
	if err != nil {
		return err
	}
	bans := make([]lobbyserver.Ban, 0, len(rows))
	for _, r := range rows {
		b := lobbyserver.Ban{ID: r.ID, Name: r.Name, Reason: r.Reason, Expires: r.Expires}
		if r.Network != "" {
			p, err := netip.ParsePrefix(r.Network)
			if err != nil {
				m.log.Warn("ban with a bad network skipped", "id", r.ID, "network", r.Network)
				continue
			}
			b.Network = p
		}
		bans = append(bans, b)
	}
	n := m.srv.SetBans(bans)
	m.log.Info("bans loaded", "bans", len(bans), "expelled", n)
	return nil
}

// loadBansAtStart loads the bans once the database answers (it may be down at start: the hall
// connects in the background), trying every 5 s until ctx is done.
func (m *moderation) loadBansAtStart(ctx context.Context) {
	if !m.hasDB {
		return
	}
	for {
		err := m.loadBans(ctx)
		if err == nil {
			return
		}
		if !errors.Is(err, errNoDB) {
			m.log.Error("bans not loaded; trying again in 5 s", "err", err)
		}
		t := time.NewTimer(5 * time.Second)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// lobbyJSON is one lobby of GET /lobbies.
type lobbyJSON struct {
	Code       string `json:"code"`
	Players    int    `json:"players"`
	Running    bool   `json:"running"`
	Stage      string `json:"stage"`
	Difficulty string `json:"difficulty"`
}

// banJSON is one ban of GET /bans and of POST /ban's answer.
type banJSON struct {
	ID      string `json:"id,omitempty"`
	Name    string `json:"name,omitempty"`
	Network string `json:"network,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Expires string `json:"expires,omitempty"` // RFC 3339, UTC; none: never
}

func banOut(b lobbyserver.Ban) banJSON {
	j := banJSON{ID: b.ID, Name: b.Name, Reason: b.Reason}
	if b.Network.IsValid() {
		j.Network = b.Network.String()
	}
	if !b.Expires.IsZero() {
		j.Expires = b.Expires.UTC().Format(time.RFC3339)
	}
	return j
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// routes adds the moderation endpoints to mux, each behind auth (the admin token).
func (m *moderation) routes(mux *http.ServeMux, auth func(http.HandlerFunc) http.Handler) {
	mux.Handle("GET /players", auth(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, m.srv.Players())
	}))
	mux.Handle("GET /lobbies", auth(func(w http.ResponseWriter, r *http.Request) {
		out := []lobbyJSON{}
		for _, l := range m.srv.Lobbies() {
			out = append(out, lobbyJSON{Code: l.Code, Players: l.Players, Running: l.Running, Stage: l.Stage, Difficulty: l.Difficulty.String()})
		}
		writeJSON(w, out)
	}))
	mux.Handle("GET /games", auth(func(w http.ResponseWriter, r *http.Request) {
		g := m.srv.Games()
		if g == nil {
			g = []lobbyserver.GameInfo{}
		}
		writeJSON(w, g)
	}))
	mux.Handle("GET /bans", auth(func(w http.ResponseWriter, r *http.Request) {
		out := []banJSON{}
		for _, b := range m.srv.Bans() {
			out = append(out, banOut(b))
		}
		writeJSON(w, out)
	}))
	mux.Handle("POST /kick", auth(func(w http.ResponseWriter, r *http.Request) {
		who, reason := r.FormValue("player"), r.FormValue("reason")
		if who == "" {
			http.Error(w, "give player=NAME or player=USER-UUID", http.StatusBadRequest)
			return
		}
		n := m.srv.Kick(who, reason)
		if n == 0 {
			http.Error(w, fmt.Sprintf("no player %q connected", who), http.StatusNotFound)
			return
		}
		m.log.Info("admin kick", "remote", r.RemoteAddr, "player", who, "reason", reason, "connections", n)
		fmt.Fprintf(w, "kicked %d connections of %s\n", n, who)
	}))
	mux.Handle("POST /ban", auth(m.ban))
	mux.Handle("POST /unban", auth(m.unban))
	for path, on := range map[string]bool{"POST /mute": true, "POST /unmute": false} {
		mux.Handle(path, auth(func(w http.ResponseWriter, r *http.Request) {
			who := r.FormValue("player")
			if !lobby.ValidName(who) {
				http.Error(w, "give player=NAME (1 to 16 characters of A-Z a-z 0-9 _ -)", http.StatusBadRequest)
				return
			}
			n := m.srv.Mute(who, on)
			m.log.Info("admin mute", "remote", r.RemoteAddr, "player", who, "muted", on, "connections", n)
			fmt.Fprintf(w, "%s: muted %v (%d connections now)\n", who, on, n)
		}))
	}
}

// ban is POST /ban: name=NAME or addr=IP|CIDR, optional for=DURATION and reason=TEXT.
func (m *moderation) ban(w http.ResponseWriter, r *http.Request) {
	name, addr, reason := r.FormValue("name"), r.FormValue("addr"), strings.TrimSpace(r.FormValue("reason"))
	b := lobbyserver.Ban{Name: name, Reason: reason}
	switch {
	case (name == "") == (addr == ""):
		http.Error(w, "give name=NAME or addr=IP|CIDR (one of the two)", http.StatusBadRequest)
		return
	case name != "" && !lobby.ValidName(name):
		http.Error(w, "name: 1 to 16 characters of A-Z a-z 0-9 _ -", http.StatusBadRequest)
		return
	case addr != "":
		p, err := parseNetwork(addr)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		b.Network = p
	}
	if len(reason) > 100 {
		http.Error(w, "reason: at most 100 characters", http.StatusBadRequest)
		return
	}
	if f := r.FormValue("for"); f != "" {
		d, err := time.ParseDuration(f)
		if err != nil || d <= 0 {
			http.Error(w, fmt.Sprintf("for=%q: want a positive duration such as 30m or 72h", f), http.StatusBadRequest)
			return
		}
		b.Expires = m.now().Add(d).Truncate(time.Millisecond)
	}
	if m.hasDB {
		st := m.store()
		if st == nil {
			http.Error(w, errNoDB.Error(), http.StatusServiceUnavailable)
			return
		}
		row := scoredb.Ban{Name: b.Name, Reason: b.Reason, Created: m.now(), Expires: b.Expires}
		if b.Network.IsValid() {
			row.Network = b.Network.String()
		}
		stored, err := st.AddBan(r.Context(), row)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		b.ID = stored.ID
	} else {
		b.ID = fmt.Sprintf("mem-%d", m.now().UnixNano())
	}
	n := m.srv.SetBans(append(m.srv.Bans(), b))
	m.log.Info("admin ban", "remote", r.RemoteAddr, "id", b.ID, "name", b.Name, "network", banOut(b).Network, "reason", b.Reason, "expires", banOut(b).Expires, "expelled", n, "kept", m.hasDB)
	writeJSON(w, struct {
		banJSON
		Expelled int  `json:"expelled"`
		Kept     bool `json:"kept"` // in the database (false: -db off, in memory until the restart)
	}{banOut(b), n, m.hasDB})
}

// unban is POST /unban: ban=ID, NAME or NETWORK (every ban that matches).
func (m *moderation) unban(w http.ResponseWriter, r *http.Request) {
	key := r.FormValue("ban")
	if key == "" {
		http.Error(w, "give ban=ID, NAME or IP|CIDR", http.StatusBadRequest)
		return
	}
	if p, err := parseNetwork(key); err == nil {
		key = p.String()
	}
	var keep []lobbyserver.Ban
	removed := 0
	for _, b := range m.srv.Bans() {
		if b.ID == key || strings.EqualFold(b.Name, key) || b.Network.IsValid() && b.Network.String() == key {
			removed++
			continue
		}
		keep = append(keep, b)
	}
	if m.hasDB {
		st := m.store()
		if st == nil {
			http.Error(w, errNoDB.Error(), http.StatusServiceUnavailable)
			return
		}
		n, err := st.RemoveBans(r.Context(), key)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		removed = max(removed, int(n))
	}
	if removed == 0 {
		http.Error(w, fmt.Sprintf("no ban %q", key), http.StatusNotFound)
		return
	}
	m.srv.SetBans(keep)
	m.log.Info("admin unban", "remote", r.RemoteAddr, "ban", key, "removed", removed)
	fmt.Fprintf(w, "removed %d bans\n", removed)
}

// parseNetwork reads an IP address (a network of one address) or a CIDR.
func parseNetwork(s string) (netip.Prefix, error) {
	if a, err := netip.ParseAddr(s); err == nil {
		a = a.Unmap()
		return netip.PrefixFrom(a, a.BitLen()), nil
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("addr %q: want an IP address or a CIDR such as 192.0.2.0/24", s)
	}
	if p.Addr().Is4In6() && p.Bits() >= 96 {
		p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
	}
	return p.Masked(), nil
}
