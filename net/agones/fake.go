package agones

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// The fakes are written from the same swagger documents as the clients (package doc): they
// serve those paths with those field names, move a GameServer's state as Agones does
// (Scheduled → Ready on /ready, → Allocated on /allocate or an allocation, → Shutdown on
// /shutdown), keep counters within [0, capacity] (400 otherwise, the gateway's mapping of
// OUT_OF_RANGE), answer 404 for an unknown counter, 400 for a body that is not the
// documented JSON (unknown fields included), 405 for another method, and record every call.

// Call is one request a fake received.
type Call struct {
	At     time.Time
	Method string
	Path   string
	Body   string
}

// FakeSDK is the SDK sidecar of one GameServer.
type FakeSDK struct {
	mu     sync.Mutex
	gs     GameServer
	calls  []Call
	health []time.Time
}

// NewFakeSDK returns the sidecar of GameServer name of fleet at address, with ports and the
// counters of the Fleet's template (count, capacity), in state Scheduled.
func NewFakeSDK(name, fleet, address string, ports []Port, counters map[string]CounterStatus) *FakeSDK {
	cs := map[string]CounterStatus{}
	for k, v := range counters {
		cs[k] = v
	}
	return &FakeSDK{gs: GameServer{
		ObjectMeta: ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{LabelFleet: fleet}},
		Status:     GameServerStatus{State: "Scheduled", Address: address, Ports: append([]Port(nil), ports...), Counters: cs},
	}}
}

// GameServer returns a copy of the GameServer as the fake holds it.
func (f *FakeSDK) GameServer() GameServer {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.copyLocked()
}

func (f *FakeSDK) copyLocked() GameServer {
	gs := f.gs
	gs.ObjectMeta.Labels = map[string]string{}
	for k, v := range f.gs.ObjectMeta.Labels {
		gs.ObjectMeta.Labels[k] = v
	}
	gs.Status.Ports = append([]Port(nil), f.gs.Status.Ports...)
	gs.Status.Counters = map[string]CounterStatus{}
	for k, v := range f.gs.Status.Counters {
		gs.Status.Counters[k] = v
	}
	return gs
}

// Calls returns the requests received so far.
func (f *FakeSDK) Calls() []Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Call(nil), f.calls...)
}

// Healths returns when each /health arrived.
func (f *FakeSDK) Healths() []time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Time(nil), f.health...)
}

// CallsTo counts the calls of method to path.
func (f *FakeSDK) CallsTo(method, path string) int {
	n := 0
	for _, c := range f.Calls() {
		if c.Method == method && c.Path == path {
			n++
		}
	}
	return n
}

func decodeStrict(b []byte, v any) bool {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	return d.Decode(v) == nil && !d.More()
}

func jsonAnswer(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// ServeHTTP serves the SDK's REST paths.
func (f *FakeSDK) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, Call{At: time.Now(), Method: r.Method, Path: r.URL.Path, Body: string(body)})
	empty := func() bool { var e struct{}; return decodeStrict(body, &e) }
	post := func(next string) {
		switch {
		case r.Method != http.MethodPost:
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		case !empty():
			http.Error(w, "body must be {}", http.StatusBadRequest)
		default:
			if next != "" {
				f.gs.Status.State = next
			}
			jsonAnswer(w, struct{}{})
		}
	}
	switch p := r.URL.Path; {
	case p == "/ready":
		post("Ready")
	case p == "/allocate":
		post("Allocated")
	case p == "/shutdown":
		post("Shutdown")
	case p == "/health":
		if r.Method == http.MethodPost && empty() {
			f.health = append(f.health, time.Now())
		}
		post("")
	case p == "/gameserver":
		if r.Method != http.MethodGet {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		jsonAnswer(w, f.copyLocked())
	case p == "/metadata/label":
		var kv KeyValue
		switch {
		case r.Method != http.MethodPut:
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		case !decodeStrict(body, &kv) || kv.Key == "" || LabelValue(kv.Value) != kv.Value:
			http.Error(w, "want {\"key\": ..., \"value\": a label value}", http.StatusBadRequest)
		default:
			f.gs.ObjectMeta.Labels[SDKLabelPrefix+kv.Key] = kv.Value
			jsonAnswer(w, struct{}{})
		}
	case strings.HasPrefix(p, "/v1beta1/counters/"):
		name := strings.TrimPrefix(p, "/v1beta1/counters/")
		c, ok := f.gs.Status.Counters[name]
		if !ok {
			http.Error(w, "counter "+name+" not found", http.StatusNotFound)
			return
		}
		switch r.Method {
		case http.MethodGet:
			jsonAnswer(w, Counter{Name: name, Count: c.Count, Capacity: c.Capacity})
		case http.MethodPatch:
			var u CounterUpdate
			if !decodeStrict(body, &u) {
				http.Error(w, "bad counter update", http.StatusBadRequest)
				return
			}
			if u.Capacity != nil {
				c.Capacity = *u.Capacity
			}
			if u.Count != nil {
				c.Count = *u.Count
			}
			if u.CountDiff != nil {
				c.Count += *u.CountDiff
			}
			if c.Capacity < 0 || c.Count < 0 || c.Count > c.Capacity {
				http.Error(w, "count out of range [0, capacity]", http.StatusBadRequest)
				return
			}
			f.gs.Status.Counters[name] = c
			jsonAnswer(w, Counter{Name: name, Count: c.Count, Capacity: c.Capacity})
		default:
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		}
	default:
		http.NotFound(w, r)
	}
}

// FakeAllocator is the allocator service over a set of GameServers (their FakeSDKs: an
// allocation changes what their sidecar reports).
type FakeAllocator struct {
	mu      sync.Mutex
	servers []*FakeSDK
	calls   []Call
}

// NewFakeAllocator returns an allocator over servers.
func NewFakeAllocator(servers ...*FakeSDK) *FakeAllocator {
	return &FakeAllocator{servers: servers}
}

// Add adds a GameServer (a fleet scaling up).
func (a *FakeAllocator) Add(s *FakeSDK) {
	a.mu.Lock()
	a.servers = append(a.servers, s)
	a.mu.Unlock()
}

// Calls returns the requests received so far.
func (a *FakeAllocator) Calls() []Call {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Call(nil), a.calls...)
}

// ServeHTTP serves POST /gameserverallocation.
func (a *FakeAllocator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls = append(a.calls, Call{At: time.Now(), Method: r.Method, Path: r.URL.Path, Body: string(body)})
	if r.URL.Path != "/gameserverallocation" {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodPost {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	var req AllocationRequest
	if !decodeStrict(body, &req) {
		http.Error(w, "bad allocation request", http.StatusBadRequest)
		return
	}
	sels := req.GameServerSelectors
	if len(sels) == 0 {
		sels = []GameServerSelector{{}}
	}
	for _, sel := range sels {
		switch sel.GameServerState {
		case "", StateReady, StateAllocated:
		default:
			http.Error(w, "gameServerState must be READY or ALLOCATED", http.StatusBadRequest)
			return
		}
		for _, s := range a.servers {
			if resp, ok := s.allocate(req, sel); ok {
				jsonAnswer(w, resp)
				return
			}
		}
	}
	// What Agones answers when no GameServer matches (gRPC ResourceExhausted through the gateway).
	http.Error(w, "there is no available GameServer to allocate", http.StatusTooManyRequests)
}

// allocate allocates s for req if it matches sel: its state moves to Allocated and the
// request's counter actions apply.
func (s *FakeSDK) allocate(req AllocationRequest, sel GameServerSelector) (AllocationResponse, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	gs := &s.gs
	want := "Ready"
	if sel.GameServerState == StateAllocated {
		want = "Allocated"
	}
	if gs.Status.State != want || (req.Namespace != "" && req.Namespace != gs.ObjectMeta.Namespace) {
		return AllocationResponse{}, false
	}
	for k, v := range sel.MatchLabels {
		if gs.ObjectMeta.Labels[k] != v {
			return AllocationResponse{}, false
		}
	}
	for name, cs := range sel.Counters {
		c, ok := gs.Status.Counters[name]
		avail := c.Capacity - c.Count
		if !ok || (cs.MinAvailable != nil && avail < *cs.MinAvailable) || (cs.MaxAvailable != nil && *cs.MaxAvailable > 0 && avail > *cs.MaxAvailable) ||
			(cs.MinCount != nil && c.Count < *cs.MinCount) || (cs.MaxCount != nil && *cs.MaxCount > 0 && c.Count > *cs.MaxCount) {
			return AllocationResponse{}, false
		}
	}
	next := map[string]CounterStatus{}
	for name, act := range req.Counters {
		c, ok := gs.Status.Counters[name]
		if !ok {
			continue // Agones ignores an action on a counter the GameServer lacks
		}
		if act.Capacity != nil {
			c.Capacity = *act.Capacity
		}
		if act.Amount != nil {
			switch act.Action {
			case "Increment":
				c.Count += *act.Amount
			case "Decrement":
				c.Count -= *act.Amount
			}
		}
		if c.Count < 0 || c.Count > c.Capacity {
			return AllocationResponse{}, false
		}
		next[name] = c
	}
	for k, v := range next {
		gs.Status.Counters[k] = v
	}
	gs.Status.State = "Allocated"
	s.calls = append(s.calls, Call{At: time.Now(), Method: "ALLOCATED", Path: "(by the allocator)"})
	return AllocationResponse{GameServerName: gs.ObjectMeta.Name, Address: gs.Status.Address,
		Ports: append([]Port(nil), gs.Status.Ports...), Counters: s.copyLocked().Status.Counters}, true
}
