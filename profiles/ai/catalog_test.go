package ai_test

import (
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/profiles/ai"
)

// The catalog holds the values of the files it names, as read from the
// public index of mlcommons/storage (configs/dlio/workload/FILE at the
// commit each row names) and, for v100, argonne-lcf/dlio_benchmark at
// e1919d7b6ccf (dlio_benchmark/configs/workload/FILE).
func TestCatalogIsTheConfigurationFiles(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		model, acc, commit, format string
		files                      int64
		spf                        int
		rec, stdev                 int64
		batch, threads             int
		compute                    time.Duration
		au                         float64
		epochs                     int
	}{
		{"unet3d", "b200", "0d75b41708cf", "npz", 7200, 1, 146600628, 68341808, 7, 4, 162 * ms, 0.90, 5},
		{"unet3d", "h100", "7e73663b64a7", "npz", 168, 1, 146600628, 68341808, 7, 4, 323 * ms, 0.90, 5},
		{"unet3d", "a100", "be18c3e5b174", "npz", 168, 1, 146600628, 68341808, 7, 4, 636 * ms, 0.90, 5},
		{"unet3d", "v100", "", "npz", 168, 1, 146600628, 68341808, 4, 4, 1360400 * time.Microsecond, 0.90, 5},
		{"retinanet", "b200", "11460d004cc3", "jpeg", 1170301, 1, 322957, 0, 24, 8, 47550 * time.Microsecond, 0.85, 8},
		{"retinanet", "mi355", "76f45459b8a0", "jpeg", 1170301, 1, 322957, 0, 32, 8, 63400 * time.Microsecond, 0.85, 8},
		{"retinanet", "h100", "fa2401266740", "jpeg", 1743042, 1, 153600, 51200, 16, 8, 180 * ms, 0.85, 5},
		{"retinanet", "a100", "c8d70b666796", "jpeg", 1743042, 1, 153600, 51200, 16, 8, 210 * ms, 0.85, 5},
		{"cosmoflow", "h100", "c25079c2400c", "tfrecord", 524288, 1, 2828486, 71311, 1, 4, 3500 * time.Microsecond, 0.70, 5},
		{"cosmoflow", "a100", "e3ffed051b17", "tfrecord", 524288, 1, 2828486, 71311, 1, 4, 5510 * time.Microsecond, 0.70, 5},
		{"cosmoflow", "v100", "", "tfrecord", 524288, 1, 2828486, 71311, 1, 4, 9360 * time.Microsecond, 0.90, 5},
		{"resnet50", "h100", "ac0424faa81f", "tfrecord", 1024, 1251, 114660, 0, 400, 8, 224 * ms, 0.90, 5},
		{"resnet50", "a100", "be18c3e5b174", "tfrecord", 1024, 1251, 114660, 0, 400, 8, 435 * ms, 0.90, 5},
		{"resnet50", "v100", "", "tfrecord", 1024, 1251, 114660, 0, 64, 8, 195 * ms, 0.90, 5},
		{"dlrm", "b200", "0b42eb505324", "parquet", 1024, 4718592, 761, 0, 16384, 4, 375 * time.Microsecond, 0.70, 1},
		{"dlrm", "mi355", "11460d004cc3", "parquet", 1024, 4718592, 761, 0, 16384, 4, 562500 * time.Nanosecond, 0.70, 1},
		{"dlrm", "h100", "a65ba8c32bc6", "npz", 65536, 1, 512, 0, 8192, 8, 5 * ms, 0.70, 1},
		{"dlrm", "a100", "a65ba8c32bc6", "npz", 65536, 1, 512, 0, 8192, 8, 7 * ms, 0.70, 1},
		{"flux", "b200", "c25079c2400c", "parquet", 4296, 288, 2164832, 0, 48, 8, 1350 * ms, 0.90, 1},
		{"flux", "mi355", "0b42eb505324", "parquet", 4296, 288, 2164832, 0, 72, 8, 2025 * ms, 0.90, 1},
		{"flux", "h100", "7e73663b64a7", "jpeg", 1099776, 1, 307200, 102400, 8, 8, 850 * ms, 0.80, 5},
		{"flux", "a100", "bdc54624fe4c", "jpeg", 1099776, 1, 307200, 102400, 8, 8, 1100 * ms, 0.80, 5},
	}
	if n := len(ai.Catalog()); n != len(cases) {
		t.Errorf("the catalog holds %d workloads, the table %d", n, len(cases))
	}
	for _, c := range cases {
		w, err := ai.Lookup(c.model, c.acc)
		if err != nil {
			t.Errorf("%s on %s: %v", c.model, c.acc, err)
			continue
		}
		got := []any{w.Format, w.Files, w.SamplesPerFile, w.RecordBytes, w.RecordStdev, w.BatchSize, w.ReadThreads, w.Prefetch, w.Compute, w.AUTarget, w.Epochs}
		want := []any{c.format, c.files, c.spf, c.rec, c.stdev, c.batch, c.threads, 2, c.compute, c.au, c.epochs}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s on %s: field %d is %v, want %v", c.model, c.acc, i, got[i], want[i])
			}
		}
		file := c.model + "_" + c.acc + ".yaml"
		src := "mlcommons/storage@" + c.commit + " configs/dlio/workload/" + file
		if c.commit == "" {
			src = "argonne-lcf/dlio_benchmark@e1919d7b6ccf (2026-06-17) dlio_benchmark/configs/workload/" + file
		}
		if w.Source != src {
			t.Errorf("%s on %s: source %q, want %q", c.model, c.acc, w.Source, src)
		}
		if (w.Parquet != nil) != (c.format == "parquet") || w.FileOrder != (c.format == "parquet") {
			t.Errorf("%s on %s: parquet %v, file order %v", c.model, c.acc, w.Parquet != nil, w.FileOrder)
		}
	}
}

// The parquet rows are the files' columns: flux's five float32 columns
// of 524328, 409, 8232, 8232 and 7 values, all read; dlrm's 200 columns
// of one value each, 40 read, in row groups of 6144 rows. Their widths
// add up to the files' record length (2164832 and 761 bytes).
func TestParquetRowsAreTheFilesColumns(t *testing.T) {
	for _, acc := range []string{"b200", "mi355"} {
		flux, _ := ai.Lookup("flux", acc)
		dlrm, _ := ai.Lookup("dlrm", acc)
		for _, c := range []struct {
			w            ai.Workload
			cols, read   int
			groupRows    int64
			first, lastR string
		}{
			{flux, 5, 0, 0, "t5_encodings", ""},
			{dlrm, 200, 40, 6144, "feature_000", "feature_195"},
		} {
			p := c.w.Parquet
			var bytes int64
			read, lastRead := 0, ""
			for _, col := range p.Columns {
				bytes += col.Bytes
				if col.Read {
					read, lastRead = read+1, col.Name
				}
			}
			if len(p.Columns) != c.cols || read != c.read || p.RowGroupRows != c.groupRows || bytes != c.w.RecordBytes ||
				p.Columns[0].Name != c.first || lastRead != c.lastR {
				t.Errorf("%s on %s: %d columns (%s first), %d read (%s last), %d rows a group, %d bytes a row; want %d, %d, %d, %d",
					c.w.Model, acc, len(p.Columns), p.Columns[0].Name, read, lastRead, p.RowGroupRows, bytes, c.cols, c.read, c.groupRows, c.w.RecordBytes)
			}
		}
		if b := flux.Parquet.Columns[0].Bytes; b != 4*524328 {
			t.Errorf("flux t5_encodings: %d bytes a row", b)
		}
	}
	if !strings.Contains(strings.Join(ai.Accelerators(), " "), "b200 h100 a100 v100 mi355") {
		t.Errorf("accelerators: %v", ai.Accelerators())
	}
}
