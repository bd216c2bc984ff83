package ai

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/objbench/objbench/distributed"
	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/workload"
)

// DefaultSeed is the shuffle seed when none is given: DLIO's (reader
// seed, utils/config.py).
const DefaultSeed = 123

// TrainConfig is one emulated training run.
type TrainConfig struct {
	Workload Workload
	// Files overrides the workload's file count (a trial's smaller data
	// set, or MLPerf's sizing rule); 0: Workload.Files.
	Files int64
	// Dataset names the data set (default: "ai-MODEL-Nf").
	Dataset      string
	Accelerators int
	Epochs       int // 0: the workload's
	// Generate writes the data set first (GenerateWorkers uploads at once,
	// across all workers; default 16).
	Generate        bool
	GenerateWorkers int
	Seed            uint64 // shuffle seed; 0: DefaultSeed
	// Worker is this process's part of a run split across processes: it
	// runs its share of the accelerators (and writes its share of the
	// files).
	Worker distributed.Worker
	// FindMax, when set, searches the most accelerators instead of
	// running Accelerators for Epochs.
	FindMax *FindMax
	// MaxTime bounds each epoch (a find-max search: the whole search);
	// 0: an epoch runs to its end, a search gets DefaultSearchTime.
	MaxTime time.Duration
	// Verify checks every byte read against what generation wrote.
	Verify bool
}

// DefaultSearchTime bounds a find-max search without MaxTime.
const DefaultSearchTime = 30 * time.Minute

// DefaultRoundSteps is a find-max round's steps per accelerator.
const DefaultRoundSteps = 20

// NewDataset is the layout of w's data set with files files (0: the
// workload's), named name (default "ai-MODEL-Nf").
func NewDataset(w Workload, files int64, name string) Dataset {
	if files <= 0 {
		files = w.Files
	}
	if name == "" {
		name = fmt.Sprintf("ai-%s-%df", w.Model, files)
	}
	ds := Dataset{Name: name, Files: files, SamplesPerFile: w.SamplesPerFile, RecordBytes: w.RecordBytes,
		RecordStdev: w.RecordStdev, Format: w.Format, FileOrder: w.FileOrder, Parquet: w.Parquet, Seed: datasetSeed(name)}
	if w.Parquet != nil {
		ds.pq = newParquetLayout(w.Parquet, int64(w.SamplesPerFile))
	}
	return ds
}

// datasetSeed seeds a data set's layout from its name (FNV-1a).
func datasetSeed(name string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= 1099511628211
	}
	return h
}

func (c *TrainConfig) check() error {
	w := c.Workload
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	switch {
	case w.BatchSize < 1 || w.ReadThreads < 1 || w.RecordBytes < 1 || w.SamplesPerFile < 1:
		bad("workload %s: batch size %d, read threads %d, record bytes %d, samples per file %d: want each at least 1",
			w.Model, w.BatchSize, w.ReadThreads, w.RecordBytes, w.SamplesPerFile)
	case w.Compute < 0 || w.AUTarget <= 0 || w.AUTarget > 1:
		bad("workload %s: computation time %v, AU target %v: want a time of at least 0 and a target in (0, 1]", w.Model, w.Compute, w.AUTarget)
	}
	if c.Files < 0 || c.Accelerators < 0 || c.Epochs < 0 || c.MaxTime < 0 {
		bad("files %d, accelerators %d, epochs %d, max time %v: none may be negative", c.Files, c.Accelerators, c.Epochs, c.MaxTime)
	}
	if c.Dataset != "" && !workload.ValidDatasetName(c.Dataset) {
		bad("data set name %q: want 1 to 64 letters, digits, '.', '_' or '-'", c.Dataset)
	}
	if f := c.FindMax; f != nil && (f.Start < 1 || f.Max < f.Start || f.RoundSteps < 2) {
		bad("find-max from %d to %d accelerators, %d steps a round: want 1 <= start <= max and at least 2 steps", f.Start, f.Max, f.RoundSteps)
	}
	if c.FindMax != nil && !c.Worker.Solo() {
		bad("find-max searches from one process (worker %v of a split run): give the counts to try instead, a run each", c.Worker)
	}
	if c.FindMax == nil && c.Accelerators < 1 {
		bad("accelerators %d: want at least 1", c.Accelerators)
	}
	if c.FindMax == nil {
		errs = append(errs, splitCheck(c.Worker, "accelerator", c.Accelerators))
	}
	return errors.Join(errs...)
}

// Train plans an emulated training run: the data set's generation (with
// Generate), then an epoch a stage (or one find-max stage), each
// accelerator reading its shard of the epoch's seeded shuffle through its
// loader.
func Train(c TrainConfig) (*Plan, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	w := c.Workload
	if c.Epochs == 0 {
		c.Epochs = w.Epochs
	}
	if c.Seed == 0 {
		c.Seed = DefaultSeed
	}
	ds := NewDataset(w, c.Files, c.Dataset)
	if c.FindMax == nil {
		if steps := ShardOf(ds.Samples(), 0, c.Accelerators, w.BatchSize).Len / int64(w.BatchSize); steps < 2 {
			return nil, fmt.Errorf("the data set's %d samples give each of %d accelerators %d batches of %d an epoch: at least 2 are needed "+
				"(the first is left out of AU); give a larger data set or fewer accelerators", ds.Samples(), c.Accelerators, steps, w.BatchSize)
		}
	}
	p := newPlan(workload.Spec{Name: fmt.Sprintf("ai train %s on %s", w.Model, w.Accelerator), Dataset: ds.Name})
	inside := fmt.Sprintf("%d samples of %d bytes each", ds.SamplesPerFile, ds.RecordBytes)
	switch {
	case ds.pq != nil:
		inside = fmt.Sprintf("%d rows of %d bytes each", ds.SamplesPerFile, ds.RecordBytes)
	case ds.SamplesPerFile == 1:
		inside = fmt.Sprintf("one sample each, %d bytes on average", ds.RecordBytes)
	}
	p.line("data set %s: %s of %s (%s), %s in all, under %s", ds.Name, nOf(ds.Files, "file"),
		sizeText(ds.FileBytes()), inside, sizeText(ds.Bytes()), workload.DatasetNamespace(ds.Name))
	if c.Generate {
		planGenerate(p, c, ds)
	} else {
		p.Check = checkObjects(workload.DatasetNamespace(ds.Name), "data set "+ds.Name, []loadgen.ScriptOp{ds.Write(0), ds.Write(ds.Files - 1)})
	}
	read := workload.OpWeight{Op: workload.OpGet, Weight: 1}
	if ds.SamplesPerFile > 1 {
		read.Op = workload.OpRangeGet
	}
	stream := workload.Stream{Name: "train", Mix: []workload.OpWeight{read}, Objects: workload.KeySpace{Prefix: "train/", Count: int(ds.Files)},
		Data: workload.Data{Verify: c.Verify}}
	switch {
	case ds.pq != nil:
		stream.Size, stream.RangeSize = ds.FileBytes(), ds.pq.groupRange(0).Length
		p.line("%s", parquetLine(ds))
	case ds.SamplesPerFile > 1:
		stream.Size, stream.RangeSize = ds.FileBytes(), ds.RecordBytes
	}
	p.line("each accelerator: %d read threads, %d batches asked for ahead, batches of %s, %v of computation a batch; AU target %.0f%% (%s)",
		w.ReadThreads, w.Depth(), nOf(int64(w.BatchSize), "sample"), w.Compute, 100*w.AUTarget, w.Source)
	if c.FindMax != nil {
		planSearch(p, c, ds, stream)
		return p, nil
	}
	planEpochs(p, c, ds, stream)
	return p, nil
}

func planGenerate(p *Plan, c TrainConfig, ds Dataset) {
	lo, hi := c.Worker.Range(ds.Files)
	workers := c.GenerateWorkers
	if workers <= 0 {
		workers = 16
	}
	gen := workload.Stream{Name: "generate", Concurrency: []int{workers}, Objects: workload.KeySpace{Prefix: "train/", Count: int(ds.Files)},
		Size: ds.FileBytes()}
	p.Spec.Stages = append(p.Spec.Stages, workload.Stage{Name: "generate", Kind: workload.KindPrepare, Streams: []workload.Stream{gen}})
	local := int(c.Worker.Share(int64(workers)))
	p.script("generate", "generate", func(int) loadgen.Script {
		return &writeScript{n: hi - lo, op: func(i int64) loadgen.ScriptOp { return ds.Write(lo + i) }, issuers: max(local, 1), what: "generate"}
	})
	p.line("generate: %d PUTs of the files (%s), streamed from the payload generator, %d at once", ds.Files, sizeText(ds.Bytes()), workers)
	p.share(c.Worker, "generates ", "file", lo, hi, ds.Files, "")
}

func planEpochs(p *Plan, c TrainConfig, ds Dataset, stream workload.Stream) {
	w := c.Workload
	lo, hi := c.Worker.Range(int64(c.Accelerators))
	steps := ShardOf(ds.Samples(), 0, c.Accelerators, w.BatchSize).Len / int64(w.BatchSize)
	reads := int64(c.Accelerators) * steps * int64(w.BatchSize)
	stream.Concurrency = []int{c.Accelerators * w.ReadThreads}
	stream.Bounds = workload.Bounds{Ops: reads, Duration: c.MaxTime}
	var pqReqs, pqBytes int64
	if ds.pq != nil { // requests, not samples: a row group's GET reads many
		pqReqs, pqBytes = parquetEpoch(ds, c.Seed, 1, c.Accelerators, w.BatchSize, w.ReadThreads)
		stream.Bounds.Ops = pqReqs
	}
	for e := 1; e <= c.Epochs; e++ {
		name := fmt.Sprintf("epoch-%d", e)
		p.Spec.Stages = append(p.Spec.Stages, workload.Stage{Name: name, Kind: workload.KindMain, Streams: []workload.Stream{stream}})
		p.script(name, "train", func(int) loadgen.Script {
			return &epochScript{w: w, ds: ds, seed: c.Seed, epoch: e, accels: c.Accelerators, lo: int(lo), hi: int(hi)}
		})
	}
	order := "shuffle seed"
	if ds.FileOrder {
		order = "files shuffled (samples in file order), seed"
	}
	switch {
	case ds.pq != nil:
		p.line("%s, each: %s x %d steps x %d samples = %d rows, read in %d ranged GETs (%s; epoch 1's count); %s %d",
			nOf(int64(c.Epochs), "epoch"), nOf(int64(c.Accelerators), "accelerator"), steps, w.BatchSize, reads, pqReqs, sizeText(pqBytes), order, c.Seed)
	default:
		req := "GETs of whole files"
		if ds.SamplesPerFile > 1 {
			req = fmt.Sprintf("ranged GETs of %d bytes", ds.RecordBytes)
		}
		p.line("%s, each: %s x %d steps x %d samples = %d %s (%s); %s %d",
			nOf(int64(c.Epochs), "epoch"), nOf(int64(c.Accelerators), "accelerator"), steps, w.BatchSize, reads, req, sizeText(readBytes(ds, reads)), order, c.Seed)
	}
	if ds.pq != nil {
		p.share(c.Worker, "", "accelerator", lo, hi, int64(c.Accelerators), ": their shards of each epoch's row groups")
	} else {
		p.share(c.Worker, "", "accelerator", lo, hi, int64(c.Accelerators), ", %d of the %d reads of each epoch", (hi-lo)*steps*int64(w.BatchSize), reads)
	}
	if left := ds.Samples() - reads; left > 0 {
		p.line("each epoch leaves %s out: the accelerators' shards hold whole batches only", nOf(left, "sample"))
	}
}

func planSearch(p *Plan, c TrainConfig, ds Dataset, stream workload.Stream) {
	w := c.Workload
	fm := *c.FindMax
	limit := c.MaxTime
	if limit == 0 {
		limit = DefaultSearchTime
	}
	stream.Concurrency = []int{fm.Max * w.ReadThreads}
	stream.Bounds = workload.Bounds{Duration: limit}
	p.Spec.Stages = append(p.Spec.Stages, workload.Stage{Name: "find-max", Kind: workload.KindMain, Streams: []workload.Stream{stream}})
	p.script("find-max", "train", func(int) loadgen.Script {
		return &searchScript{w: w, ds: ds, seed: c.Seed, fm: fm}
	})
	p.line("find-max: rounds of %d steps per accelerator from %d accelerators, doubled while AU >= %.0f%%, then halved back to the edge; at most %d accelerators, %v in all",
		fm.RoundSteps, fm.Start, 100*w.AUTarget, fm.Max, limit)
}

// readBytes is about what reads of the data set's samples move: their
// count times a sample's mean size.
func readBytes(ds Dataset, reads int64) int64 {
	if ds.SamplesPerFile > 1 {
		return reads * ds.RecordBytes
	}
	return int64(float64(ds.Bytes()) / float64(ds.Files) * float64(reads))
}

// sizeText is a byte count as people read it (1000-based, as MLPerf
// Storage states sizes), with the exact count when small.
func sizeText(b int64) string {
	const k = 1000
	switch {
	case b >= k*k*k*k:
		return fmt.Sprintf("%.2f TB", float64(b)/(k*k*k*k))
	case b >= k*k*k:
		return fmt.Sprintf("%.2f GB", float64(b)/(k*k*k))
	case b >= k*k:
		return fmt.Sprintf("%.2f MB", float64(b)/(k*k))
	case b >= k:
		return fmt.Sprintf("%.1f kB", float64(b)/k)
	}
	return fmt.Sprintf("%d B", b)
}

// nOf is n and the noun, plural unless n is 1: "1 epoch", "5 epochs".
func nOf(n int64, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %s", n, plural(noun))
}

// plural is an English noun's plural: query, queries; day, days; file,
// files.
func plural(noun string) string {
	if base, ok := strings.CutSuffix(noun, "y"); ok && base != "" && !strings.ContainsRune("aeiou", rune(base[len(base)-1])) {
		return base + "ies"
	}
	return noun + "s"
}
