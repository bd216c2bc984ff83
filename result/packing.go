package result

import "github.com/objbench/objbench/internal/resultpack"

// The codec (internal/resultpack) knows no result types, so that this
// package can import it: seconds cross to it as its own Second and
// OpSecond, which hold the same fields. Ticks cross as they are (the two
// types are one struct; a change to either fails to compile here).

// toCodec is secs as the codec packs them.
func toCodec(secs []Second) []resultpack.Second {
	n := 0
	for _, s := range secs {
		n += len(s.Ops)
	}
	ops := make([]resultpack.OpSecond, 0, n)
	out := make([]resultpack.Second, len(secs))
	for i, s := range secs {
		from := len(ops)
		for _, o := range s.Ops {
			ops = append(ops, resultpack.OpSecond{Op: o.Op, Ops: o.Ops, Bytes: o.Bytes, Errors: o.Errors, Dropped: o.Dropped,
				Ticks: (*resultpack.Ticks)(o.Ticks), Hists: [3]string{o.Latency, o.TTFB, o.Response}})
		}
		out[i] = resultpack.Second{T: s.T, Ops: ops[from:len(ops):len(ops)]}
	}
	return out
}

// fromCodec is seconds the codec unpacked, as a result holds them.
func fromCodec(secs []resultpack.Second) []Second {
	if secs == nil {
		return nil
	}
	n := 0
	for _, s := range secs {
		n += len(s.Ops)
	}
	ops := make([]OpSecond, 0, n)
	out := make([]Second, len(secs))
	for i, s := range secs {
		out[i].T = s.T
		if len(s.Ops) == 0 {
			continue
		}
		from := len(ops)
		for _, o := range s.Ops {
			ops = append(ops, OpSecond{Op: o.Op, Ops: o.Ops, Bytes: o.Bytes, Errors: o.Errors, Dropped: o.Dropped,
				Ticks: (*Ticks)(o.Ticks), Latency: o.Hists[0], TTFB: o.Hists[1], Response: o.Hists[2]})
		}
		out[i].Ops = ops[from:len(ops):len(ops)]
	}
	return out
}
