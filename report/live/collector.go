package live

import (
	"sort"
	"strconv"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/objbench/objbench/result"
	"github.com/prometheus/client_golang/prometheus"
)

// seriesKey is one op in one step: the labels of its metrics.
type seriesKey struct {
	step  int
	stage string
	op    string
}

// opTotals is one op of one step so far: counters and the cumulative
// latency histograms (microseconds, merged from the per-second records).
type opTotals struct {
	ops, bytes, dropped int64
	errors              map[string]int64
	lat, ttfb, resp     *hdr.Histogram
}

// totals is the run so far, per step and op.
type totals struct {
	byKey       map[seriesKey]*opTotals
	ops, errors int64 // the whole run
}

// add counts one op's second in step (index) of stage, and in the whole
// run, and returns the second's decoded latency histogram (nil: none),
// which the caller may keep.
func (t *totals) add(step int, stage string, o result.OpSecond) *hdr.Histogram {
	k := seriesKey{step, stage, o.Op}
	ot := t.byKey[k]
	if ot == nil {
		ot = &opTotals{errors: map[string]int64{}}
		t.byKey[k] = ot
	}
	ot.ops += o.Ops
	ot.bytes += o.Bytes
	ot.dropped += o.Dropped
	for c, n := range o.Errors {
		ot.errors[c] += n
	}
	lat := decode(o.Latency)
	ot.lat = mergeCopy(ot.lat, lat)
	ot.ttfb = mergeCopy(ot.ttfb, decode(o.TTFB))
	ot.resp = mergeCopy(ot.resp, decode(o.Response))
	t.ops += o.Ops
	for _, e := range o.Errors {
		t.errors += e
	}
	return lat
}

// decode reads an encoded per-second histogram; a record that does not
// decode (never written by this program) counts as none.
func decode(s string) *hdr.Histogram {
	if s == "" {
		return nil
	}
	h, err := result.DecodeHistogram(s)
	if err != nil {
		return nil
	}
	return h
}

// mergeCopy merges src into dst (a histogram of its own, never src).
func mergeCopy(dst, src *hdr.Histogram) *hdr.Histogram {
	if src == nil {
		return dst
	}
	if dst == nil {
		dst = hdr.New(src.LowestTrackableValue(), src.HighestTrackableValue(), int(src.SignificantFigures()))
	}
	dst.Merge(src)
	return dst
}

// latencyBuckets are the upper bounds (seconds) of the exposed latency
// histograms: 100 µs to a minute, about three per decade.
var latencyBuckets = [...]float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
	0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

// collector exposes a View's totals. It converts the HDR histograms into
// Prometheus buckets when scraped, so recording costs nothing extra.
type collector struct {
	v                              *View
	info, ops, bytes, dropped, err *prometheus.Desc
	lat, ttfb, resp                *prometheus.Desc
	au, ckpt                       *prometheus.Desc
}

func newCollector(v *View) *collector {
	l := []string{"stage", "step", "op"}
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc("objbench_"+name, help, labels, nil)
	}
	return &collector{
		v:       v,
		info:    d("run_info", "The run this process is measuring.", "run_id", "target"),
		ops:     d("ops_total", "Ops that ended, failed ones included.", l...),
		bytes:   d("bytes_total", "Bytes moved by ops.", l...),
		dropped: d("dropped_total", "Open loop: slots of the schedule no worker was free to issue (not ops).", l...),
		err:     d("errors_total", "Failed ops by error class.", append(l, "class")...),
		lat:     d("latency_seconds", "Latency of successful ops (start to end).", l...),
		ttfb:    d("ttfb_seconds", "Time to first byte of successful ops.", l...),
		resp:    d("response_seconds", "Open loop: response time of successful ops, from their intended start.", l...),
		au:      d("ai_accelerator_utilisation", "objbench ai train: an epoch's (or find-max round's) AU, the lower of DLIO's and the AU at the computation asked.", "stage", "round"),
		ckpt:    d("ai_checkpoint_seconds", "objbench ai checkpoint: a save's or load's duration, until its slowest rank was done.", "stage"),
	}
}

// Describe implements prometheus.Collector.
func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.info, c.ops, c.bytes, c.dropped, c.err, c.lat, c.ttfb, c.resp, c.au, c.ckpt} {
		ch <- d
	}
}

// Collect implements prometheus.Collector: the totals so far, in step
// and op order.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(c.info, prometheus.GaugeValue, 1, c.v.info.RunID, c.v.info.Target)
	c.v.mu.Lock()
	defer c.v.mu.Unlock()
	round := map[string]int{}
	for _, a := range c.v.ai.au {
		round[a.stage]++
		ch <- prometheus.MustNewConstMetric(c.au, prometheus.GaugeValue, a.v, a.stage, strconv.Itoa(round[a.stage]))
	}
	for _, k := range c.v.ai.ckpt {
		ch <- prometheus.MustNewConstMetric(c.ckpt, prometheus.GaugeValue, k.v, k.stage)
	}
	keys := make([]seriesKey, 0, len(c.v.run.totals.byKey))
	for k := range c.v.run.totals.byKey {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].step != keys[j].step {
			return keys[i].step < keys[j].step
		}
		return keys[i].op < keys[j].op
	})
	for _, k := range keys {
		t := c.v.run.totals.byKey[k]
		lv := []string{k.stage, strconv.Itoa(k.step), k.op}
		ch <- prometheus.MustNewConstMetric(c.ops, prometheus.CounterValue, float64(t.ops), lv...)
		ch <- prometheus.MustNewConstMetric(c.bytes, prometheus.CounterValue, float64(t.bytes), lv...)
		if t.dropped > 0 {
			ch <- prometheus.MustNewConstMetric(c.dropped, prometheus.CounterValue, float64(t.dropped), lv...)
		}
		classes := make([]string, 0, len(t.errors))
		for cl := range t.errors {
			classes = append(classes, cl)
		}
		sort.Strings(classes)
		for _, cl := range classes {
			ch <- prometheus.MustNewConstMetric(c.err, prometheus.CounterValue, float64(t.errors[cl]), append(lv, cl)...)
		}
		for _, h := range []struct {
			d *prometheus.Desc
			h *hdr.Histogram
		}{{c.lat, t.lat}, {c.ttfb, t.ttfb}, {c.resp, t.resp}} {
			if h.h != nil {
				count, sum, buckets := promBuckets(h.h)
				ch <- prometheus.MustNewConstHistogram(h.d, count, sum, buckets, lv...)
			}
		}
	}
}

// promBuckets turns an HDR histogram of microseconds into a Prometheus
// histogram in seconds: the count of values at or below each bound (to
// the HDR's precision: a value counts at the lowest value it is
// indistinguishable from), and the sum from the HDR's mean.
func promBuckets(h *hdr.Histogram) (count uint64, sum float64, buckets map[float64]uint64) {
	buckets = make(map[float64]uint64, len(latencyBuckets))
	bars := h.Distribution()
	i := 0
	var below uint64
	for _, b := range latencyBuckets {
		bound := int64(b * 1e6)
		for ; i < len(bars) && bars[i].From <= bound; i++ {
			below += uint64(bars[i].Count)
		}
		buckets[b] = below
	}
	count = uint64(h.TotalCount())
	return count, h.Mean() * float64(count) / 1e6, buckets
}
