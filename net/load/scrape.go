package load

import (
	"bufio"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

var errNoAdmin = errors.New("load: no server admin address")

// lateness is the server's tick-lateness histogram as its admin address exposes it
// (rtype_tick_lateness_seconds, cumulative buckets by upper bound in s) and its overruns.
type lateness struct {
	le       map[float64]float64 // upper bound → ticks at most that late (cumulative)
	count    float64
	overruns float64
	kernel   float64 // rtype_udp_kernel_drops_total: datagrams the kernel dropped at the game socket
}

// scrapeLateness reads the tick lateness histogram from the server's /metrics (-admin).
func scrapeLateness(admin string) (lateness, error) {
	l := lateness{le: map[float64]float64{}}
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get("http://" + admin + "/metrics")
	if err != nil {
		return l, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return l, fmt.Errorf("load: %s/metrics: %s", admin, resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		name, val, ok := strings.Cut(line, " ")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil {
			continue
		}
		switch {
		case strings.HasPrefix(name, `rtype_tick_lateness_seconds_bucket{le="`):
			b := strings.TrimSuffix(strings.TrimPrefix(name, `rtype_tick_lateness_seconds_bucket{le="`), `"}`)
			if b == "+Inf" {
				continue
			}
			if f, err := strconv.ParseFloat(b, 64); err == nil {
				l.le[f] = v
			}
		case name == "rtype_tick_lateness_seconds_count":
			l.count = v
		case name == "rtype_tick_overruns_total":
			l.overruns = v
		case name == "rtype_udp_kernel_drops_total":
			l.kernel = v
		}
	}
	return l, sc.Err()
}

// window returns the lateness of the ticks between two scrapes: the quantiles as the upper
// bound of the first bucket that holds them (ms; -1 past the last bound), the share of ticks at
// most 2 ms late (%), the ticks and the overruns.
func (a lateness) window(b lateness) (p50, p99, within2 float64, ticks, overruns float64) {
	ticks, overruns = b.count-a.count, b.overruns-a.overruns
	if ticks <= 0 {
		return 0, 0, 0, 0, overruns
	}
	bounds := make([]float64, 0, len(b.le))
	for k := range b.le {
		bounds = append(bounds, k)
	}
	sort.Float64s(bounds)
	q := func(f float64) float64 {
		for _, k := range bounds {
			if b.le[k]-a.le[k] >= f*ticks {
				return k * 1000
			}
		}
		return -1
	}
	return q(0.5), q(0.99), 100 * (b.le[0.002] - a.le[0.002]) / ticks, ticks, overruns
}
