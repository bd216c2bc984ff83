package ai

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Where the catalog's parameters come from: MLPerf Storage's DLIO
// configurations (v3.0; each entry names the commit of its file), and
// DLIO's own for what MLPerf Storage does not have (v100).
const (
	mlperfRepo = "mlcommons/storage"
	// mlperfV2 is the MLPerf Storage release the checkpoint models were
	// read from.
	mlperfV2 = mlperfRepo + "@caa90c9c7d6a (v2.0, 2025-06-13)"
	dlioRepo = "argonne-lcf/dlio_benchmark@e1919d7b6ccf (2026-06-17)"
)

// DefaultPrefetch is DLIO's reader.prefetch_size default (utils/config.py);
// the dlrm files set it to the same 2.
const DefaultPrefetch = 2

// Workload is one training workload: a model's data set and loader, and
// the computation one accelerator spends per batch.
type Workload struct {
	Model       string
	Accelerator string
	// Format is dataset.format: npz and jpeg hold one sample per object;
	// tfrecord holds records read by byte range when there are several
	// per file; parquet holds rows in row groups (Parquet). Empty: npz
	// with one sample per file, tfrecord with more.
	Format string
	// Files is num_files_train; SamplesPerFile is num_samples_per_file.
	Files          int64
	SamplesPerFile int
	// RecordBytes is a sample's size (record_length_bytes; a Parquet
	// row's) and RecordStdev its spread across files
	// (record_length_bytes_stdev; one sample per file only).
	RecordBytes int64
	RecordStdev int64
	// FileOrder says the configuration shuffles files only (file_shuffle
	// without sample_shuffle): an epoch reads the shuffled files' samples
	// in file order, as DLIO does then.
	FileOrder bool
	// Parquet is the row layout of a parquet data set.
	Parquet     *Parquet
	BatchSize   int
	ReadThreads int
	// Prefetch is DLIO's prefetch_size (DefaultPrefetch).
	Prefetch int
	Compute  time.Duration // computation_time per batch
	AUTarget float64       // metric.au
	Epochs   int           // train.epochs
	// Source is the configuration file these values are from.
	Source string
}

// FileBytes is a file's mean size.
func (w Workload) FileBytes() int64 {
	if w.Parquet != nil {
		return newParquetLayout(w.Parquet, int64(w.SamplesPerFile)).fileBytes
	}
	return w.RecordBytes * int64(w.SamplesPerFile)
}

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

// mlperf is the source of an MLPerf Storage configuration file at commit.
func mlperf(file, commit string) string {
	return mlperfRepo + "@" + commit + " configs/dlio/workload/" + file
}

// dlio is the source of a DLIO configuration file.
func dlio(file string) string { return dlioRepo + " dlio_benchmark/configs/workload/" + file }

// entry is a catalog entry: model on acc from format's files of spf
// samples of rec bytes (stdev across files), read batch at a time by
// threads, compute a batch, AU target au, epochs epochs.
func entry(model, acc, src, format string, files int64, spf int, rec, stdev int64, batch, threads int, compute float64, au float64, epochs int) Workload {
	return Workload{Model: model, Accelerator: acc, Format: format, Files: files, SamplesPerFile: spf, RecordBytes: rec, RecordStdev: stdev,
		BatchSize: batch, ReadThreads: threads, Prefetch: DefaultPrefetch, Compute: time.Duration(compute*1e9 + 0.5), AUTarget: au,
		Epochs: epochs, Source: src}
}

// parquetEntry is entry for a parquet data set read in file order (the
// parquet files set file_shuffle only).
func parquetEntry(w Workload, p *Parquet) Workload {
	w.Parquet, w.FileOrder = p, true
	return w
}

// catalog is every training workload objbench knows, with the values of
// the files named (read from the public index of mlcommons/storage; a
// test holds the same numbers). resnet50's record_length_bytes
// (114660.07) is a whole number of bytes here; the v100 files set no
// metric.au and DLIO's default (0.90) applies.
var catalog = []Workload{
	entry("unet3d", "b200", mlperf("unet3d_b200.yaml", "0d75b41708cf"), "npz", 7200, 1, 146600628, 68341808, 7, 4, 0.162, 0.90, 5),
	entry("unet3d", "h100", mlperf("unet3d_h100.yaml", "7e73663b64a7"), "npz", 168, 1, 146600628, 68341808, 7, 4, 0.323, 0.90, 5),
	entry("unet3d", "a100", mlperf("unet3d_a100.yaml", "be18c3e5b174"), "npz", 168, 1, 146600628, 68341808, 7, 4, 0.636, 0.90, 5),
	entry("unet3d", "v100", dlio("unet3d_v100.yaml"), "npz", 168, 1, 146600628, 68341808, 4, 4, 1.3604, 0.90, 5),
	entry("retinanet", "b200", mlperf("retinanet_b200.yaml", "11460d004cc3"), "jpeg", 1170301, 1, 322957, 0, 24, 8, 0.04755, 0.85, 8),
	entry("retinanet", "mi355", mlperf("retinanet_mi355.yaml", "76f45459b8a0"), "jpeg", 1170301, 1, 322957, 0, 32, 8, 0.0634, 0.85, 8),
	entry("retinanet", "h100", mlperf("retinanet_h100.yaml", "fa2401266740"), "jpeg", 1743042, 1, 153600, 51200, 16, 8, 0.180, 0.85, 5),
	entry("retinanet", "a100", mlperf("retinanet_a100.yaml", "c8d70b666796"), "jpeg", 1743042, 1, 153600, 51200, 16, 8, 0.210, 0.85, 5),
	entry("cosmoflow", "h100", mlperf("cosmoflow_h100.yaml", "c25079c2400c"), "tfrecord", 524288, 1, 2828486, 71311, 1, 4, 0.00350, 0.70, 5),
	entry("cosmoflow", "a100", mlperf("cosmoflow_a100.yaml", "e3ffed051b17"), "tfrecord", 524288, 1, 2828486, 71311, 1, 4, 0.00551, 0.70, 5),
	entry("cosmoflow", "v100", dlio("cosmoflow_v100.yaml"), "tfrecord", 524288, 1, 2828486, 71311, 1, 4, 0.00936, 0.90, 5),
	entry("resnet50", "h100", mlperf("resnet50_h100.yaml", "ac0424faa81f"), "tfrecord", 1024, 1251, 114660, 0, 400, 8, 0.224, 0.90, 5),
	entry("resnet50", "a100", mlperf("resnet50_a100.yaml", "be18c3e5b174"), "tfrecord", 1024, 1251, 114660, 0, 400, 8, 0.435, 0.90, 5),
	entry("resnet50", "v100", dlio("resnet50_v100.yaml"), "tfrecord", 1024, 1251, 114660, 0, 64, 8, 0.195, 0.90, 5),
	parquetEntry(entry("dlrm", "b200", mlperf("dlrm_b200.yaml", "0b42eb505324"), "parquet", 1024, 4718592, 761, 0, 16384, 4, 0.000375, 0.70, 1), dlrmParquet()),
	parquetEntry(entry("dlrm", "mi355", mlperf("dlrm_mi355.yaml", "11460d004cc3"), "parquet", 1024, 4718592, 761, 0, 16384, 4, 0.0005625, 0.70, 1), dlrmParquet()),
	entry("dlrm", "h100", mlperf("dlrm_h100.yaml", "a65ba8c32bc6"), "npz", 65536, 1, 512, 0, 8192, 8, 0.005, 0.70, 1),
	entry("dlrm", "a100", mlperf("dlrm_a100.yaml", "a65ba8c32bc6"), "npz", 65536, 1, 512, 0, 8192, 8, 0.007, 0.70, 1),
	parquetEntry(entry("flux", "b200", mlperf("flux_b200.yaml", "c25079c2400c"), "parquet", 4296, 288, 2164832, 0, 48, 8, 1.35, 0.90, 1), fluxParquet()),
	parquetEntry(entry("flux", "mi355", mlperf("flux_mi355.yaml", "0b42eb505324"), "parquet", 4296, 288, 2164832, 0, 72, 8, 2.025, 0.90, 1), fluxParquet()),
	entry("flux", "h100", mlperf("flux_h100.yaml", "7e73663b64a7"), "jpeg", 1099776, 1, 307200, 102400, 8, 8, 0.850, 0.80, 5),
	entry("flux", "a100", mlperf("flux_a100.yaml", "bdc54624fe4c"), "jpeg", 1099776, 1, 307200, 102400, 8, 8, 1.100, 0.80, 5),
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

// Accelerators names the accelerators of the catalog, any model's.
func Accelerators() []string {
	var out []string
	for _, w := range catalog {
		if !slices.Contains(out, w.Accelerator) {
			out = append(out, w.Accelerator)
		}
	}
	return out
}
