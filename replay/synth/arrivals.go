package synth

import "time"

// openSeconds is how far back per-second counts stay open for records
// that come out of order.
const openSeconds = 120

// arrivals counts requests per second in bounded memory: seconds more
// than openSeconds behind the newest are folded into running sums.
type arrivals struct {
	first, last time.Time
	open        map[int64]int64
	newest      int64
	horizon     int64 // seconds before it are folded
	seconds     int64 // folded seconds that had requests
	sum         int64
	sumSq       float64
	peak        int64
	peakAt      int64
	late        int64
}

func (a *arrivals) add(t time.Time) {
	if a.open == nil {
		a.open = map[int64]int64{}
		a.first, a.last = t, t
		a.newest, a.horizon = t.Unix(), t.Unix()-openSeconds
	}
	if t.Before(a.first) {
		a.first = t
	}
	if t.After(a.last) {
		a.last = t
	}
	s := t.Unix()
	if s < a.horizon {
		a.late++ // counted in the total and the mean, not in a second
		return
	}
	a.open[s]++
	if s > a.newest {
		a.newest = s
		a.fold(s - openSeconds)
	}
}

// fold closes the seconds before h.
func (a *arrivals) fold(h int64) {
	if h <= a.horizon {
		return
	}
	a.horizon = h
	for s, n := range a.open {
		if s < h {
			a.close(s, n)
			delete(a.open, s)
		}
	}
}

func (a *arrivals) close(s, n int64) {
	a.seconds++
	a.sum += n
	a.sumSq += float64(n) * float64(n)
	if n > a.peak || (n == a.peak && s < a.peakAt) {
		a.peak, a.peakAt = n, s
	}
}

// rateStats are the trace's arrival statistics.
type rateStats struct {
	Span       time.Duration
	Mean       float64 // requests per second over the span
	Peak       int64   // the busiest second's requests
	PeakAt     time.Time
	Dispersion float64 // variance over mean of requests per second (Poisson: 1)
}

func (a *arrivals) stats(total int64) rateStats {
	for s, n := range a.open {
		a.close(s, n)
	}
	a.open = map[int64]int64{}
	span := max(a.last.Sub(a.first), time.Second)
	st := rateStats{Span: span, Mean: float64(total) / span.Seconds(), Peak: a.peak, PeakAt: time.Unix(a.peakAt, 0).UTC()}
	if secs := float64(a.last.Unix() - a.first.Unix() + 1); secs > 0 && a.sum > 0 {
		m := float64(a.sum) / secs
		st.Dispersion = (a.sumSq/secs - m*m) / m
	}
	return st
}
