package serverlist

import "time"

// The list API's paths and limits (docs/PROTOCOL.md §11.2).
const (
	// RefreshInterval is how often a game server refreshes its registration (Announce): three
	// refreshes per Expiry, so that two lost ones keep it listed.
	RefreshInterval = 20 * time.Second
	// PathServers is the list (GET) and where a game server registers (POST);
	// PathServers+"/ADDR" is where it leaves (DELETE).
	PathServers = "/servers"
	// MaxBody bounds a registration's body.
	MaxBody = 8 << 10
	// MaxListBody bounds a list a client reads (Fetch): listserver.DefaultMaxEntries entries
	// of the largest size fit.
	MaxListBody = 32 << 20
	// ListCache is how long the list server serves one rendering of the list.
	ListCache = 5 * time.Second
)

// Registration is the list server's answer to a registration (POST).
type Registration struct {
	Status    Status `json:"status,omitempty"`
	Addr      string `json:"addr,omitempty"`       // the address the entry is listed under
	ExpiresIn int    `json:"expires_in,omitempty"` // seconds without a refresh before it is forgotten
	Error     string `json:"error,omitempty"`      // why the request was refused (then nothing else)
}

// List is the body of GET /servers.
type List struct {
	Servers []Entry `json:"servers"`
}

// Status is what a registration became.
type Status string

const (
	// Listed: the entry is in the list (a refresh of a listed entry, or a proven one).
	Listed Status = "listed"
	// Pending: the entry waits for the echo of the token sent to its query port.
	Pending Status = "pending"
)
