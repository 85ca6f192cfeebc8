package load

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The load generator reads the server's tick lateness over its window from two scrapes of the
// admin address's /metrics (the histogram's buckets are cumulative and only grow).
func TestLatenessWindowFromMetrics(t *testing.T) {
	page := func(le1, le2, le4, count, overruns, kernel int) string {
		return strings.Join([]string{
			"# HELP rtype_tick_lateness_seconds How late ...",
			"# TYPE rtype_tick_lateness_seconds histogram",
			fmt.Sprintf(`rtype_tick_lateness_seconds_bucket{le="0.001"} %d`, le1),
			fmt.Sprintf(`rtype_tick_lateness_seconds_bucket{le="0.002"} %d`, le2),
			fmt.Sprintf(`rtype_tick_lateness_seconds_bucket{le="0.004"} %d`, le4),
			fmt.Sprintf(`rtype_tick_lateness_seconds_bucket{le="+Inf"} %d`, count),
			"rtype_tick_lateness_seconds_sum 1.5",
			fmt.Sprintf("rtype_tick_lateness_seconds_count %d", count),
			fmt.Sprintf("rtype_tick_overruns_total %d", overruns),
			fmt.Sprintf("rtype_udp_kernel_drops_total %d", kernel),
		}, "\n") + "\n"
	}
	pages := []string{
		page(5000, 9000, 9500, 10000, 2, 1200), // the start: many late ticks (lobby joins)
		page(5000+900, 9000+985, 9500+1000, 10000+1000, 2, 1200+35),
	}
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, pages[n])
		n++
	}))
	defer srv.Close()
	admin := strings.TrimPrefix(srv.URL, "http://")
	a, err := scrapeLateness(admin)
	if err != nil {
		t.Fatal(err)
	}
	b, err := scrapeLateness(admin)
	if err != nil {
		t.Fatal(err)
	}
	p50, p99, within2, ticks, overruns := a.window(b)
	if ticks != 1000 || overruns != 0 {
		t.Fatalf("window: %v ticks, %v overruns; want 1000, 0", ticks, overruns)
	}
	// Within the window: 900 ticks ≤ 1 ms, 985 ≤ 2 ms, all ≤ 4 ms.
	if p50 != 1 || p99 != 4 || within2 != 98.5 {
		t.Errorf("p50 %v ms, p99 %v ms, %v %% within 2 ms; want 1, 4, 98.5", p50, p99, within2)
	}
	if k := b.kernel - a.kernel; k != 35 {
		t.Errorf("kernel drops over the window %v, want 35", k)
	}
}
