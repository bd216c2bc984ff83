package result

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// mergeStream merges one stream of several parts, part i's seconds
// shifted by shifts[i] ticks onto the merged step's clock.
func mergeStream(streams []*Stream, shifts []int64) (Stream, error) {
	out := Stream{Name: streams[0].Name}
	var stopped []string
	lo, hi := math.Inf(-1), math.Inf(1)
	ulo, uhi := math.Inf(1), math.Inf(-1) // the union, where the windows do not meet
	for i, s := range streams {
		out.Concurrency += s.Concurrency
		out.MaxWorkers += s.MaxWorkers
		out.PeakWorkers += s.PeakWorkers
		if !slices.Contains(stopped, s.StoppedBy) {
			stopped = append(stopped, s.StoppedBy)
		}
		if s.Window.Duration() > 0 { // the part every worker measured
			sh := TickSeconds(shifts[i])
			lo, hi = max(lo, s.Window.Start+sh), min(hi, s.Window.End+sh)
			ulo, uhi = min(ulo, s.Window.Start+sh), max(uhi, s.Window.End+sh)
		}
	}
	out.StoppedBy = strings.Join(stopped, ",")
	secs := newSecondMerger()
	for i, s := range streams {
		for _, sec := range s.Seconds {
			for _, o := range sec.Ops {
				if err := secs.add(sec.T, o, shifts[i]); err != nil {
					return Stream{}, fmt.Errorf("second %d: %w", sec.T, err)
				}
			}
		}
	}
	var err error
	if out.Seconds, err = secs.seconds(); err != nil {
		return Stream{}, err
	}
	out.Outages = mergeOutages(streams, shifts)
	if err := mergeStreamPhases(&out, streams); err != nil {
		return Stream{}, err
	}
	w := Window{}
	if !(hi > lo) { // short steps of fixed work (prepare, cleanup): the workers' windows never met
		lo, hi = ulo, uhi
	}
	if hi > lo {
		w = Window{Start: lo, End: hi}
		if snapped := SnapWindow(w); snapped.Duration() > 0 {
			w = snapped
		}
	}
	return out, out.SetWindow(w)
}

// mergedOp is one op of one merged second being built.
type mergedOp struct {
	OpSecond
	ticks    TickCounts
	hasTicks bool
	// The parts' encoded histograms, summed when the second is written:
	// a merged hour holds thousands of seconds, and an encoded histogram
	// is what the parts' files hold already.
	lat, ttfb, rsp []string
}

// secondMerger sums op-seconds of several parts into merged seconds.
type secondMerger struct {
	secs  map[int64]map[string]*mergedOp
	max   int64
	codec histCodec
}

func newSecondMerger() *secondMerger { return &secondMerger{secs: map[int64]map[string]*mergedOp{}} }

func (m *secondMerger) op(t int64, name string) *mergedOp {
	ops := m.secs[t]
	if ops == nil {
		ops = map[string]*mergedOp{}
		m.secs[t] = ops
	}
	mo := ops[name]
	if mo == nil {
		mo = &mergedOp{OpSecond: OpSecond{Op: name}}
		ops[name] = mo
	}
	m.max = max(m.max, t)
	return mo
}

// add puts second t of a part, shifted by shift ticks: its ticks go to the
// merged ticks they fall in; what has no ticks (errors, drops, histograms,
// a second away from a window edge) goes to the merged second that holds
// most of it.
func (m *secondMerger) add(t int64, o OpSecond, shift int64) error {
	center := (t*TicksPerSecond + shift + TicksPerSecond/2) / TicksPerSecond
	if center < 0 {
		center = 0
	}
	c := m.op(center, o.Op)
	okOps := o.Answered() // what the ticks hold

	if o.Ticks != nil {
		var ok, bytes int64
		for k := range TicksPerSecond {
			tk, tb := o.Ticks.sum(k, k+1)
			if tk == 0 && tb == 0 {
				continue
			}
			at := max(t*TicksPerSecond+int64(k)+shift, 0)
			dst := m.op(at/TicksPerSecond, o.Op)
			dst.hasTicks = true
			dst.ticks[at%TicksPerSecond].OK += tk
			dst.ticks[at%TicksPerSecond].Bytes += tb
			dst.Ops += tk
			dst.Bytes += tb
			ok, bytes = ok+tk, bytes+tb
		}
		c.Ops += okOps - ok // ok ops the ticks did not hold (none, in a well-formed file)
		c.Bytes += o.Bytes - bytes
	} else {
		c.Ops += okOps
		c.Bytes += o.Bytes
	}
	for class, n := range o.Errors {
		if c.Errors == nil {
			c.Errors = map[string]int64{}
		}
		c.Errors[class] += n
		if !AnsweredClass(class) { // answered ops are in okOps
			c.Ops += n
		}
	}
	c.Dropped += o.Dropped
	for _, h := range []struct {
		dst *[]string
		enc string
	}{{&c.lat, o.Latency}, {&c.ttfb, o.TTFB}, {&c.rsp, o.Response}} {
		if h.enc != "" {
			*h.dst = append(*h.dst, h.enc)
		}
	}
	return nil
}

// seconds is the merged records, every second from 0 to the last.
func (m *secondMerger) seconds() ([]Second, error) {
	if len(m.secs) == 0 {
		return nil, nil
	}
	out := make([]Second, 0, m.max+1)
	for t := int64(0); t <= m.max; t++ {
		sec := Second{T: t}
		ops := m.secs[t]
		for _, name := range sortedOps(ops) {
			mo := ops[name]
			o := mo.OpSecond
			var err error
			for _, h := range []struct {
				dst  *string
				encs []string
			}{{&o.Latency, mo.lat}, {&o.TTFB, mo.ttfb}, {&o.Response, mo.rsp}} {
				if *h.dst, err = m.codec.sum(h.encs); err != nil {
					return nil, fmt.Errorf("second %d, op %s: %w", t, name, err)
				}
			}
			mo.lat, mo.ttfb, mo.rsp = nil, nil, nil
			if mo.hasTicks {
				o.Ticks = mo.ticks.Export()
			}
			sec.Ops = append(sec.Ops, o)
		}
		out = append(out, sec)
	}
	return out, nil
}

func sortedOps(ops map[string]*mergedOp) []string {
	names := make([]string, 0, len(ops))
	for n := range ops {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { return opOrder(a) - opOrder(b) })
	return names
}
