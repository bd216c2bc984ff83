package cli

import (
	"context"
	"io"
	"math"
	"net/url"
	"sync"
	"time"

	"github.com/objbench/objbench/report"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/run"
	"github.com/objbench/objbench/sysmon"
	"github.com/objbench/objbench/transfer"
)

// transferSecond is one second of a transfer: what the machine did and
// what moved.
type transferSecond struct {
	System  result.Sample `json:"system"`
	Objects int64         `json:"objects"`
	Bytes   int64         `json:"bytes"`
}

// transferWatch samples the machine each second of a transfer (--timeline),
// next to the transfer's own progress.
type transferWatch struct {
	s    *sysmon.Sampler
	mu   sync.Mutex
	secs []transferSecond
}

// startTransferWatch starts sampling; nil (with a note) where the machine
// cannot be sampled. endpoint "" is the embedded server.
func startTransferWatch(ctx context.Context, endpoint string, c *transfer.Counter, note func(string, ...any)) *transferWatch {
	loop := endpoint == ""
	if u, err := url.Parse(endpoint); !loop && err == nil {
		loop = run.OnThisMachine(ctx, u.Hostname())
	}
	w := &transferWatch{}
	var objs, bytes int64
	s, err := sysmon.NewSampler(sysmon.Config{Loopback: loop, Process: true, OnSample: func(smp result.Sample) {
		o, b := c.Objects.Load(), c.Bytes.Load()
		w.mu.Lock()
		w.secs = append(w.secs, transferSecond{System: smp, Objects: o - objs, Bytes: b - bytes})
		w.mu.Unlock()
		objs, bytes = o, b
	}})
	if err != nil {
		note("not sampling the machine (no timeline): %v", err)
		return nil
	}
	for _, n := range s.Notes() {
		note("%s", n)
	}
	w.s = s
	s.Start(context.WithoutCancel(ctx), time.Now())
	return w
}

// stop ends sampling and returns the seconds sampled.
func (w *transferWatch) stop() []transferSecond {
	if w == nil {
		return nil
	}
	_, _ = w.s.Stop() // sampling never fails a transfer
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.secs
}

// write prints the timeline: the machine's counters and, per second, the
// objects and MiB the transfer moved.
func (w *transferWatch) write(out io.Writer, secs []transferSecond, color bool) error {
	if w == nil || len(secs) == 0 {
		return nil
	}
	tw := report.NewTimelineWriter(out, report.TimelineStyle{Color: color, Ops: true}, w.s.Missing(), true)
	if err := tw.Header(); err != nil {
		return err
	}
	for _, s := range secs {
		per := 1.0 // the columns are rates: a last, shorter interval is scaled to a second
		if s.System.Dur > 0 {
			per = 1 / s.System.Dur
		}
		ops := &report.OpsSecond{Ops: int64(math.Round(float64(s.Objects) * per)), Bytes: int64(float64(s.Bytes) * per)}
		if err := tw.Row(s.System, ops); err != nil {
			return err
		}
	}
	return nil
}
