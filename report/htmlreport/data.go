package htmlreport

import (
	"fmt"
	"math"
	"sort"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/objbench/objbench/result"
)

// point is one value at a time, x in seconds from the run's first step.
type point struct{ X, Y float64 }

// line is a named series; segments break at step boundaries so a chart
// does not draw across the pause between steps.
type line struct {
	Name     string
	Segments [][]point
}

func (l *line) add(seg int, p point) {
	for len(l.Segments) <= seg {
		l.Segments = append(l.Segments, nil)
	}
	l.Segments[seg] = append(l.Segments[seg], p)
}

// opSeries is what the over-time charts show: per op MiB/s and ops/s, and
// per second the merged latency's p50, p99 and max (ms).
type opSeries struct {
	MiBs, Ops []*line
	Latency   []*line // p50, p99, max
	Span      [2]float64
}

// origin is the instant the charts' time axes count from.
func origin(r *result.Run) time.Time {
	if len(r.Steps) > 0 {
		return r.Steps[0].Start
	}
	return r.Started
}

func decode(s string) (*hdr.Histogram, error) {
	if s == "" {
		return nil, nil
	}
	h, err := result.DecodeHistogram(s)
	if err != nil {
		return nil, fmt.Errorf("decode latency histogram: %w", err)
	}
	return h, nil
}

func merge(dst, src *hdr.Histogram) *hdr.Histogram {
	if src == nil {
		return dst
	}
	if dst == nil {
		return src
	}
	dst.Merge(src)
	return dst
}

// overTime sums each second of each step over its streams.
func overTime(r *result.Run) (opSeries, error) {
	t0 := origin(r)
	out := opSeries{Span: [2]float64{0, 1}}
	mib, ops := map[string]*line{}, map[string]*line{}
	lat := []*line{{Name: "p50"}, {Name: "p99"}, {Name: "max"}}
	for i := range r.Steps {
		step := &r.Steps[i]
		base := step.Start.Sub(t0).Seconds()
		out.Span[1] = max(out.Span[1], base+step.Elapsed.Seconds())
		type acc struct {
			ops, bytes map[string]int64
			lat        *hdr.Histogram
		}
		secs := map[int64]*acc{}
		for _, st := range step.Streams {
			for _, s := range st.Seconds {
				a := secs[s.T]
				if a == nil {
					a = &acc{ops: map[string]int64{}, bytes: map[string]int64{}}
					secs[s.T] = a
				}
				for _, o := range s.Ops {
					a.ops[o.Op] += o.Ops
					a.bytes[o.Op] += o.Bytes
					h, err := decode(o.Latency)
					if err != nil {
						return out, fmt.Errorf("step %d second %d: %w", i, s.T, err)
					}
					a.lat = merge(a.lat, h)
				}
			}
		}
		ts := make([]int64, 0, len(secs))
		for t := range secs {
			ts = append(ts, t)
		}
		sort.Slice(ts, func(a, b int) bool { return ts[a] < ts[b] })
		for _, t := range ts {
			a, x := secs[t], base+float64(t)+0.5
			for op, n := range a.ops {
				lineFor(mib, op).add(i, point{x, float64(a.bytes[op]) / (1 << 20)})
				lineFor(ops, op).add(i, point{x, float64(n)})
			}
			if a.lat != nil && a.lat.TotalCount() > 0 {
				for j, q := range []float64{50, 99, 100} {
					lat[j].add(i, point{x, float64(a.lat.ValueAtQuantile(q)) / 1000})
				}
			}
		}
	}
	out.MiBs, out.Ops, out.Latency = sorted(mib), sorted(ops), lat
	return out, nil
}

func lineFor(m map[string]*line, name string) *line {
	if m[name] == nil {
		m[name] = &line{Name: name}
	}
	return m[name]
}

func sorted(m map[string]*line) []*line {
	out := make([]*line, 0, len(m))
	for _, l := range m {
		out = append(out, l)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Name < out[b].Name })
	return out
}

// distribution is each op's latency over the main steps as an HDR
// percentile plot (see percentileLine).
func distribution(r *result.Run) ([]*line, error) {
	byOp, err := mainLatency(r)
	if err != nil {
		return nil, err
	}
	m := map[string]*line{}
	for op, h := range byOp {
		if l := percentileLine(op, h); l != nil {
			m[op] = l
		}
	}
	return sorted(m), nil
}

// mainLatency merges each op's latency over r's main steps.
func mainLatency(r *result.Run) (map[string]*hdr.Histogram, error) {
	byOp := map[string]*hdr.Histogram{}
	for i := range r.Steps {
		step := &r.Steps[i]
		if step.Kind != result.KindMain {
			continue
		}
		for _, st := range step.Streams {
			for _, s := range st.Seconds {
				for _, o := range s.Ops {
					h, err := decode(o.Latency)
					if err != nil {
						return nil, fmt.Errorf("step %d second %d: %w", i, s.T, err)
					}
					if h != nil {
						byOp[o.Op] = merge(byOp[o.Op], h)
					}
				}
			}
		}
	}
	return byOp, nil
}

// percentileLine is h as an HDR percentile plot: x is 1/(1-q), so each
// nine of the tail gets as much room as the one before; y the latency at
// q (ms). Nil when h holds nothing.
func percentileLine(name string, h *hdr.Histogram) *line {
	if h == nil || h.TotalCount() == 0 {
		return nil
	}
	l := &line{Name: name}
	top := math.Log10(float64(h.TotalCount())) // beyond 1/n the data has nothing to say
	for k := 0.0; k <= top+1e-9; k += 0.05 {
		x := math.Pow(10, k)
		l.add(0, point{x, float64(h.ValueAtQuantile(100*(1-1/x))) / 1000})
	}
	l.add(0, point{math.Pow(10, top), float64(h.Max()) / 1000})
	return l
}

// sweepPoint is one main step: its throughput and latency over the step.
type sweepPoint struct {
	Label              string
	OpsPerSec, MiBPerS float64
	P50, P99           float64 // ms
}

// sweep is the main steps of the first stage that swept concurrency or
// rate, in order; fewer than two points draw no curve.
func sweep(r *result.Run) ([]sweepPoint, error) {
	var out []sweepPoint
	stage := ""
	for i := range r.Steps {
		step := &r.Steps[i]
		if step.Kind != result.KindMain || (stage != "" && step.Stage != stage) {
			continue
		}
		stage = step.Stage
		p, err := stepPoint(step)
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", i, err)
		}
		out = append(out, p)
	}
	return out, nil
}

func stepPoint(step *result.Step) (sweepPoint, error) {
	p := sweepPoint{Label: "c" + fmt.Sprint(concurrency(step))}
	if step.Sweep != "" {
		p.Label = step.Sweep
	}
	var all *hdr.Histogram
	for _, st := range step.Streams {
		for _, t := range st.Totals {
			p.OpsPerSec += t.OpsPerSec
			p.MiBPerS += t.BytesPerSec / (1 << 20)
		}
		for _, s := range st.Seconds {
			for _, o := range s.Ops {
				h, err := decode(o.Latency)
				if err != nil {
					return p, err
				}
				all = merge(all, h)
			}
		}
	}
	if all != nil {
		p.P50, p.P99 = float64(all.ValueAtQuantile(50))/1000, float64(all.ValueAtQuantile(99))/1000
	}
	return p, nil
}

func concurrency(step *result.Step) int {
	n := 0
	for _, st := range step.Streams {
		n += st.Concurrency
	}
	return n
}

// systemSeries is the machine's timeline on the runs' time axis: CPU
// busy and iowait (%), disk and network MiB/s.
type systemSeries struct {
	CPU, Disk, Net []*line
}

func system(r *result.Run) *systemSeries {
	if r.System == nil || len(r.System.Samples) == 0 {
		return nil
	}
	t0 := origin(r)
	cpu := []*line{{Name: "usr+sys"}, {Name: "iowait"}, {Name: "steal+irq"}}
	disk := []*line{{Name: "read"}, {Name: "write"}}
	net := []*line{{Name: "recv"}, {Name: "send"}}
	for _, s := range r.System.Samples {
		x := s.Start.Sub(t0).Seconds() + s.Dur/2
		c := s.CPU
		cpu[0].add(0, point{x, c.User + c.Sys})
		cpu[1].add(0, point{x, c.IOWait})
		cpu[2].add(0, point{x, c.Steal + c.IRQ + c.SoftIRQ})
		disk[0].add(0, point{x, s.Disk.ReadBytes / (1 << 20)})
		disk[1].add(0, point{x, s.Disk.WriteBytes / (1 << 20)})
		net[0].add(0, point{x, s.Net.RecvBytes / (1 << 20)})
		net[1].add(0, point{x, s.Net.SendBytes / (1 << 20)})
	}
	return &systemSeries{CPU: cpu, Disk: disk, Net: net}
}
