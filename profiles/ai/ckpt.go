package ai

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/objbench/objbench/distributed"
	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/workload"
)

// CheckpointConfig is one checkpointing run: Writes checkpoints saved,
// then Reads of them loaded, every rank moving its objects whole.
type CheckpointConfig struct {
	Model LLM
	Ranks int // 0: the model's CLOSED count
	// Writes and Reads: 0 takes the model's; below 0, none.
	Writes, Reads int
	// Interval is the untimed computation before each checkpoint (< 0:
	// none; 0: the model's).
	Interval time.Duration
	// Scale multiplies every object's size (a trial run; 0: 1).
	Scale  float64
	Worker distributed.Worker
	Verify bool
	// GeneratorRate is the payload generator's bytes per second on one
	// core, measured by the caller (MeasureGenerator), recorded with each
	// save.
	GeneratorRate float64
}

// MaxParts is the most parts of one multipart upload (S3's limit).
const MaxParts = 10000

func (c *CheckpointConfig) normalize() error {
	m := c.Model
	if c.Ranks == 0 {
		c.Ranks = m.ClosedRanks
	}
	switch {
	case c.Writes == 0:
		c.Writes = m.Writes
	case c.Writes < 0:
		c.Writes = 0
	}
	switch {
	case c.Reads == 0:
		c.Reads = m.Reads
	case c.Reads < 0:
		c.Reads = 0
	}
	switch {
	case c.Interval == 0:
		c.Interval = m.Interval
	case c.Interval < 0:
		c.Interval = 0
	}
	if c.Scale == 0 {
		c.Scale = 1
	}
	var errs []error
	if c.Ranks < 1 {
		errs = append(errs, fmt.Errorf("ranks %d: want at least 1", c.Ranks))
	}
	errs = append(errs, splitCheck(c.Worker, "rank", c.Ranks))
	if !(c.Scale > 0 && c.Scale <= 1) {
		errs = append(errs, fmt.Errorf("scale %v: want a factor above 0, at most 1", c.Scale))
	}
	if c.Reads > c.Writes {
		errs = append(errs, fmt.Errorf("reads %d: a run loads only checkpoints it saved (writes %d)", c.Reads, c.Writes))
	}
	if c.Writes == 0 {
		errs = append(errs, errors.New("writes 0: a run saves at least one checkpoint"))
	}
	return errors.Join(errs...)
}

// scaled is an object's size times the run's scale (at least 1 byte).
func scaled(n int64, f float64) int64 {
	if f == 1 {
		return n
	}
	return max(int64(math.Round(float64(n)*f)), 1)
}

// ckptLayout is one checkpoint's objects, rank by rank, at the run's
// scale.
type ckptLayout struct {
	ranks   [][]CkptObject
	bytes   int64
	objects int
	largest int64
}

func newLayout(c CheckpointConfig) (ckptLayout, error) {
	shards, err := c.Model.Shards(c.Ranks)
	if err != nil {
		return ckptLayout{}, err
	}
	var l ckptLayout
	l.ranks = shards
	for r := range shards {
		for i := range shards[r] {
			o := &shards[r][i]
			o.Size = scaled(o.Size, c.Scale)
			l.bytes += o.Size
			l.objects++
			l.largest = max(l.largest, o.Size)
		}
	}
	return l, nil
}

// partSize is the part size that uploads the largest object in at most
// MaxParts parts: workload.DefaultPartSize, or larger in whole MiB.
func partSize(largest int64) int64 {
	ps := int64(workload.DefaultPartSize)
	if need := (largest + MaxParts - 1) / MaxParts; need > ps {
		ps = (need + 1<<20 - 1) &^ (1<<20 - 1)
	}
	return ps
}

// Checkpoints plans a checkpointing run: each save a stage in which
// every rank writes its objects (multipart uploads streamed from the
// payload generator, or files flushed with fsync), then each load a
// stage in which every rank reads them back whole, then a cleanup that
// deletes them. A delay stage before each save and load stands for the
// computation between checkpoints.
func Checkpoints(c CheckpointConfig) (*Plan, error) {
	if err := c.normalize(); err != nil {
		return nil, err
	}
	l, err := newLayout(c)
	if err != nil {
		return nil, err
	}
	m := c.Model
	p := newPlan(workload.Spec{Name: "ai checkpoint " + m.Name})
	base := workload.Stream{Concurrency: []int{c.Ranks}, Objects: workload.KeySpace{Prefix: "checkpoints/"},
		PartSize: partSize(l.largest), Fsync: true, Data: workload.Data{Verify: c.Verify},
		Bounds: workload.Bounds{Ops: int64(l.objects)}}
	lo, hi := c.Worker.Range(int64(c.Ranks))
	add := func(op string, i int) {
		if c.Interval > 0 {
			p.Spec.Stages = append(p.Spec.Stages, workload.Stage{Name: fmt.Sprintf("compute-%s-%d", op, i), Kind: workload.KindDelay, Delay: c.Interval})
		}
		name := fmt.Sprintf("%s-%d", op, i)
		s := base
		s.Name, s.Mix = op, []workload.OpWeight{{Op: workload.OpPut, Weight: 1}}
		if op == "load" {
			s.Mix[0].Op = workload.OpGet
		}
		p.Spec.Stages = append(p.Spec.Stages, workload.Stage{Name: name, Kind: workload.KindMain, Streams: []workload.Stream{s}})
		p.script(name, op, func(int) loadgen.Script {
			return &ckptScript{c: c, l: l, op: op, index: i, lo: int(lo), hi: int(hi)}
		})
	}
	for i := 1; i <= c.Writes; i++ {
		add("save", i)
	}
	for i := 1; i <= c.Reads; i++ {
		add("load", i)
	}
	p.Spec.Stages = append(p.Spec.Stages, workload.Stage{Name: "cleanup", Kind: workload.KindCleanup,
		Streams: []workload.Stream{{Name: "cleanup", Concurrency: []int{min(c.Ranks, 64)}, Objects: workload.KeySpace{Prefix: "checkpoints/"}}}})
	planLines(p, c, l)
	var objects, bytes int64
	for _, rank := range l.ranks[lo:hi] {
		for _, o := range rank {
			objects, bytes = objects+1, bytes+o.Size
		}
	}
	p.share(c.Worker, "", "rank", lo, hi, int64(c.Ranks), ", %d of each checkpoint's %d objects (%s)", objects, l.objects, sizeText(bytes))
	return p, nil
}

func planLines(p *Plan, c CheckpointConfig, l ckptLayout) {
	m := c.Model
	p.line("%s: %d parameters; %d ranks (tensor %d x pipeline %d x data %d), ZeRO stage %d (%s)", m.Name, m.Parameters(), c.Ranks,
		m.Tensor, m.Pipeline, c.Ranks/(m.Tensor*m.Pipeline), m.Zero, m.Source)
	scale := ""
	if c.Scale != 1 {
		scale = fmt.Sprintf(", scaled by %g", c.Scale)
	}
	p.line("a checkpoint: %d objects, %s (%.2f GiB)%s; the largest %s, uploaded in parts of %s", l.objects, sizeText(l.bytes),
		float64(l.bytes)/(1<<30), scale, sizeText(l.largest), sizeText(partSize(l.largest)))
	p.line("%d saves, then %d loads, each rank moving its objects one after another; %v of computation before each", c.Writes, c.Reads, c.Interval)
}

// ckptScript is one save or load: each of this process's ranks moves its
// objects in turn; a rank's time runs from the checkpoint's start to its
// last byte.
type ckptScript struct {
	c      CheckpointConfig
	l      ckptLayout
	op     string
	index  int
	lo, hi int
	rank   []result.RankIO
}

func (s *ckptScript) Issuers() int { return s.hi - s.lo }

func (s *ckptScript) Run(stop context.Context, iss []*loadgen.Issuer) error {
	s.rank = make([]result.RankIO, s.hi-s.lo)
	if s.op == "load" {
		// A file target's page cache holds what the saves wrote: dropped
		// first, untimed, so the load reads the storage.
		for k := range s.rank {
			for _, o := range s.l.ranks[s.lo+k] {
				if err := iss[k].DropCache(stop, s.key(o)); err != nil {
					return fmt.Errorf("drop the page cache of %s: %w", s.key(o), err)
				}
			}
		}
	}
	t0 := time.Now()
	var g errgroup.Group
	for k := range s.rank {
		r := s.lo + k
		g.Go(func() error {
			io := result.RankIO{Rank: r}
			for _, o := range s.l.ranks[r] {
				if stop.Err() != nil {
					break
				}
				op := loadgen.ScriptOp{Op: metrics.OpPut, Key: s.key(o), Size: o.Size}
				if s.op == "load" {
					op.Op = metrics.OpGet
				}
				n, err := iss[k].Do(op)
				io.Objects++
				io.Bytes += n
				if err != nil {
					io.Errors++
				}
			}
			io.Elapsed = time.Since(t0)
			s.rank[k] = io
			return nil
		})
	}
	return g.Wait()
}

// key is object o's key, below the run's namespace: DLIO's layout, a
// folder a checkpoint.
func (s *ckptScript) key(o CkptObject) string {
	return fmt.Sprintf("checkpoints/global_epoch1_step%d/%s.pt", s.index, o.Name)
}

func (s *ckptScript) Record(step *result.Step) {
	step.Checkpoint = &result.Checkpoint{Model: s.c.Model.Name, Op: s.op, Index: s.index, Ranks: s.c.Ranks, Scale: s.c.Scale,
		Bytes: s.l.bytes, Objects: s.l.objects, Rank: s.rank}
	if s.op == "save" {
		step.Checkpoint.GeneratorRate = s.c.GeneratorRate
	}
}
