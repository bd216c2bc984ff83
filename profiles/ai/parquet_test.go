package ai_test

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/profiles/ai"
	"github.com/objbench/objbench/run"
	"github.com/objbench/objbench/s3server"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// embedded is a store on the embedded S3 server, every GET noted.
func embedded(t *testing.T) *readLog {
	t.Helper()
	srv, err := s3server.Start(context.Background(), s3server.Config{Buckets: []string{"ai-train"}, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(context.Background()) })
	st, err := s3.New(context.Background(), s3.Config{Endpoint: srv.Endpoint(), Bucket: "ai-train", AccessKey: srv.AccessKey(),
		SecretKey: srv.SecretKey(), Region: "us-east-1", PathStyle: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return &readLog{Store: st}
}

// A parquet data set is read as DLIO's S3 Parquet reader reads it, on
// the embedded server. By hand: 8 files of 64 rows of 72 bytes (columns
// of 10, 20, 5, 30 and 7 bytes; the 20 and 30 read), row groups of 16
// rows; a file is 4 + 64x72 + footer (512 + 32x5 + 96x4x5 = 2592) + 8 =
// 7212 bytes, less than the 64 KiB a thread reads from a file's end to
// open it, so an open is one GET of the whole file. A row group's read is
// its span from the 20-byte column to the end of the 30-byte one: 16 x
// 55 = 880 bytes at 4 + 16g x 72 + 16 x 10. Two accelerators of two
// threads, batches of 32: each accelerator's shard is 4 files of 2
// batches each, batch k going to thread k mod 2, so every file is
// opened by both threads of one accelerator and each of its 4 row
// groups read once: 16 opens and 32 row groups an epoch.
func TestParquetIsReadByRowGroupAsTheLayoutImplies(t *testing.T) {
	w := ai.Workload{Model: "pq", Accelerator: "x", Format: "parquet", Files: 8, SamplesPerFile: 64, RecordBytes: 72, FileOrder: true,
		Parquet: &ai.Parquet{RowGroupRows: 16, Columns: []ai.Column{{Name: "a", Bytes: 10}, {Name: "b", Bytes: 20, Read: true},
			{Name: "c", Bytes: 5}, {Name: "d", Bytes: 30, Read: true}, {Name: "e", Bytes: 7}}},
		BatchSize: 32, ReadThreads: 2, Prefetch: 2, Compute: time.Millisecond, AUTarget: 0.5, Epochs: 2}
	st := embedded(t)
	p, err := ai.Train(ai.TrainConfig{Workload: w, Accelerators: 2, Generate: true, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(p.Lines, "\n"), "= 512 rows, read in 48 ranged GETs") {
		t.Errorf("plan:\n%s", strings.Join(p.Lines, "\n"))
	}
	res := runPlan(t, st, p, run.Options{})
	const size = 7212
	var gets []read
	for _, r := range st.take() {
		if strings.Contains(r.key, "/train/") {
			if !strings.HasSuffix(r.key, ".parquet") {
				t.Fatalf("key %s", r.key)
			}
			gets = append(gets, r)
		}
	}
	if len(gets) != 2*48 {
		t.Fatalf("%d GETs, want 2 epochs x (16 opens + 32 row groups)", len(gets))
	}
	for e := range 2 {
		opens, groups := map[string]int{}, map[string][]int64{}
		for _, r := range gets[e*48 : (e+1)*48] {
			switch {
			case r.rg == storage.Range{Offset: 0, Length: size}:
				opens[r.key]++
			case r.rg.Length == 880 && (r.rg.Offset-4-160)%(16*72) == 0:
				groups[r.key] = append(groups[r.key], (r.rg.Offset-4-160)/(16*72))
			default:
				t.Errorf("epoch %d: %s read %+v: no open, no row group's span", e+1, r.key, r.rg)
			}
		}
		if len(opens) != 8 || len(groups) != 8 {
			t.Errorf("epoch %d: %d files opened, %d with row groups read; want 8", e+1, len(opens), len(groups))
		}
		for k, n := range opens {
			g := groups[k]
			sort.Slice(g, func(i, j int) bool { return g[i] < g[j] })
			if n != 2 || len(g) != 4 || g[0] != 0 || g[1] != 1 || g[2] != 2 || g[3] != 3 {
				t.Errorf("epoch %d: %s opened %d times, row groups %v; want 2 and each of 0..3 once", e+1, k, n, g)
			}
		}
	}
	for _, step := range res.Steps {
		if len(step.Training) != 1 {
			continue
		}
		for _, l := range step.Training[0].Loaders {
			// 4 files: 2 opens of 7212 bytes and 4 row groups of 880.
			if l.Samples != 256 || l.Errors != 0 || l.Bytes != 4*(2*size+4*880) {
				t.Errorf("%s accelerator %d: %d samples, %d errors, %d bytes; want 256, 0, %d", step.Stage, l.Accelerator, l.Samples, l.Errors, l.Bytes, 4*(2*size+4*880))
			}
		}
	}
}

// jpeg data sets hold one sample an object, read whole, under .jpeg keys.
func TestJPEGIsOneSampleAnObject(t *testing.T) {
	w := ai.Workload{Model: "img", Accelerator: "x", Format: "jpeg", Files: 12, SamplesPerFile: 1, RecordBytes: 3000, RecordStdev: 500,
		BatchSize: 3, ReadThreads: 2, Prefetch: 2, Compute: time.Millisecond, AUTarget: 0.5, Epochs: 1}
	st := embedded(t)
	p, err := ai.Train(ai.TrainConfig{Workload: w, Accelerators: 2, Generate: true, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	runPlan(t, st, p, run.Options{})
	seen := map[string]int{}
	for _, r := range st.take() {
		if strings.Contains(r.key, "/train/") {
			if !strings.HasSuffix(r.key, ".jpeg") || r.rg.Length != -1 {
				t.Errorf("%s %+v: want whole .jpeg objects", r.key, r.rg)
			}
			seen[r.key]++
		}
	}
	if len(seen) != 12 {
		t.Errorf("%d objects read, want the 12, once each: %v", len(seen), seen)
	}
}
