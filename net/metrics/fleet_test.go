package metrics

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rtype/rtype/net/fleet"
)

// TestWatchFleet: /metrics has each game host's up and suspect state and its misses, as the
// lobby's Remote reports them.
func TestWatchFleet(t *testing.T) {
	r := New(nil, nil)
	r.WatchFleet(func() []fleet.HostView {
		return []fleet.HostView{{Addr: "10.0.0.5:4243", Up: true, Suspect: true, Suspected: 3}, {Addr: "10.0.0.6:4243"}}
	})
	rec := httptest.NewRecorder()
	r.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	b, _ := io.ReadAll(rec.Body)
	for _, want := range []string{
		`rtype_fleet_host_up{host="10.0.0.5:4243"} 1`,
		`rtype_fleet_host_suspect{host="10.0.0.5:4243"} 1`,
		`rtype_fleet_host_suspected_total{host="10.0.0.5:4243"} 3`,
		`rtype_fleet_host_up{host="10.0.0.6:4243"} 0`,
		`rtype_fleet_host_suspect{host="10.0.0.6:4243"} 0`,
	} {
		if !strings.Contains(string(b), want+"\n") {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}
