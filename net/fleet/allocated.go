package fleet

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
)

// AllocatedHostsFile is the file of a lobby's data directory (-data) that keeps the control
// addresses of the hosts it was allocated (-allocator) that hold its games
// (RemoteConfig.AllocatedFile): a restarted lobby attaches to them as to its -hosts
// (docs/CONTROL.md §4.3).
const AllocatedHostsFile = "allocated-hosts.json"

// MaxAllocatedHosts bounds the hosts AllocatedHostsFile keeps: past it, the least recently
// allocated are left out (logged); maxAllocatedFileBytes bounds the file read.
const (
	MaxAllocatedHosts     = 512
	maxAllocatedFileBytes = 256 << 10
)

// allocatedFile is AllocatedHostsFile's JSON: {"hosts": ["10.0.0.7:7000", ...]}, the least
// recently allocated first.
type allocatedFile struct {
	Hosts []string `json:"hosts"`
}

// readAllocatedHosts reads path (AllocatedHostsFile): nil when it does not exist; an error when
// it cannot be read or is not such a file (too big, not JSON, an address that is not
// host:port). More than MaxAllocatedHosts: the last MaxAllocatedHosts.
func readAllocatedHosts(path string) ([]string, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxAllocatedFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxAllocatedFileBytes {
		return nil, fmt.Errorf("%s: over %d bytes", path, maxAllocatedFileBytes)
	}
	var af allocatedFile
	if err := json.Unmarshal(b, &af); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []string
	for _, a := range af.Hosts {
		if _, _, err := net.SplitHostPort(a); err != nil || len(a) > 300 {
			return nil, fmt.Errorf("%s: host %q: not host:port", path, a)
		}
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	if len(out) > MaxAllocatedHosts {
		out = out[len(out)-MaxAllocatedHosts:]
	}
	return out, nil
}

// writeAllocatedHosts replaces path with hosts (their last MaxAllocatedHosts) atomically: a
// temporary file beside it, synced, renamed over it.
func writeAllocatedHosts(path string, hosts []string) error {
	if len(hosts) > MaxAllocatedHosts {
		hosts = hosts[len(hosts)-MaxAllocatedHosts:]
	}
	b, err := json.Marshal(allocatedFile{Hosts: append([]string{}, hosts...)})
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(append(b, '\n'))
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// restoreAllocated adds a link to each host of RemoteConfig.AllocatedFile not in Hosts (at
// NewRemote): dialled by Run as an allocated host, kept (pinned) until it says which games it
// still runs for this lobby (attached); counted by Attached. A corrupt file is logged and
// ignored (it is replaced at the next save).
func (r *Remote) restoreAllocated() {
	if r.cfg.AllocatedFile == "" || r.cfg.ID == "" {
		return // without a name no host keeps this lobby's games
	}
	hosts, err := readAllocatedHosts(r.cfg.AllocatedFile)
	if err != nil {
		r.log.Warn("the allocated hosts of the lobby's earlier run are unknown: their file is ignored (replaced at the next allocation)", "err", err)
		r.saved = []string{"?"} // not the file's contents: the next save writes
		return
	}
	r.saved = hosts
	for _, a := range hosts {
		if slices.ContainsFunc(r.links, func(l *link) bool { return l.addr == a }) {
			continue
		}
		l := r.newLink(a, true)
		l.restored, l.pinned = true, true
		r.links = append(r.links, l)
	}
	if len(hosts) > 0 {
		r.log.Info("attaching to the allocated hosts of the lobby's earlier run", "hosts", len(hosts))
	}
}

// holds reports whether l's host holds something of this lobby: a game running or starting,
// or (pinned) the games of an earlier run not yet handed back.
func (l *link) holds() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pinned || l.starting > 0 || len(l.games) > 0 || len(l.away) > 0
}

// changed saves RemoteConfig.AllocatedFile after what l holds changed (an allocated host).
func (l *link) changed() {
	if l.dynamic {
		l.r.saveAllocated()
	}
}

// saveAllocated writes RemoteConfig.AllocatedFile from the links: the allocated hosts that
// hold something of this lobby (link.holds), when that changed. Not once Run is over or the
// lobby leaves its games (LeaveGames): the next run attaches to the hosts as they were.
// Snapshot and write are under saveMu, so the last write has the latest state.
func (r *Remote) saveAllocated() {
	if r.cfg.AllocatedFile == "" || r.cfg.ID == "" || r.crashed.Load() {
		return
	}
	r.saveMu.Lock()
	defer r.saveMu.Unlock()
	r.mu.Lock()
	stopped := r.ctx != nil && r.ctx.Err() != nil
	links := append([]*link(nil), r.links...)
	r.mu.Unlock()
	if stopped {
		return
	}
	var hosts []string
	for _, l := range links {
		if l.dynamic && l.holds() {
			hosts = append(hosts, l.addr)
		}
	}
	if len(hosts) > MaxAllocatedHosts {
		r.log.Warn("more allocated hosts hold games than the lobby keeps for its restart: the oldest are left out", "hosts", len(hosts), "kept", MaxAllocatedHosts)
		hosts = hosts[len(hosts)-MaxAllocatedHosts:]
	}
	if slices.Equal(hosts, r.saved) {
		return
	}
	if err := writeAllocatedHosts(r.cfg.AllocatedFile, hosts); err != nil {
		r.log.Warn("the allocated hosts could not be saved: a restart of the lobby may not find their games", "err", err)
		return
	}
	r.saved = hosts
}
