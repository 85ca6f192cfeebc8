package load

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

var errNoAdmin = errors.New("load: no server admin address")

// lateness is the server's tick-lateness histogram as its admin address exposes it
// (rtype_tick_lateness_seconds: cumulative buckets by upper bound in s, the server's
// net/metrics/hist exported at fixed bounds) and its overruns.
type lateness struct {
	buckets  []*dto.Bucket // cumulative, by ascending upper bound (+Inf left out)
	count    float64
	overruns float64
	kernel   float64 // rtype_udp_kernel_drops_total: datagrams the kernel dropped at the game socket
}

// scrapeLateness reads the tick lateness histogram from the server's /metrics (-admin),
// parsed by expfmt.
func scrapeLateness(admin string) (lateness, error) {
	var l lateness
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get("http://" + admin + "/metrics")
	if err != nil {
		return l, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return l, fmt.Errorf("load: %s/metrics: %s", admin, resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		return l, fmt.Errorf("load: %s/metrics: %w", admin, err)
	}
	if f := fams["rtype_tick_lateness_seconds"]; f != nil && len(f.GetMetric()) > 0 {
		h := f.GetMetric()[0].GetHistogram()
		l.count = float64(h.GetSampleCount())
		for _, b := range h.GetBucket() {
			if !math.IsInf(b.GetUpperBound(), 1) { // +Inf is the count
				l.buckets = append(l.buckets, b)
			}
		}
	}
	counter := func(name string) float64 { // a counter, or untyped without its # TYPE line
		if f := fams[name]; f != nil && len(f.GetMetric()) > 0 {
			m := f.GetMetric()[0]
			if c := m.GetCounter(); c != nil {
				return c.GetValue()
			}
			return m.GetUntyped().GetValue()
		}
		return 0
	}
	l.overruns, l.kernel = counter("rtype_tick_overruns_total"), counter("rtype_udp_kernel_drops_total")
	return l, nil
}

// upTo is how many ticks were at most bound s late (the cumulative count of the bucket with that
// upper bound; 0 when the histogram has none).
func (a lateness) upTo(bound float64) float64 {
	for _, b := range a.buckets {
		if b.GetUpperBound() == bound {
			return float64(b.GetCumulativeCount())
		}
	}
	return 0
}

// window returns the lateness of the ticks between two scrapes from the buckets' growth: the
// quantiles as the upper bound of the first bucket that holds them (ms; -1 past the last bound),
// the share of ticks at most 2 ms late (%), the ticks and the overruns.
func (a lateness) window(b lateness) (p50, p99, within2 float64, ticks, overruns float64) {
	ticks, overruns = b.count-a.count, b.overruns-a.overruns
	if ticks <= 0 {
		return 0, 0, 0, 0, overruns
	}
	q := func(f float64) float64 {
		for _, bk := range b.buckets {
			if float64(bk.GetCumulativeCount())-a.upTo(bk.GetUpperBound()) >= f*ticks {
				return bk.GetUpperBound() * 1000
			}
		}
		return -1
	}
	return q(0.5), q(0.99), 100 * (b.upTo(0.002) - a.upTo(0.002)) / ticks, ticks, overruns
}
