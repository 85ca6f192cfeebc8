package serverlist

import (
	"crypto/rand"
	"errors"
	"io"
	"net/netip"
	"slices"
	"strings"
	"time"
)

// Defaults of the list server (TableConfig's zero values; docs/HOSTING.md "Running a list server").
const (
	// Expiry forgets a listed server this long after its last registration or refresh.
	Expiry = 60 * time.Second
	// RefreshInterval is how often a game server refreshes its registration (Announce): three
	// refreshes per Expiry, so that two lost ones keep it listed.
	RefreshInterval = 20 * time.Second
	// ProofTimeout forgets a registration whose reachability was not proven in time.
	ProofTimeout = 10 * time.Second
	// TokenResend is how often a pending registration's token is sent again (a lost datagram).
	TokenResend = 2 * time.Second
	// DefaultMaxEntries bounds the table: listed and pending registrations together.
	DefaultMaxEntries = 4096
	// DefaultMaxPending bounds the registrations waiting for their proof.
	DefaultMaxPending = 512
	// DefaultMaxPerNetwork bounds the registrations (listed or pending) from one network (an
	// IPv4 address, an IPv6 /64).
	DefaultMaxPerNetwork = 16
	// DefaultRegisterRate and DefaultRegisterBurst limit the registrations, refreshes and leaves
	// from one network (16 servers refreshing every 20 s need 0.8 per second).
	DefaultRegisterRate  = 2
	DefaultRegisterBurst = 20
	// DefaultReadRate and DefaultReadBurst limit the list reads from one network.
	DefaultReadRate  = 5
	DefaultReadBurst = 20
	// MaxSecret and MinSecret bound a registration's secret (its bearer token), in bytes.
	MinSecret = 16
	MaxSecret = 128
)

// Errors of the Table, each of which the HTTP runtime answers with its own status.
var (
	ErrNotYours = errors.New("the entry's address is not the address the registration comes from") // 403
	ErrFull     = errors.New("the list is full")                                                   // 503
	ErrTooMany  = errors.New("too many registrations from this network")                           // 429
	ErrRate     = errors.New("too many requests from this network; slow down")                     // 429
	ErrSecret   = errors.New("the secret must be 16..128 printable ASCII characters")              // 400
	ErrNotFound = errors.New("no such registration with this secret")                              // 404
)

// TableConfig configures a Table (zero values: the Default* constants).
type TableConfig struct {
	MaxEntries, MaxPending, MaxPerNetwork int
	RegisterRate                          float64 // per second per network; negative: no limit
	RegisterBurst                         int
	ReadRate                              float64 // per second per network; negative: no limit
	ReadBurst                             int
	Expiry, ProofTimeout, TokenResend     time.Duration
	// Rand makes the tokens (nil: crypto/rand).
	Rand io.Reader
}

// Datagram is one datagram the list server must send: a token to a registered query port.
type Datagram struct {
	To netip.AddrPort
	B  []byte
}

// Status is what a registration became.
type Status string

const (
	// Listed: the entry is in the list (a refresh of a listed entry, or a proven one).
	Listed Status = "listed"
	// Pending: the entry waits for the echo of the token sent to its query port.
	Pending Status = "pending"
)

// Table is the list server's pure core: every call takes the time (monotonic, any fixed origin)
// and returns the datagrams to send; no clock, no socket. Not safe for concurrent use.
type Table struct {
	cfg       TableConfig
	recs      map[string]*record // by Addr (canonical "IP:PORT")
	byToken   map[[TokenLen - MACLen]byte]*record
	perNet    map[netip.Prefix]int
	pending   int
	listed    int
	version   uint64 // changes whenever the listed entries do
	reg, read *limiter
}

type record struct {
	key    string
	net    netip.Prefix
	e      Entry // listed
	secret string
	listed bool
	expire time.Duration
	p      *proof // a registration waiting for its proof (also of a listed record's new secret)
}

type proof struct {
	e        Entry
	secret   string
	to       netip.AddrPort
	token    [TokenLen]byte
	deadline time.Duration
	next     time.Duration // next resend
}

// NewTable makes an empty table.
func NewTable(cfg TableConfig) *Table {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&cfg.MaxEntries, DefaultMaxEntries)
	def(&cfg.MaxPending, DefaultMaxPending)
	def(&cfg.MaxPerNetwork, DefaultMaxPerNetwork)
	def(&cfg.RegisterBurst, DefaultRegisterBurst)
	def(&cfg.ReadBurst, DefaultReadBurst)
	if cfg.RegisterRate == 0 {
		cfg.RegisterRate = DefaultRegisterRate
	}
	if cfg.ReadRate == 0 {
		cfg.ReadRate = DefaultReadRate
	}
	defd := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	defd(&cfg.Expiry, Expiry)
	defd(&cfg.ProofTimeout, ProofTimeout)
	defd(&cfg.TokenResend, TokenResend)
	if cfg.Rand == nil {
		cfg.Rand = rand.Reader
	}
	return &Table{cfg: cfg, recs: map[string]*record{}, byToken: map[[TokenLen - MACLen]byte]*record{}, perNet: map[netip.Prefix]int{},
		reg: newLimiter(cfg.RegisterRate, cfg.RegisterBurst), read: newLimiter(cfg.ReadRate, cfg.ReadBurst)}
}

// CheckSecret reports whether s can be a registration's secret: MinSecret..MaxSecret printable
// ASCII characters (no space).
func CheckSecret(s string) error {
	if len(s) < MinSecret || len(s) > MaxSecret {
		return ErrSecret
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return ErrSecret
		}
	}
	return nil
}

// Resolve is the entry's Addr and query address as the list server takes them from a
// registration coming from src: an empty or unspecified host is src; any other host must be
// src (ErrNotYours): a registration can only name its own address. The token goes to the query
// port at that address.
func Resolve(e *Entry, src netip.Addr) (addr, query netip.AddrPort, err error) {
	src = src.Unmap().WithZone("")
	host, port, err := SplitAddr(e.Addr)
	if err != nil {
		return addr, query, err
	}
	if host.IsValid() && !host.IsUnspecified() && host != src {
		return addr, query, ErrNotYours
	}
	return netip.AddrPortFrom(src, port), netip.AddrPortFrom(src, uint16(e.QueryPort)), nil
}

// Register registers or refreshes e, which comes from src with secret (its bearer token). A
// refresh of a listed entry with its secret updates it at once (Listed); anything else waits
// for its proof (Pending): a token datagram to the entry's query port, returned to be sent,
// whose echo (Echo) lists it. e.Addr is rewritten to the address it is listed under.
func (t *Table) Register(now time.Duration, src netip.Addr, secret string, e Entry) (Status, []Datagram, error) {
	if !t.reg.allow(now, src) {
		return "", nil, ErrRate
	}
	if err := CheckSecret(secret); err != nil {
		return "", nil, err
	}
	if err := e.Validate(); err != nil {
		return "", nil, err
	}
	addr, query, err := Resolve(&e, src)
	if err != nil {
		return "", nil, err
	}
	e.Addr = addr.String()
	e.Stages = slices.Clone(e.Stages)
	r := t.recs[e.Addr]
	if r != nil && r.listed && r.secret == secret && netip.AddrPortFrom(addr.Addr(), uint16(r.e.QueryPort)) == query {
		if !entryEqual(&r.e, &e) {
			r.e = e
			t.version++
		}
		r.expire = now + t.cfg.Expiry
		return Listed, nil, nil
	}
	if r != nil && r.p != nil && r.p.secret == secret && r.p.to == query {
		r.p.e = e // the proof under way goes on
		return Pending, nil, nil
	}
	if r == nil {
		n := networkOf(src)
		switch {
		case len(t.recs) >= t.cfg.MaxEntries:
			return "", nil, ErrFull
		case t.perNet[n] >= t.cfg.MaxPerNetwork:
			return "", nil, ErrTooMany
		}
		if t.pending >= t.cfg.MaxPending {
			return "", nil, ErrFull
		}
		r = &record{key: e.Addr, net: n}
		t.recs[e.Addr] = r
		t.perNet[n]++
	} else if r.p == nil && t.pending >= t.cfg.MaxPending {
		return "", nil, ErrFull
	}
	if r.p != nil {
		t.dropProof(r)
	}
	p := &proof{e: e, secret: secret, to: query, deadline: now + t.cfg.ProofTimeout, next: now + t.cfg.TokenResend}
	if _, err := io.ReadFull(t.cfg.Rand, p.token[:]); err != nil {
		t.forgetIfEmpty(r)
		return "", nil, err
	}
	var pre [TokenLen - MACLen]byte
	copy(pre[:], p.token[:])
	if t.byToken[pre] != nil { // a collision of 64 random bits: try again later
		t.forgetIfEmpty(r)
		return "", nil, ErrFull
	}
	r.p = p
	t.byToken[pre] = r
	t.pending++
	return Pending, []Datagram{{To: query, B: AppendToken(nil, p.token)}}, nil
}

// Echo takes a datagram that came from `from` to the list server's UDP socket: the echo of a
// pending registration's token from its query address, under its secret, lists the entry
// (true). Anything else is ignored (false).
func (t *Table) Echo(now time.Duration, from netip.AddrPort, b []byte) bool {
	pre, ok := echoPrefix(b)
	if !ok {
		return false
	}
	r := t.byToken[pre]
	if r == nil || r.p == nil || now > r.p.deadline {
		return false
	}
	from = netip.AddrPortFrom(from.Addr().Unmap().WithZone(""), from.Port())
	if from != r.p.to || !checkEcho(b, r.p.secret, r.p.token) {
		return false
	}
	p := r.p
	t.dropProof(r)
	if !r.listed {
		t.listed++
	}
	r.e, r.secret, r.listed, r.expire = p.e, p.secret, true, now+t.cfg.Expiry
	t.version++
	return true
}

// Delete removes the registration of addr (as listed, "IP:PORT"; an empty or unspecified host is
// src's) that src holds with secret: the game server leaves the list.
func (t *Table) Delete(now time.Duration, src netip.Addr, secret, addr string) error {
	if !t.reg.allow(now, src) {
		return ErrRate
	}
	host, port, err := SplitAddr(addr)
	if err != nil {
		return err
	}
	src = src.Unmap().WithZone("")
	if host.IsValid() && !host.IsUnspecified() && host != src {
		return ErrNotYours
	}
	r := t.recs[netip.AddrPortFrom(src, port).String()]
	if r == nil {
		return ErrNotFound
	}
	found := false
	if r.p != nil && r.p.secret == secret {
		t.dropProof(r)
		found = true
	}
	if r.listed && r.secret == secret {
		t.unlist(r)
		found = true
	}
	if !found {
		return ErrNotFound
	}
	t.forgetIfEmpty(r)
	return nil
}

// Tick expires the entries not refreshed within Expiry and the proofs not made within
// ProofTimeout, and returns the tokens to send again. Call it about once a second.
func (t *Table) Tick(now time.Duration) []Datagram {
	var out []Datagram
	for _, r := range t.recs {
		if r.p != nil {
			switch {
			case now > r.p.deadline:
				t.dropProof(r)
			case now >= r.p.next:
				r.p.next = now + t.cfg.TokenResend
				out = append(out, Datagram{To: r.p.to, B: AppendToken(nil, r.p.token)})
			}
		}
		if r.listed && now > r.expire {
			t.unlist(r)
		}
		t.forgetIfEmpty(r)
	}
	return out
}

// AllowRead reports whether a list read from src at now is within its network's rate.
func (t *Table) AllowRead(now time.Duration, src netip.Addr) bool { return t.read.allow(now, src) }

// List returns the listed entries, sorted by Addr, and the table's version: it changes
// whenever the listed entries do (a cache of the list holds while it stays).
func (t *Table) List() ([]Entry, uint64) {
	out := make([]Entry, 0, t.listed)
	for _, r := range t.recs {
		if r.listed {
			out = append(out, r.e)
		}
	}
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.Addr, b.Addr) })
	return out, t.version
}

// Version is List's version without the list.
func (t *Table) Version() uint64 { return t.version }

// Counts are the table's sizes: listed entries, pending proofs, records (the bound MaxEntries
// applies to) and the networks counted.
func (t *Table) Counts() (listed, pending, records, networks int) {
	return t.listed, t.pending, len(t.recs), len(t.perNet)
}

func (t *Table) dropProof(r *record) {
	var pre [TokenLen - MACLen]byte
	copy(pre[:], r.p.token[:])
	delete(t.byToken, pre)
	r.p = nil
	t.pending--
}

func (t *Table) unlist(r *record) {
	r.listed = false
	r.e = Entry{}
	r.secret = ""
	t.listed--
	t.version++
}

func (t *Table) forgetIfEmpty(r *record) {
	if r.listed || r.p != nil {
		return
	}
	delete(t.recs, r.key)
	if t.perNet[r.net]--; t.perNet[r.net] <= 0 {
		delete(t.perNet, r.net)
	}
}

func entryEqual(a, b *Entry) bool {
	return a.Name == b.Name && a.MOTD == b.MOTD && a.Addr == b.Addr && a.QueryPort == b.QueryPort && a.Version == b.Version &&
		a.Protocol == b.Protocol && a.Players == b.Players && a.Capacity == b.Capacity && a.Lobbies == b.Lobbies &&
		slices.Equal(a.Stages, b.Stages) && a.Password == b.Password && a.Region == b.Region && a.Fleet == b.Fleet
}
