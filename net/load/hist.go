package load

import "time"

// histogram counts durations in histBucket-wide buckets up to histBuckets × histBucket (longer
// ones in the last bucket) and keeps the maximum.
type histogram struct {
	b   [histBuckets]uint64
	n   uint64
	max time.Duration
}

const (
	histBucket  = 50 * time.Microsecond
	histBuckets = 2000 // 100 ms
)

func (h *histogram) add(d time.Duration) {
	i := min(int(max(d, 0)/histBucket), histBuckets-1)
	h.b[i]++
	h.n++
	h.max = max(h.max, d)
}

func (h *histogram) merge(o *histogram) {
	for i := range h.b {
		h.b[i] += o.b[i]
	}
	h.n += o.n
	h.max = max(h.max, o.max)
}

// quantile is the upper bound of the bucket holding quantile q (0 with no sample).
func (h *histogram) quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	want := uint64(q * float64(h.n))
	var c uint64
	for i, n := range h.b {
		c += n
		if c > want {
			if i == histBuckets-1 {
				return h.max // beyond the histogram's range
			}
			return min(time.Duration(i+1)*histBucket, h.max)
		}
	}
	return h.max
}
