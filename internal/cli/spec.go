package cli

import (
	"fmt"
	"time"

	"github.com/objbench/objbench/workload"
)

const preparedBytesCap = 1 << 30 // default prepared data stays within 1 GiB

// buildSpec turns one-op flags into a workload: prepare what the op needs,
// run it once per concurrency value, clean up.
func buildSpec(op string, o *benchOptions, p parsed) workload.Spec {
	bounds := workload.Bounds{Duration: o.duration, Ops: o.ops, Bytes: p.bytes}
	if bounds == (workload.Bounds{}) {
		bounds.Duration = 10 * time.Second
		if op == "run" {
			bounds.Duration = 5 * time.Second
		}
	}
	main := workload.Stream{
		Name: op, Mix: p.mix, Concurrency: p.conc, Bounds: bounds, Size: p.size, RangeSize: p.rangeSize,
		Fsync: p.fsync.PerFile(), SyncAtEnd: p.fsync == workload.FsyncAtEnd,
		Objects: workload.KeySpace{Prefix: op + "/", Count: defaultObjects(op, o, p)}}
	main.S3 = p.s3
	if p.source != "" {
		main.Objects.Source, main.Objects.Count = p.source, o.corpus.maxObjects
	}
	if len(p.rates) > 0 {
		main.Rate = &p.rates[0]
	}
	if len(p.rates) > 1 {
		main.Sweep = &workload.Sweep{Rates: p.rates}
	}
	sp := workload.Spec{Name: op}
	switch {
	case op == "put":
		main.Objects.Count = 0
		sp.Stages = append(sp.Stages, stage("main", workload.KindMain, main))
	case o.noPrepare:
		main.Objects = workload.KeySpace{Prefix: o.prefix, Existing: true}
		sp.Stages = append(sp.Stages, stage("main", workload.KindMain, main))
	case op == "delete":
		// Deletes consume objects: each sweep step gets its own.
		for i, c := range p.conc {
			s := main
			s.Concurrency = []int{c}
			s.Objects.Prefix = fmt.Sprintf("delete-%d/", i+1)
			sp.Stages = append(sp.Stages, stage("prepare", workload.KindPrepare, prepStream(s)),
				stage("main", workload.KindMain, s))
		}
	default:
		sp.Stages = append(sp.Stages, stage("prepare", workload.KindPrepare, prepStream(main)),
			stage("main", workload.KindMain, main))
	}
	if !o.noCleanup {
		cleanup := workload.Stream{Name: "cleanup", Concurrency: []int{maxOf(p.conc)}}
		if o.s3.batchCleanup {
			cleanup.S3 = &workload.S3Options{BatchSize: 1000}
		}
		sp.Stages = append(sp.Stages, workload.Stage{Name: "cleanup", Kind: workload.KindCleanup, Streams: []workload.Stream{cleanup}})
	}
	return sp
}

func stage(name string, kind workload.StageKind, s workload.Stream) workload.Stage {
	return workload.Stage{Name: name, Kind: kind, Streams: []workload.Stream{s}}
}

func prepStream(s workload.Stream) workload.Stream {
	s.Name, s.Mix, s.Bounds, s.Rate, s.Sweep = "prepare", nil, workload.Bounds{}, nil, nil
	s.Concurrency = []int{maxOf(s.Concurrency)}
	return s
}

func defaultObjects(op string, o *benchOptions, p parsed) int {
	if o.objects > 0 {
		return o.objects
	}
	n := 200
	if op == "delete" || op == "list" {
		n = 1000
	}
	if p.size > 0 && int64(n)*p.size > preparedBytesCap {
		n = int(max(preparedBytesCap/p.size, 1))
	}
	return max(n, maxOf(p.conc))
}

func maxOf(xs []int) int {
	m := 1
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}
