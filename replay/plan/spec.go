package plan

import (
	"time"

	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/workload"
)

// Stream is the replay's stream in the workload (its prepare and main).
const Stream = "replay"

// Spec is the replay as a workload: prepare, the replay, cleanup of the
// run's namespace. Its mix is the trace's op shares, its op bound the ops
// replayed; the load generator runs the trace in its place (Replay).
func (p *Plan) Spec() workload.Spec {
	conc := p.Concurrency()
	var mix []workload.OpWeight
	for op, n := range p.counts {
		if n > 0 {
			mix = append(mix, workload.OpWeight{Op: metrics.Op(op).String(), Weight: int(min(n, 1<<30))})
		}
	}
	main := workload.Stream{Name: Stream, Mix: mix, Concurrency: []int{conc}, Bounds: workload.Bounds{Ops: p.issued},
		Size: p.o.DefaultSize, Objects: workload.KeySpace{Prefix: Prefix}}
	if p.counts[metrics.OpRangeGet] > 0 {
		main.RangeSize = max(p.rangeLen, 1) // the longest; each request reads its own
	}
	prep := main
	prep.Mix, prep.Bounds = nil, workload.Bounds{}
	prep.Objects.Count = int(p.prep.n)
	if p.prep.n > 0 {
		prep.Size = max(p.prep.bytes/p.prep.n, 1) // the mean, as the step line states it; each object has its own
	}
	sp := workload.Spec{Name: "replay"}
	if p.prep.n > 0 {
		sp.Stages = append(sp.Stages, workload.Stage{Name: "prepare", Kind: workload.KindPrepare, Streams: []workload.Stream{prep}})
	}
	sp.Stages = append(sp.Stages,
		workload.Stage{Name: "main", Kind: workload.KindMain, Streams: []workload.Stream{main}},
		workload.Stage{Name: "cleanup", Kind: result.KindCleanup})
	return sp
}

// Info is the replay as the result file records it.
func (p *Plan) Info(sources []string) *result.Replay {
	ri := &result.Replay{Sources: sources, Format: string(p.o.Format), Speed: p.o.Speed, Window: p.o.Window, Ops: p.o.Ops,
		Issued: p.issued, Prepared: p.prep.n, Late: p.late, Loop: string(p.Loop()), Burst: p.o.Burst,
		LogConcurrency: p.pace.peak, Span: p.span.Seconds()}
	if ri.Format == "" {
		ri.Format = "auto"
	}
	if len(p.skipped) > 0 {
		ri.Skipped = p.skipped
	}
	for op, n := range p.counts {
		if n == 0 {
			continue
		}
		ri.Source = append(ri.Source, result.SourceOp{Op: metrics.Op(op).String(), Ops: n,
			Latency: result.PercentilesOf(p.lat[op]), TTFB: result.PercentilesOf(p.ttfb[op])})
	}
	return ri
}

// Replay is the load generator's replay of the plan, reading src.
// objs the objects to prepare (Prepare); horizon is the longest a request
// may take (Workers).
func (p *Plan) Replay(src *Source, objs *Objects, horizon time.Duration) *loadgen.Replay {
	return &loadgen.Replay{Stream: Stream, Ops: src, Prepare: objs, Prepared: p.prep.n, MaxSpeed: p.o.Speed == 0,
		Paced: p.Loop() == LoopClosed, MaxWorkers: p.Workers(horizon)}
}
