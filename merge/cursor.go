package merge

import (
	"fmt"

	"github.com/objbench/objbench/internal/resultpack"
	"github.com/objbench/objbench/result"
)

// inputCursor reads an input's records in T order, one at a time.
type inputCursor struct {
	in     *input
	rd     *resultpack.Reader // a packed input's, from its first frame of interest
	t      int64              // the current record's second
	center int64              // its merged second
	view   result.OpSecond    // a packed record, as a second holds it (no histogram strings)
	si, oi int                // older inputs: the next record is secs[si].Ops[oi]
	held   bool
	err    error // sticky
}

// newInputCursor starts at the first record centered at from or later.
func newInputCursor(in *input, dec *resultpack.Decoder, from int64) *inputCursor {
	c := &inputCursor{in: in}
	if in.ps != nil {
		f := 0
		for f+1 < in.ps.Frames() && centerSecond(in.ps.FrameFirst(f+1), in.shift) < from {
			f++
		}
		c.rd = in.ps.Reader(f, dec)
	}
	c.skipTo(from)
	return c
}

func (c *inputCursor) name() string { return fmt.Sprintf("%s: step %d", c.in.file, c.in.step+1) }

// skipTo drops the records centered before from.
func (c *inputCursor) skipTo(from int64) {
	for {
		ok, err := c.next(from)
		if err != nil || !ok {
			return // an error is kept for the next read
		}
		if c.center >= from {
			c.held = true
			return
		}
	}
}

// next moves to the next record centered before `before`+1: false when
// the next one lies later (it is held for the next call) or there is none.
func (c *inputCursor) next(before int64) (bool, error) {
	if c.err != nil {
		return false, c.err
	}
	if !c.held {
		ok, err := c.advance()
		if err != nil || !ok {
			c.err = err
			return false, err
		}
	}
	c.held = c.center > before
	return !c.held, nil
}

// advance reads the next record, whatever its second.
func (c *inputCursor) advance() (bool, error) {
	if c.rd == nil {
		for c.si < len(c.in.secs) && c.oi >= len(c.in.secs[c.si].Ops) {
			c.si, c.oi = c.si+1, 0
		}
		if c.si >= len(c.in.secs) {
			return false, nil
		}
		c.t = c.in.secs[c.si].T
		c.oi++
		c.center = centerSecond(c.t, c.in.shift)
		return true, nil
	}
	ok, err := c.rd.Next()
	if err != nil || !ok {
		return false, err
	}
	r := c.rd.Record()
	c.t = r.T
	c.view = result.OpSecond{Op: r.Op, Ops: r.Ops, Bytes: r.Bytes, Errors: r.Errors, Dropped: r.Dropped,
		Ticks: (*result.Ticks)(r.Ticks)}
	c.center = centerSecond(c.t, c.in.shift)
	return true, nil
}

// record is the current record and, when packed, its histograms.
func (c *inputCursor) record() (*result.OpSecond, *resultpack.Hists) {
	if c.rd == nil {
		return &c.in.secs[c.si].Ops[c.oi-1], nil
	}
	return &c.view, &c.rd.Record().Packed
}
