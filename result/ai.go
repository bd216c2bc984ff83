package result

import (
	"math"
	"slices"
	"time"

	"github.com/objbench/objbench/internal/resultpack"
)

// Training is what an emulated training job measured in a step (objbench
// ai train; version 8): one record per emulated accelerator for the
// epoch the step ran. The step's streams record every read beside it.
// Accelerator utilisation (AU) is DLIO's: the computation time of the
// steps that count over the wall time they took, per accelerator, and
// the step's AU is the mean over its accelerators.
type Training struct {
	Model       string `json:"model"`
	Accelerator string `json:"accelerator"`
	// Accelerators is how many ran together, in all workers.
	Accelerators int `json:"accelerators"`
	Epoch        int `json:"epoch"`
	BatchSize    int `json:"batch_size"`
	ReadThreads  int `json:"read_threads"`
	// Prefetch is the most batches a loader has asked for ahead of the
	// one its accelerator waits on.
	Prefetch int           `json:"prefetch_batches"`
	Compute  time.Duration `json:"compute_ns"` // per batch
	// AUTarget is the AU a run must keep to pass (MLPerf Storage: 0.90).
	AUTarget float64 `json:"au_target"`
	// DatasetSamples and DatasetBytes are the whole data set's.
	DatasetSamples int64    `json:"dataset_samples"`
	DatasetBytes   int64    `json:"dataset_bytes"`
	Loaders        []Loader `json:"loaders"`
}

// Loader is one emulated accelerator's epoch: its data loader's reads
// and its computation.
type Loader struct {
	// Accelerator numbers it among all the run's accelerators, from 0.
	Accelerator int `json:"accelerator"`
	// Steps are the batches it computed; Samples and Bytes what it read.
	Steps   int   `json:"steps"`
	Samples int64 `json:"samples"`
	Bytes   int64 `json:"bytes"`
	// Compute is the computation time of every step but the first, and
	// Wall the epoch's wall time less the first step's (DLIO leaves the
	// first step out of both: it waits for the loader to start).
	Compute time.Duration `json:"compute_ns"`
	Wall    time.Duration `json:"wall_ns"`
	Elapsed time.Duration `json:"elapsed_ns"` // the whole epoch
	// Wait is the encoded HDR histogram (µs) of the time it waited for
	// each batch.
	Wait string `json:"batch_wait_us,omitempty"`
	// Errors counts the samples whose read failed (each still counts as
	// read: a real job would have stopped).
	Errors int64 `json:"errors,omitempty"`
}

// AU is the loader's accelerator utilisation: Compute / Wall (0 when it
// computed nothing).
func (l Loader) AU() float64 {
	if l.Wall <= 0 || l.Compute <= 0 {
		return 0
	}
	return float64(l.Compute) / float64(l.Wall)
}

// AUAt is the loader's AU had each counted step computed exactly c: an
// emulator that overslept its computation (a client short of CPU keeps
// time late) would otherwise count its lateness as computation.
func (l Loader) AUAt(c time.Duration) float64 {
	if l.Wall <= 0 || l.Steps < 2 {
		return 0
	}
	return float64(time.Duration(l.Steps-1)*c) / float64(l.Wall)
}

// AU is the step's accelerator utilisation, the mean of its loaders'.
func (t *Training) AU() float64 {
	if len(t.Loaders) == 0 {
		return 0
	}
	var s float64
	for _, l := range t.Loaders {
		s += l.AU()
	}
	return s / float64(len(t.Loaders))
}

// AURange is the lowest and highest AU of the step's accelerators.
func (t *Training) AURange() (lo, hi float64) {
	for i, l := range t.Loaders {
		a := l.AU()
		if i == 0 || a < lo {
			lo = a
		}
		hi = max(hi, a)
	}
	return lo, hi
}

// AUAsked is the mean of the loaders' AU at the computation asked
// (Loader.AUAt): below AU when the emulator overslept.
func (t *Training) AUAsked() float64 {
	if len(t.Loaders) == 0 {
		return 0
	}
	var s float64
	for _, l := range t.Loaders {
		s += l.AUAt(t.Compute)
	}
	return s / float64(len(t.Loaders))
}

// ComputePerStep is the computation the loaders' counted steps took, on
// average (the asked Compute, plus the timers' lateness).
func (t *Training) ComputePerStep() time.Duration {
	var c time.Duration
	n := 0
	for _, l := range t.Loaders {
		c += l.Compute
		n += max(l.Steps-1, 0)
	}
	if n == 0 {
		return 0
	}
	return c / time.Duration(n)
}

// Late reports whether the emulated computation took clearly longer than
// asked (5% and 1 ms): the client fell behind its own timers, and AU, which
// counts that time as computation, overstates what the store did.
func (t *Training) Late() bool {
	return t.ComputePerStep() > t.Compute+t.Compute/20+time.Millisecond
}

// AUJudged is the AU that decides whether the step kept its target: the
// lower of DLIO's AU and the AU at the computation asked.
func (t *Training) AUJudged() float64 { return min(t.AU(), t.AUAsked()) }

// Met reports whether the step kept its AU target (AUJudged).
func (t *Training) Met() bool { return t.AUJudged() >= t.AUTarget }

// SamplesPerSec is the samples all accelerators consumed per second, each
// over the steps that count and their wall time (DLIO's throughput,
// summed over accelerators).
func (t *Training) SamplesPerSec() float64 {
	var s float64
	for _, l := range t.Loaders {
		if l.Wall > 0 && l.Steps > 1 {
			s += float64((l.Steps-1)*t.BatchSize) / l.Wall.Seconds()
		}
	}
	return s
}

// BytesPerSec is what SamplesPerSec reads, each loader's samples at their
// mean size.
func (t *Training) BytesPerSec() float64 {
	var s float64
	for _, l := range t.Loaders {
		if l.Wall > 0 && l.Steps > 1 && l.Samples > 0 {
			per := float64(l.Bytes) / float64(l.Samples)
			s += per * float64((l.Steps-1)*t.BatchSize) / l.Wall.Seconds()
		}
	}
	return s
}

// Errors is the failed reads of all loaders.
func (t *Training) Errors() int64 {
	var n int64
	for _, l := range t.Loaders {
		n += l.Errors
	}
	return n
}

// WaitPercentiles is the batch wait of every loader together.
func (t *Training) WaitPercentiles() (Percentiles, error) {
	var c resultpack.Codec
	encs := make([]string, 0, len(t.Loaders))
	for _, l := range t.Loaders {
		encs = append(encs, l.Wait)
	}
	enc, err := c.Sum(encs)
	if err != nil || enc == "" {
		return Percentiles{}, err
	}
	h, err := DecodeHistogram(enc)
	if err != nil {
		return Percentiles{}, err
	}
	return percentiles(h), nil
}

// MostFed is the most accelerators a --find-max step's rounds kept at
// their AU target (0: none did), and whether a round of more missed it
// (the search found the edge, rather than stopping at its maximum).
func MostFed(rounds []Training) (most int, bounded bool) {
	for i := range rounds {
		if rounds[i].Met() {
			most = max(most, rounds[i].Accelerators)
		}
	}
	for i := range rounds {
		if !rounds[i].Met() && rounds[i].Accelerators > most {
			bounded = true
		}
	}
	return most, bounded
}

// Checkpoint is one checkpoint save or load in a step (objbench ai
// checkpoint; version 8): every rank's objects, written or read whole.
type Checkpoint struct {
	Model string `json:"model"`
	// Op is "save" or "load"; Index numbers the checkpoint (from 1).
	Op    string `json:"op"`
	Index int    `json:"index"`
	// Ranks is how many ranks the checkpoint has, in all workers.
	Ranks int `json:"ranks"`
	// Scale is the factor its sizes were multiplied by (a trial run,
	// --scale); 1 for the model's true size.
	Scale float64 `json:"scale"`
	// Bytes and Objects are the whole checkpoint's, as the model implies.
	Bytes   int64    `json:"bytes"`
	Objects int      `json:"objects"`
	Rank    []RankIO `json:"rank_io"`
	// GeneratorRate is the payload generator's bytes per second on one
	// core, measured before the run (saves only; 0: not measured): at
	// BytesPerSec / GeneratorRate cores the generator, not the store,
	// would set the pace.
	GeneratorRate float64 `json:"generator_bytes_per_core_s,omitempty"`
}

// RankIO is one rank's part of a checkpoint.
type RankIO struct {
	Rank    int   `json:"rank"`
	Objects int   `json:"objects"`
	Bytes   int64 `json:"bytes"` // moved
	// Elapsed is from the checkpoint's start to the rank's last byte.
	Elapsed time.Duration `json:"elapsed_ns"`
	Errors  int           `json:"errors,omitempty"`
}

// Duration is the checkpoint's: until its slowest rank is done.
func (c *Checkpoint) Duration() time.Duration {
	var d time.Duration
	for _, r := range c.Rank {
		d = max(d, r.Elapsed)
	}
	return d
}

// Moved is the bytes the ranks moved.
func (c *Checkpoint) Moved() int64 {
	var n int64
	for _, r := range c.Rank {
		n += r.Bytes
	}
	return n
}

// BytesPerSec is the checkpoint's bytes over its duration.
func (c *Checkpoint) BytesPerSec() float64 {
	d := c.Duration()
	if d <= 0 {
		return 0
	}
	return float64(c.Moved()) / d.Seconds()
}

// Errors counts the ranks' failed objects.
func (c *Checkpoint) Errors() int {
	n := 0
	for _, r := range c.Rank {
		n += r.Errors
	}
	return n
}

// RankQuantile is the q-quantile (0..1) of the ranks' elapsed times, by
// nearest rank, and the slowest rank's number.
func (c *Checkpoint) RankQuantile(q float64) (time.Duration, int) {
	if len(c.Rank) == 0 {
		return 0, -1
	}
	rs := slices.Clone(c.Rank)
	slices.SortStableFunc(rs, func(a, b RankIO) int { return int(a.Elapsed - b.Elapsed) })
	i := int(math.Ceil(q*float64(len(rs)))) - 1
	i = min(max(i, 0), len(rs)-1)
	return rs[i].Elapsed, rs[len(rs)-1].Rank
}

// Lake is what a lakehouse scan measured in a step (objbench ai lake;
// version 8): queries that each read Parquet-shaped objects' footers
// and the projected columns' chunks by range.
type Lake struct {
	Files         int   `json:"files"` // in the data set
	FileBytes     int64 `json:"file_bytes"`
	RowGroups     int   `json:"row_groups"` // per file
	Columns       int   `json:"columns"`
	Projected     int   `json:"projected"`
	FilesPerQuery int   `json:"files_per_query"`
	// Queries, Requests and BytesRead are what ran; BytesScanned is the
	// size of the files the queries read from (their stored bytes).
	Queries      int64 `json:"queries"`
	Requests     int64 `json:"requests"`
	BytesRead    int64 `json:"bytes_read"`
	BytesScanned int64 `json:"bytes_scanned"`
	Errors       int64 `json:"errors,omitempty"`
	// Scan is the encoded HDR histogram (µs) of whole queries.
	Scan string `json:"scan_us,omitempty"`
}

// ScanPercentiles is the queries' scan time.
func (l *Lake) ScanPercentiles() (Percentiles, error) {
	if l.Scan == "" {
		return Percentiles{}, nil
	}
	h, err := DecodeHistogram(l.Scan)
	if err != nil {
		return Percentiles{}, err
	}
	return percentiles(h), nil
}
