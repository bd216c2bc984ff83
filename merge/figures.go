package merge

import (
	"fmt"
	"slices"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/objbench/objbench/internal/resultpack"
	"github.com/objbench/objbench/result"
)

// What a merge adds besides the per-second records: each part's
// transfers, outages, request phases and COSBench rates.

// mergeTransfers adds up the transfers of a step's parts (workers):
// counts add, the wall is the longest, object latencies merge.
func mergeTransfers(steps []*result.Step) (*result.Transfer, error) {
	var out *result.Transfer
	var lat *hdr.Histogram
	var codec resultpack.Codec
	for _, s := range steps {
		t := s.Transfer
		if t == nil {
			continue
		}
		if out == nil {
			c := *t
			out = &c
			out.Objects, out.Bytes, out.Parts, out.Retries, out.PlanObjects, out.PlanBytes = 0, 0, 0, 0, 0, 0
			out.Check, out.ObjectLatency = nil, ""
		}
		out.Objects += t.Objects
		out.Bytes += t.Bytes
		out.Parts += t.Parts
		out.Retries += t.Retries
		out.PlanObjects += t.PlanObjects
		out.PlanBytes += t.PlanBytes
		out.Wall = max(out.Wall, t.Wall)
		if out.Error == "" {
			out.Error = t.Error
		}
		if err := codec.AddEncoded(&lat, t.ObjectLatency); err != nil {
			return nil, err
		}
		out.Check = addCheck(out.Check, t.Check)
	}
	if out != nil {
		out.ObjectLatency = result.EncodeHistogram(lat)
	}
	return out, nil
}

// addCheck sums two parts' checks of what they transferred.
func addCheck(c, o *result.TransferCheck) *result.TransferCheck {
	switch {
	case o == nil:
		return c
	case c == nil:
		x := *o
		return &x
	}
	x := *c
	x.Verified = c.Verified && o.Verified
	x.Objects += o.Objects
	x.Bytes += o.Bytes
	x.WantObjects += o.WantObjects
	x.WantBytes += o.WantBytes
	x.Missing += o.Missing
	x.WrongSize += o.WrongSize
	x.Changed += o.Changed
	x.Compared += o.Compared
	x.Others = max(x.Others, o.Others)
	x.OtherBytes = max(x.OtherBytes, o.OtherBytes)
	x.Text = ""
	return &x
}

// mergeOutages puts each part's outages on the merged step's clock
// (shifted by its start, in ticks) and joins them.
func mergeOutages(streams []*result.Stream, shifts []int64) []result.Outage {
	var all []result.Outage
	for i, s := range streams {
		sh := result.TickSeconds(shifts[i])
		for _, o := range s.Outages {
			o.Start, o.End = o.Start+sh, o.End+sh
			all = append(all, o)
		}
	}
	return result.JoinOutages(all)
}

// Phases adds the phase histograms of several parts of a stream, op by
// op (histograms add: the merge is exact).
func Phases(parts ...[]result.OpPhases) ([]result.OpPhases, error) {
	type acc struct {
		p result.OpPhases
		h [result.NumPhases]*hdr.Histogram
	}
	var order []string
	byOp := map[string]*acc{}
	var codec resultpack.Codec
	for _, ps := range parts {
		for _, p := range ps {
			a := byOp[p.Op]
			if a == nil {
				a = &acc{p: result.OpPhases{Op: p.Op}}
				byOp[p.Op] = a
				order = append(order, p.Op)
			}
			a.p.Requests += p.Requests
			a.p.NewConns += p.NewConns
			a.p.Resumed += p.Resumed
			for i, enc := range p.Phases {
				if err := codec.AddEncoded(&a.h[i], enc); err != nil {
					return nil, fmt.Errorf("phases of %s, %s: %w", p.Op, result.PhaseNames[i], err)
				}
			}
		}
	}
	slices.SortStableFunc(order, result.CompareOps)
	out := make([]result.OpPhases, 0, len(order))
	for _, op := range order {
		a := byOp[op]
		for i, h := range a.h {
			a.p.Phases[i] = result.EncodeHistogram(h)
		}
		out = append(out, a.p)
	}
	return out, nil
}

func mergeStreamPhases(out *result.Stream, streams []*result.Stream) error {
	var parts [][]result.OpPhases
	for _, s := range streams {
		if len(s.Phases) > 0 {
			parts = append(parts, s.Phases)
		}
	}
	if len(parts) == 0 {
		return nil
	}
	var err error
	out.Phases, err = Phases(parts...)
	return err
}

// addCOSBenchRates adds src's rates to dst's op by op (the workers of
// several processes, summed as COSBench sums its drivers' workers).
func addCOSBenchRates(dst, src []result.COSBenchRate) []result.COSBenchRate {
	for _, r := range src {
		found := false
		for i := range dst {
			if dst[i].Op == r.Op {
				dst[i].OpsPerSec += r.OpsPerSec
				dst[i].BytesPerSec += r.BytesPerSec
				found = true
				break
			}
		}
		if !found {
			dst = append(dst, r)
		}
	}
	return dst
}
