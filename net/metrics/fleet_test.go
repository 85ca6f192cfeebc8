package metrics

import (
	"net/http/httptest"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/rtype/rtype/net/fleet"
)

// TestWatchFleet: /metrics, parsed as Prometheus parses it (expfmt), has each game host's up
// and suspect state, its misses, its games, capacity and drain as it reported them, and the
// starts it refused or failed, as the lobby's Remote reports them, labelled by host.
func TestWatchFleet(t *testing.T) {
	r := New(nil, nil)
	r.WatchFleet(func() []fleet.HostView {
		return []fleet.HostView{
			{Addr: "10.0.0.5:4243", Up: true, Suspect: true, Suspected: 3, Failed: 2, Load: fleet.Load{Games: 7, Capacity: 64}},
			{Addr: "10.0.0.6:4243", Load: fleet.Load{Games: 1, Capacity: 16, Draining: true}},
		}
	})
	rec := httptest.NewRecorder()
	r.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	value := func(name, host string) (float64, dto.MetricType, bool) {
		f := fams[name]
		if f == nil {
			return 0, 0, false
		}
		for _, m := range f.GetMetric() {
			for _, lp := range m.GetLabel() {
				if lp.GetName() == "host" && lp.GetValue() == host {
					if c := m.GetCounter(); c != nil {
						return c.GetValue(), f.GetType(), true
					}
					return m.GetGauge().GetValue(), f.GetType(), true
				}
			}
		}
		return 0, 0, false
	}
	G, C := dto.MetricType_GAUGE, dto.MetricType_COUNTER
	for _, want := range []struct {
		name, host string
		typ        dto.MetricType
		v          float64
	}{
		{"rtype_fleet_host_up", "10.0.0.5:4243", G, 1},
		{"rtype_fleet_host_suspect", "10.0.0.5:4243", G, 1},
		{"rtype_fleet_host_suspected_total", "10.0.0.5:4243", C, 3},
		{"rtype_fleet_host_games", "10.0.0.5:4243", G, 7},
		{"rtype_fleet_host_capacity", "10.0.0.5:4243", G, 64},
		{"rtype_fleet_host_draining", "10.0.0.5:4243", G, 0},
		{"rtype_fleet_host_start_failures_total", "10.0.0.5:4243", C, 2},
		{"rtype_fleet_host_up", "10.0.0.6:4243", G, 0},
		{"rtype_fleet_host_suspect", "10.0.0.6:4243", G, 0},
		{"rtype_fleet_host_games", "10.0.0.6:4243", G, 1},
		{"rtype_fleet_host_capacity", "10.0.0.6:4243", G, 16},
		{"rtype_fleet_host_draining", "10.0.0.6:4243", G, 1},
		{"rtype_fleet_host_start_failures_total", "10.0.0.6:4243", C, 0},
	} {
		v, typ, ok := value(want.name, want.host)
		if !ok || typ != want.typ || v != want.v {
			t.Errorf("%s{host=%q} = %v (type %v, found %v), want %v (%v)", want.name, want.host, v, typ, ok, want.v, want.typ)
		}
	}
}
