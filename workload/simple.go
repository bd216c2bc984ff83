package workload

import (
	"fmt"
	"time"
)

// Simple describes the common workloads in a few fields, as the op
// commands (objbench put, get, stat, delete, list, mixed, run) take them
// from flags: one op or a mix, a concurrency sweep, a bound per step, an
// object size. Spec turns it into stages: prepare what the ops read, run
// one main step per concurrency (or rate) value, clean up.
type Simple struct {
	// Name names the workload and its main stream ("get"); Mix is the op
	// mix (nil: Name alone, as one op).
	Name string
	Mix  []OpWeight
	// Concurrency is the workers of each main step (several: a sweep;
	// nil: 8). Bounds ends each step (zero: 10 s).
	Concurrency []int
	Bounds      Bounds
	// Size is the size of objects written (0: 64 KiB); RangeSize, when
	// set, makes every GET read that many bytes at a random offset.
	Size, RangeSize int64
	// Objects is how many objects are prepared for the ops that read (0:
	// 200, or 1,000 for delete and list, at most 1 GiB of them, at least
	// the largest concurrency).
	Objects int
	// Existing reads the objects already under Prefix instead of
	// preparing any (they are only ever read). Source prepares a real
	// corpus instead of generated objects (KeySpace.Source), taking at
	// most Objects of it (0: all).
	Existing bool
	Prefix   string
	Source   string
	// Rates makes the main stream open loop: a step per rate.
	Rates []Rate
	// Fsync is how file targets flush; S3 the stream's request options.
	Fsync FsyncMode
	S3    *S3Options
	// NoCleanup keeps what the run wrote; BatchCleanup deletes it with
	// DeleteObjects requests of 1,000 keys.
	NoCleanup, BatchCleanup bool
}

// preparedBytesCap bounds the default prepared data: 1 GiB.
const preparedBytesCap = 1 << 30

// Op is the workload of one op (put, get, stat, delete, list) on objects
// of size bytes, with one main step per concurrency value, each ended by
// b: what objbench get --size ... -c ... runs.
func Op(op string, size int64, b Bounds, concurrency ...int) Spec {
	return Simple{Name: op, Size: size, Bounds: b, Concurrency: concurrency}.Spec()
}

// Mixed is the workload of an op mix ("get" 80, "put" 20) on objects of
// size bytes, with one main step per concurrency value, each ended by b.
func Mixed(mix []OpWeight, size int64, b Bounds, concurrency ...int) Spec {
	return Simple{Name: "mixed", Mix: mix, Size: size, Bounds: b, Concurrency: concurrency}.Spec()
}

// Spec is the workload s describes. Validate it before running: Spec does
// not check the op names or values.
func (s Simple) Spec() Spec {
	s = s.withDefaults()
	main := Stream{Name: s.Name, Mix: s.Mix, Concurrency: s.Concurrency, Bounds: s.Bounds, Size: s.Size, RangeSize: s.RangeSize,
		Fsync: s.Fsync.PerFile(), SyncAtEnd: s.Fsync == FsyncAtEnd, S3: s.S3,
		Objects: KeySpace{Prefix: s.Name + "/", Count: s.objects()}}
	if s.Source != "" {
		main.Objects.Source, main.Objects.Count = s.Source, s.Objects
	}
	if len(s.Rates) > 0 {
		main.Rate = &s.Rates[0]
	}
	if len(s.Rates) > 1 {
		main.Sweep = &Sweep{Rates: s.Rates}
	}
	sp := Spec{Name: s.Name}
	switch {
	case s.onlyPuts():
		main.Objects.Count = 0
		sp.Stages = append(sp.Stages, oneStream("main", KindMain, main))
	case s.Existing:
		main.Objects = KeySpace{Prefix: s.Prefix, Existing: true}
		sp.Stages = append(sp.Stages, oneStream("main", KindMain, main))
	case s.Name == OpDelete && len(s.Mix) == 1:
		// Deletes consume objects: each sweep step gets its own.
		for i, c := range s.Concurrency {
			st := main
			st.Concurrency = []int{c}
			st.Objects.Prefix = fmt.Sprintf("delete-%d/", i+1)
			sp.Stages = append(sp.Stages, oneStream("prepare", KindPrepare, prepareOf(st)), oneStream("main", KindMain, st))
		}
	default:
		sp.Stages = append(sp.Stages, oneStream("prepare", KindPrepare, prepareOf(main)), oneStream("main", KindMain, main))
	}
	if !s.NoCleanup {
		cleanup := Stream{Name: "cleanup", Concurrency: []int{largest(s.Concurrency)}}
		if s.BatchCleanup {
			cleanup.S3 = &S3Options{BatchSize: 1000}
		}
		sp.Stages = append(sp.Stages, Stage{Name: "cleanup", Kind: KindCleanup, Streams: []Stream{cleanup}})
	}
	return sp
}

func (s Simple) withDefaults() Simple {
	if len(s.Mix) == 0 {
		s.Mix = []OpWeight{{Op: s.Name, Weight: 1}}
	}
	if len(s.Concurrency) == 0 {
		s.Concurrency = []int{8}
	}
	if s.Bounds == (Bounds{}) {
		s.Bounds.Duration = 10 * time.Second
	}
	if s.Size == 0 {
		s.Size = 64 << 10
	}
	return s
}

// onlyPuts: a workload of PUTs alone reads nothing, so nothing is
// prepared.
func (s Simple) onlyPuts() bool {
	return len(s.Mix) == 1 && s.Mix[0].Op == OpPut
}

// objects is the prepared count: Objects, or the default.
func (s Simple) objects() int {
	if s.Objects > 0 {
		return s.Objects
	}
	n := 200
	if s.Name == OpDelete || s.Name == OpList {
		n = 1000
	}
	if s.Size > 0 && int64(n)*s.Size > preparedBytesCap {
		n = int(max(preparedBytesCap/s.Size, 1))
	}
	return max(n, largest(s.Concurrency))
}

func oneStream(name string, kind StageKind, s Stream) Stage {
	return Stage{Name: name, Kind: kind, Streams: []Stream{s}}
}

// prepareOf is the stream that writes main's objects before it runs.
func prepareOf(main Stream) Stream {
	main.Name, main.Mix, main.Bounds, main.Rate, main.Sweep = "prepare", nil, Bounds{}, nil, nil
	main.Concurrency = []int{largest(main.Concurrency)}
	return main
}

func largest(xs []int) int {
	m := 1
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}
