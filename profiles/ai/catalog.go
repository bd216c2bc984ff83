package ai

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Where the catalog's parameters come from: MLPerf Storage's DLIO
// configurations, and DLIO's own for what MLPerf Storage does not have.
const (
	mlperfRepo = "mlcommons/storage@caa90c9c7d6a (v2.0, 2025-06-13)"
	dlioRepo   = "argonne-lcf/dlio_benchmark@e1919d7b6ccf (2026-06-17)"
)

// DefaultPrefetch is DLIO's reader.prefetch_size default (utils/config.py),
// which none of the catalog's configurations change.
const DefaultPrefetch = 2

// Workload is one training workload: a model's data set and loader, and
// the computation one accelerator spends per batch.
type Workload struct {
	Model       string
	Accelerator string
	// Files is num_files_train; SamplesPerFile is num_samples_per_file.
	// With one sample per file every sample is a whole object (npz);
	// with more, samples are records inside larger objects, each read by
	// byte range (tfrecord).
	Files          int64
	SamplesPerFile int
	// RecordBytes is a sample's size (record_length_bytes) and
	// RecordStdev its spread across files (record_length_bytes_stdev; one
	// sample per file only).
	RecordBytes int64
	RecordStdev int64
	BatchSize   int
	ReadThreads int
	// Prefetch is DLIO's prefetch_size (DefaultPrefetch).
	Prefetch int
	Compute  time.Duration // computation_time per batch
	AUTarget float64       // metric.au
	Epochs   int
	// Source is the configuration file these values are from.
	Source string
}

// FileBytes is a file's mean size.
func (w Workload) FileBytes() int64 { return w.RecordBytes * int64(w.SamplesPerFile) }

// Records reports whether samples are records read by range.
func (w Workload) Records() bool { return w.SamplesPerFile > 1 }

// Depth is how many batches a loader has asked for ahead of the one its
// accelerator waits on: PyTorch's prefetch_factor (DLIO sets it to
// ceil(prefetch_size / read_threads)) times the read threads.
func (w Workload) Depth() int {
	t := max(w.ReadThreads, 1)
	f := max((w.Prefetch+t-1)/t, 1)
	return f * t
}

func train(model, acc, file string, files int64, spf int, rec, stdev int64, batch, threads int, compute time.Duration, au float64) Workload {
	src := mlperfRepo + " configs/dlio/workload/" + file
	if acc == "v100" {
		src = dlioRepo + " dlio_benchmark/configs/workload/" + file
	}
	return Workload{Model: model, Accelerator: acc, Files: files, SamplesPerFile: spf, RecordBytes: rec, RecordStdev: stdev,
		BatchSize: batch, ReadThreads: threads, Prefetch: DefaultPrefetch, Compute: compute, AUTarget: au, Epochs: 5, Source: src}
}

// catalog is every training workload objbench knows. resnet50's
// record_length_bytes (114660.07) is a whole number of bytes here; the
// v100 files set no metric.au and DLIO's default (0.90) applies.
var catalog = []Workload{
	train("unet3d", "h100", "unet3d_h100.yaml", 168, 1, 146600628, 68341808, 7, 4, 323*time.Millisecond, 0.90),
	train("unet3d", "a100", "unet3d_a100.yaml", 168, 1, 146600628, 68341808, 7, 4, 636*time.Millisecond, 0.90),
	train("unet3d", "v100", "unet3d_v100.yaml", 168, 1, 146600628, 68341808, 4, 4, 1360400*time.Microsecond, 0.90),
	train("resnet50", "h100", "resnet50_h100.yaml", 1024, 1251, 114660, 0, 400, 8, 224*time.Millisecond, 0.90),
	train("resnet50", "a100", "resnet50_a100.yaml", 1024, 1251, 114660, 0, 400, 8, 435*time.Millisecond, 0.90),
	train("resnet50", "v100", "resnet50_v100.yaml", 1024, 1251, 114660, 0, 64, 8, 195*time.Millisecond, 0.90),
	train("cosmoflow", "h100", "cosmoflow_h100.yaml", 524288, 1, 2828486, 71311, 1, 4, 3500*time.Microsecond, 0.70),
	train("cosmoflow", "a100", "cosmoflow_a100.yaml", 524288, 1, 2828486, 71311, 1, 4, 5510*time.Microsecond, 0.70),
	train("cosmoflow", "v100", "cosmoflow_v100.yaml", 524288, 1, 2828486, 71311, 1, 4, 9360*time.Microsecond, 0.90),
}

// Catalog lists the training workloads, by model then accelerator.
func Catalog() []Workload { return slices.Clone(catalog) }

// Lookup finds model on accelerator (names in any case).
func Lookup(model, accelerator string) (Workload, error) {
	model, accelerator = strings.ToLower(model), strings.ToLower(accelerator)
	var accs []string
	known := false
	for _, w := range catalog {
		if w.Model != model {
			continue
		}
		known = true
		if w.Accelerator == accelerator {
			return w, nil
		}
		accs = append(accs, w.Accelerator)
	}
	if !known {
		return Workload{}, fmt.Errorf("model %q: want one of %s", model, strings.Join(Models(), ", "))
	}
	return Workload{}, fmt.Errorf("accelerator %q for %s: the sources give %s; another needs its computation time per batch",
		accelerator, model, strings.Join(accs, ", "))
}

// Models names the training models of the catalog.
func Models() []string {
	var out []string
	for _, w := range catalog {
		if !slices.Contains(out, w.Model) {
			out = append(out, w.Model)
		}
	}
	return out
}
