package ai

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/storage"
)

// Dataset is a training data set's layout: its files, their sizes and
// where each sample is. Its objects live under the data set's namespace
// (workload.DatasetNamespace(Name)), so one generated data set serves
// every later run.
type Dataset struct {
	Name           string
	Files          int64
	SamplesPerFile int
	RecordBytes    int64
	RecordStdev    int64
	// Format names the files' extension (Workload.Format); FileOrder
	// reads an epoch's samples in file order (Workload.FileOrder);
	// Parquet lays the files out as row groups (Workload.Parquet).
	Format    string
	FileOrder bool
	Parquet   *Parquet
	// Seed draws the files' sizes (from the name: the same in every run).
	Seed uint64
	pq   *parquetLayout
}

// minFileBytes bounds the sizes drawn for files from below: a normal
// draw far in its left tail would otherwise give empty files.
const minFileBytes = 4096

// Samples is the data set's sample count.
func (d Dataset) Samples() int64 { return d.Files * int64(d.SamplesPerFile) }

// Key is file f's key below the data set's namespace.
func (d Dataset) Key(f int64) string {
	ext := d.Format
	switch {
	case ext != "":
	case d.SamplesPerFile > 1:
		ext = "tfrecord"
	default:
		ext = "npz"
	}
	return fmt.Sprintf("train/img_%08d_of_%08d.%s", f, d.Files, ext)
}

// FileSize is file f's size: SamplesPerFile records, or, with a spread
// (one sample per file), a normal draw of mean RecordBytes and standard
// deviation RecordStdev seeded by (Seed, f), kept within 4 deviations
// and at least minFileBytes.
func (d Dataset) FileSize(f int64) int64 {
	if d.pq != nil {
		return d.pq.fileBytes
	}
	if d.RecordStdev <= 0 || d.SamplesPerFile > 1 {
		return d.RecordBytes * int64(d.SamplesPerFile)
	}
	r := rand.New(rand.NewPCG(d.Seed, uint64(f)))
	v := float64(d.RecordBytes) + r.NormFloat64()*float64(d.RecordStdev)
	lo, hi := float64(d.RecordBytes-4*d.RecordStdev), float64(d.RecordBytes+4*d.RecordStdev)
	return max(int64(math.Round(min(max(v, lo), hi))), minFileBytes)
}

// Bytes is the whole data set's size.
func (d Dataset) Bytes() int64 {
	if d.RecordStdev <= 0 || d.SamplesPerFile > 1 {
		return d.Files * d.FileBytes()
	}
	var n int64
	for f := range d.Files {
		n += d.FileSize(f)
	}
	return n
}

// FileBytes is a file's mean size.
func (d Dataset) FileBytes() int64 {
	if d.pq != nil {
		return d.pq.fileBytes
	}
	return d.RecordBytes * int64(d.SamplesPerFile)
}

// Read is the op that reads sample s: its whole file (one sample per
// file), or its record's bytes (parquet samples are read by a
// sampleReader, by row group).
func (d Dataset) Read(s int64) loadgen.ScriptOp {
	f := s / int64(d.SamplesPerFile)
	if d.SamplesPerFile == 1 {
		return loadgen.ScriptOp{Op: metrics.OpGet, Key: d.Key(f), Size: d.FileSize(f)}
	}
	off := (s % int64(d.SamplesPerFile)) * d.RecordBytes
	return loadgen.ScriptOp{Op: metrics.OpRangeGet, Key: d.Key(f), Size: d.FileSize(f),
		Range: storage.Range{Offset: off, Length: d.RecordBytes}}
}

// Write is the op that writes file f.
func (d Dataset) Write(f int64) loadgen.ScriptOp {
	return loadgen.ScriptOp{Op: metrics.OpPut, Key: d.Key(f), Size: d.FileSize(f)}
}
