package result

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// planStream merges one stream of several parts but for its seconds,
// part i's to be shifted by shifts[i] ticks onto the merged step's clock:
// the merged stream, and the window to give it once its seconds are in.
func planStream(streams []*Stream, shifts []int64) (Stream, Window, error) {
	out := Stream{Name: streams[0].Name}
	var stopped []string
	lo, hi := math.Inf(-1), math.Inf(1)
	ulo, uhi := math.Inf(1), math.Inf(-1) // the union, where the windows do not meet
	for i, s := range streams {
		out.Concurrency += s.Concurrency
		out.MaxWorkers += s.MaxWorkers
		out.PeakWorkers += s.PeakWorkers
		out.COSBench = AddCOSBenchRates(out.COSBench, s.COSBench)
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
	out.Outages = mergeOutages(streams, shifts)
	if err := mergeStreamPhases(&out, streams); err != nil {
		return Stream{}, Window{}, err
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
	return out, w, nil
}

// mergedOp is one op of one merged second being built.
type mergedOp struct {
	OpSecond
	ticks    TickCounts
	hasTicks bool
	hist     [3]pagedHist // latency, TTFB, response
	has      [3]bool
}

// secondMerger sums op-seconds of several parts into merged seconds. It
// holds the merged seconds own says are its (nil: all): the records a
// merge reads are shared out among goroutines by the seconds they add to.
type secondMerger struct {
	secs   map[int64]map[string]*mergedOp
	max    int64
	own    func(t int64) bool
	pool   *pagePool
	codec  histCodec
	sparse sparseHist
	split  splitWriter
	// totals, when not nil, sums the histograms of the seconds emitted,
	// by op (latency, TTFB, response): their stream's totals' (see
	// setWindowWith).
	totals map[string]*[3]*pagedHist
}

func newSecondMerger(own func(int64) bool) *secondMerger {
	return &secondMerger{secs: map[int64]map[string]*mergedOp{}, max: -1, own: own}
}

func (m *secondMerger) owns(t int64) bool { return m.own == nil || m.own(t) }

func (m *secondMerger) op(t int64, name string) *mergedOp {
	ops := m.secs[t]
	if ops == nil {
		ops = map[string]*mergedOp{}
		m.secs[t] = ops
	}
	mo := ops[name]
	if mo == nil {
		mo = &mergedOp{OpSecond: OpSecond{Op: name}}
		for k := range mo.hist {
			mo.hist[k].pool = m.pool
		}
		ops[name] = mo
	}
	m.max = max(m.max, t)
	return mo
}

// centerSecond is the merged second that holds most of part second t
// shifted by shift ticks.
func centerSecond(t, shift int64) int64 {
	return max((t*TicksPerSecond+shift+TicksPerSecond/2)/TicksPerSecond, 0)
}

// add puts second t of a part, shifted by shift ticks: its ticks go to the
// merged ticks they fall in; what has no ticks (errors, drops, histograms,
// a second away from a window edge) goes to the merged second that holds
// most of it. hists are o's histograms when it came packed (nil: o's
// strings). Only what lands in the merger's own seconds is added.
func (m *secondMerger) add(t int64, o *OpSecond, shift int64, hists *packedHists) error {
	return m.addAlso(t, o, shift, hists, nil)
}

// addAlso is add that also sums o's latencies into also (unless nil) when
// o's second is the merger's.
func (m *secondMerger) addAlso(t int64, o *OpSecond, shift int64, hists *packedHists, also *pagedHist) error {
	if t > maxT || t < -maxT {
		return fmt.Errorf("second %d: out of range", t)
	}
	center := centerSecond(t, shift)
	owns := m.owns(center)
	var c *mergedOp
	if owns {
		c = m.op(center, o.Op)
	}
	okOps := o.Answered() // what the ticks hold
	if o.Ticks != nil {
		var ok, bytes int64
		for k := range TicksPerSecond {
			tk, tb := o.Ticks.sum(k, k+1)
			if tk == 0 && tb == 0 {
				continue
			}
			ok, bytes = ok+tk, bytes+tb
			at := max(t*TicksPerSecond+int64(k)+shift, 0)
			if !m.owns(at / TicksPerSecond) {
				continue
			}
			dst := m.op(at/TicksPerSecond, o.Op)
			dst.hasTicks = true
			dst.ticks[at%TicksPerSecond].OK += tk
			dst.ticks[at%TicksPerSecond].Bytes += tb
			dst.Ops += tk
			dst.Bytes += tb
		}
		if !owns {
			return nil
		}
		c.Ops += okOps - ok // ok ops the ticks did not hold (none, in a well-formed file)
		c.Bytes += o.Bytes - bytes
	} else if owns {
		c.Ops += okOps
		c.Bytes += o.Bytes
	} else {
		return nil
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
	for k := range c.hist {
		h := &c.hist[k]
		var err error
		if k == 0 && also != nil && hists != nil && hists.b[0] != nil {
			err = addPackedTo(h, also, hists.b[0], hists.split)
		} else {
			err = addHist(&h, o, k, hists, &m.codec, &m.sparse)
		}
		if err != nil {
			return err
		}
		c.has[k] = c.has[k] || !h.empty()
	}
	return nil
}

// emit appends the merged seconds from..to-1 to out, every one of them,
// and forgets them (their pages go back to the pool).
func (m *secondMerger) emit(from, to int64, out []Second, buf []byte) ([]Second, []byte, error) {
	for t := from; t < to; t++ {
		sec := Second{T: t}
		ops := m.secs[t]
		for _, name := range sortedOps(ops) {
			mo := ops[name]
			o := mo.OpSecond
			var tot *[3]*pagedHist
			if m.totals != nil {
				if tot = m.totals[name]; tot == nil {
					tot = &[3]*pagedHist{}
					m.totals[name] = tot
				}
			}
			for k, dst := range [3]*string{&o.Latency, &o.TTFB, &o.Response} {
				if !mo.has[k] {
					continue
				}
				var into *pagedHist
				if tot != nil {
					if tot[k] == nil {
						tot[k] = &pagedHist{}
					}
					into = tot[k]
				}
				var err error
				if *dst, buf, err = mo.hist[k].pack(&m.split, buf, into); err != nil {
					return nil, nil, fmt.Errorf("second %d, op %s: %w", t, name, err)
				}
			}
			if mo.hasTicks {
				o.Ticks = mo.ticks.Export()
			}
			sec.Ops = append(sec.Ops, o)
		}
		delete(m.secs, t)
		out = append(out, sec)
	}
	return out, buf, nil
}

func sortedOps(ops map[string]*mergedOp) []string {
	names := make([]string, 0, len(ops))
	for n := range ops {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { return opOrder(a) - opOrder(b) })
	return names
}
