package ai_test

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/objbench/objbench/profiles/ai"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/run"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/mem"
)

// readLog is a store that notes every GET: its key and range.
type readLog struct {
	storage.Store
	mu    sync.Mutex
	reads []read
}

type read struct {
	key string
	rg  storage.Range // {0, -1}: the whole object
}

func (s *readLog) Get(ctx context.Context, key string, o storage.GetOptions, w io.Writer) (int64, error) {
	r := read{key: key, rg: storage.Range{Length: -1}}
	if o.Range != nil {
		r.rg = *o.Range
	}
	s.mu.Lock()
	s.reads = append(s.reads, r)
	s.mu.Unlock()
	return s.Store.Get(ctx, key, o, w)
}

func (s *readLog) take() []read {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.reads
	s.reads = nil
	return out
}

func runPlan(t *testing.T, st storage.Store, p *ai.Plan, o run.Options) *result.Run {
	t.Helper()
	if errs := p.Spec.Validate(); len(errs) > 0 {
		t.Fatalf("spec: %v", errs)
	}
	o.Scripts, o.NoWatch = p.Scripts, true
	res, err := run.Run(context.Background(), p.Spec, run.NewTarget(st, result.Target{Kind: "mem"}), o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func tiny() ai.Workload {
	return ai.Workload{Model: "tiny", Accelerator: "x", Files: 24, SamplesPerFile: 1, RecordBytes: 32 << 10, RecordStdev: 8 << 10,
		BatchSize: 2, ReadThreads: 2, Prefetch: 2, Compute: time.Millisecond, AUTarget: 0.9, Epochs: 2}
}

// Each epoch every accelerator reads exactly its shard of that epoch's
// seeded shuffle: together every file once (24 files, 3 accelerators, 4
// batches of 2 each), whole, each loader the bytes of its samples; the
// next epoch reads them in another order, the same again in another run.
func TestEveryAcceleratorReadsItsShardEachEpoch(t *testing.T) {
	w := tiny()
	st := &readLog{Store: mem.New()}
	p, err := ai.Train(ai.TrainConfig{Workload: w, Accelerators: 3, Generate: true, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	res := runPlan(t, st, p, run.Options{})
	ds := ai.NewDataset(w, 0, "")
	orders := map[int][]string{}
	for _, step := range res.Steps {
		if len(step.Training) != 1 {
			continue
		}
		tr := step.Training[0]
		if len(tr.Loaders) != 3 || tr.Errors() != 0 {
			t.Fatalf("%s: %d loaders, %d errors", step.Stage, len(tr.Loaders), tr.Errors())
		}
		var bytes int64
		for _, l := range tr.Loaders {
			if l.Steps != 4 || l.Samples != 8 || l.AU() <= 0 || l.AU() > 1 {
				t.Errorf("%s accelerator %d: %d steps, %d samples, AU %v", step.Stage, l.Accelerator, l.Steps, l.Samples, l.AU())
			}
			bytes += l.Bytes
		}
		if bytes != ds.Bytes() || step.Streams[0].Totals[0].Ops != 24 {
			t.Errorf("%s: loaders read %d bytes in %d GETs, the data set holds %d in 24 files", step.Stage, bytes, step.Streams[0].Totals[0].Ops, ds.Bytes())
		}
		orders[tr.Epoch] = nil
	}
	reads := st.take()
	var gets []read
	for _, r := range reads {
		if strings.Contains(r.key, "/train/") {
			gets = append(gets, r)
		}
	}
	if len(gets) != 48 {
		t.Fatalf("%d GETs of the data set, want 2 epochs x 24", len(gets))
	}
	for e := range 2 {
		seen := map[string]bool{}
		for _, r := range gets[e*24 : (e+1)*24] {
			if seen[r.key] || r.rg.Length != -1 {
				t.Errorf("epoch %d: %s read twice, or by range %+v", e+1, r.key, r.rg)
			}
			seen[r.key] = true
		}
	}
	if len(orders) != 2 {
		t.Errorf("epochs recorded: %v", orders)
	}
}

// A checkpoint's objects have the sizes the model implies (scaled), every
// rank's; loading reads each back whole.
func TestCheckpointObjectsHaveTheModelsSizes(t *testing.T) {
	m, _ := ai.LookupLLM("llama3-8b")
	scale := 1e-5
	st := &readLog{Store: mem.New()}
	p, err := ai.Checkpoints(ai.CheckpointConfig{Model: m, Ranks: 8, Writes: 2, Reads: 1, Interval: -1, Scale: scale, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	res := runPlan(t, st, p, run.Options{NoCleanup: true})
	shards, _ := m.Shards(8)
	want := map[string]int64{}
	var total int64
	for _, objs := range shards {
		for _, o := range objs {
			size := max(int64(float64(o.Size)*scale+0.5), 1)
			want["global_epoch1_step1/"+o.Name+".pt"] = size
			total += size
		}
	}
	got := map[string]int64{}
	ns := res.Target.Namespace + "checkpoints/"
	_ = st.List(context.Background(), ns+"global_epoch1_step1/", func(o storage.ObjectInfo) error {
		got[strings.TrimPrefix(o.Key, ns)] = o.Size
		return nil
	})
	if len(got) != len(want) {
		t.Fatalf("checkpoint 1 holds %d objects, want %d", len(got), len(want))
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%s: %d bytes, want %d", k, got[k], n)
		}
	}
	var saves, loads int
	for _, s := range res.Steps {
		c := s.Checkpoint
		if c == nil {
			continue
		}
		if c.Bytes != total || c.Moved() != total || c.Errors() != 0 || len(c.Rank) != 8 || c.Duration() <= 0 {
			t.Errorf("%s %d: %d bytes planned, %d moved, %d errors, %d ranks, duration %v; want %d", c.Op, c.Index, c.Bytes, c.Moved(), c.Errors(), len(c.Rank), c.Duration(), total)
		}
		if c.Op == "save" {
			saves++
		} else {
			loads++
		}
	}
	for _, r := range st.take() {
		if r.rg.Length != -1 || !strings.Contains(r.key, "global_epoch1_step1/") {
			t.Errorf("load read %s %+v: want whole objects of checkpoint 1", r.key, r.rg)
		}
	}
	if saves != 2 || loads != 1 {
		t.Errorf("%d saves, %d loads, want 2 and 1", saves, loads)
	}
}

// A query reads, of each of its files, the 8-byte tail, the footer, then
// the projected columns' chunks of every row group: exactly the ranges
// the layout implies, and nothing else.
func TestLakeQueriesReadTheLayoutsRanges(t *testing.T) {
	l := ai.LakeLayout{Files: 6, RowGroups: 3, Columns: 5, ColumnBytes: 1000, FooterBytes: 300, Projected: 2, Seed: 7}
	st := &readLog{Store: mem.New()}
	p, err := ai.Lake(ai.LakeConfig{Layout: l, Queries: 4, FilesPerQuery: 3, Concurrency: 2, Generate: true})
	if err != nil {
		t.Fatal(err)
	}
	res := runPlan(t, st, p, run.Options{})
	// By hand: chunks of columns 0..4 are c0..c4 bytes; a row group is
	// their sum; file = 4 + 3 x rowgroup + 300 + 8. Projected: columns 0
	// and 2 (j x 5 / 2).
	c := []int64{l.ChunkBytes(0), l.ChunkBytes(1), l.ChunkBytes(2), l.ChunkBytes(3), l.ChunkBytes(4)}
	rg := c[0] + c[1] + c[2] + c[3] + c[4]
	size := 4 + 3*rg + 300 + 8
	want := []storage.Range{{Offset: size - 8, Length: 8}, {Offset: size - 308, Length: 300}}
	for g := int64(0); g < 3; g++ {
		want = append(want, storage.Range{Offset: 4 + g*rg, Length: c[0]}, storage.Range{Offset: 4 + g*rg + c[0] + c[1], Length: c[2]})
	}
	byFile := map[string][]storage.Range{}
	for _, r := range st.take() {
		byFile[r.key] = append(byFile[r.key], r.rg)
	}
	// 4 queries x 3 files over 6 files: files 0..5, then 0..5 again.
	if len(byFile) != 6 {
		t.Fatalf("%d files read, want 6", len(byFile))
	}
	for k, rs := range byFile {
		if len(rs) != 2*len(want) {
			t.Errorf("%s: %d ranges, want 2 x %d", k, len(rs), len(want))
			continue
		}
		for i, r := range rs {
			if r != want[i%len(want)] {
				t.Errorf("%s: range %d is %+v, want %+v", k, i, r, want[i%len(want)])
			}
		}
	}
	lk := res.Steps[len(res.Steps)-1].Lake
	perFile := int64(8 + 300 + 3*(c[0]+c[2]))
	if lk == nil || lk.Queries != 4 || lk.Requests != 4*3*8 || lk.BytesRead != 12*perFile || lk.BytesScanned != 12*size || lk.Errors != 0 {
		t.Errorf("lake figures %+v; want 4 queries, 96 requests, %d bytes read of %d", lk, 12*perFile, 12*size)
	}
	if lk != nil && lk.FileBytes != size {
		t.Errorf("file size %d, want %d", lk.FileBytes, size)
	}
}

// Every plan is an ordinary workload that validates; one that cannot
// run names the field and value.
func TestPlansValidateAndBadInputIsNamed(t *testing.T) {
	for _, w := range ai.Catalog() {
		for _, fm := range []*ai.FindMax{nil, {Start: 1, Max: 8, RoundSteps: 10}} {
			p, err := ai.Train(ai.TrainConfig{Workload: w, Accelerators: 2, Generate: true, FindMax: fm})
			if err != nil {
				t.Errorf("%s on %s: %v", w.Model, w.Accelerator, err)
				continue
			}
			if errs := p.Spec.Validate(); len(errs) > 0 {
				t.Errorf("%s on %s: %v", w.Model, w.Accelerator, errs)
			}
		}
	}
	for _, m := range ai.LLMs() {
		p, err := ai.Checkpoints(ai.CheckpointConfig{Model: m})
		if err != nil || len(p.Spec.Validate()) > 0 {
			t.Errorf("%s: %v %v", m.Name, err, p.Spec.Validate())
		}
	}
	unet, _ := ai.Lookup("unet3d", "h100")
	if _, err := ai.Train(ai.TrainConfig{Workload: unet, Accelerators: 30}); err == nil || !strings.Contains(err.Error(), "30 accelerators") {
		t.Errorf("30 accelerators on 168 samples of batch 7: %v", err)
	}
	p, err := ai.Train(ai.TrainConfig{Workload: unet, Accelerators: 4})
	if err != nil || len(p.Spec.Validate()) > 0 || p.Spec.Dataset != "ai-unet3d-168f" || p.Check == nil {
		t.Errorf("unet3d x4: %v, dataset %q", err, p.Spec.Dataset)
	}
	if _, err := ai.Lookup("unet3d", "mi355"); err == nil || !strings.Contains(err.Error(), "b200, h100, a100, v100") {
		t.Errorf("unet3d on mi355: %v", err)
	}
	m, _ := ai.LookupLLM("llama3-70b")
	if _, err := ai.Checkpoints(ai.CheckpointConfig{Model: m, Ranks: 12}); err == nil || !strings.Contains(err.Error(), "ranks 12") {
		t.Errorf("70b on 12 ranks: %v", err)
	}
	if _, err := ai.Lake(ai.LakeConfig{Layout: ai.LakeLayout{Files: 1, RowGroups: 1, Columns: 2, ColumnBytes: 1, FooterBytes: 1, Projected: 3},
		Queries: 1, FilesPerQuery: 1, Concurrency: 1}); err == nil || !strings.Contains(err.Error(), "3 projected") {
		t.Errorf("3 of 2 columns projected: %v", err)
	}
}

// Samples inside larger objects (tfrecord) are each a ranged GET of its
// record: in an epoch every record of every file once.
func TestRecordsAreReadByRange(t *testing.T) {
	w := ai.Workload{Model: "records", Accelerator: "x", Files: 6, SamplesPerFile: 4, RecordBytes: 1000, BatchSize: 3,
		ReadThreads: 2, Prefetch: 2, Compute: time.Millisecond, AUTarget: 0.9, Epochs: 1}
	st := &readLog{Store: mem.New()}
	p, err := ai.Train(ai.TrainConfig{Workload: w, Accelerators: 2, Generate: true, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	res := runPlan(t, st, p, run.Options{})
	seen := map[read]int{}
	for _, r := range st.take() {
		if strings.Contains(r.key, "/train/") {
			seen[read{key: r.key[strings.LastIndex(r.key, "/")+1:], rg: r.rg}]++
		}
	}
	if len(seen) != 24 {
		t.Fatalf("%d distinct reads, want the 24 records", len(seen))
	}
	for r, n := range seen {
		if n != 1 || r.rg.Length != 1000 || r.rg.Offset%1000 != 0 || r.rg.Offset > 3000 {
			t.Errorf("%s %+v read %d times", r.key, r.rg, n)
		}
	}
	if tr := res.Steps[len(res.Steps)-1].Training[0]; tr.Errors() != 0 || tr.Loaders[0].Bytes+tr.Loaders[1].Bytes != 24000 {
		t.Errorf("%d errors, %d bytes", tr.Errors(), tr.Loaders[0].Bytes+tr.Loaders[1].Bytes)
	}
}
