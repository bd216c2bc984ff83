package loadgen_test

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/mem"
	"github.com/objbench/objbench/workload"
)

// bucket is a mem store that can be created and removed like an S3 bucket.
type bucket struct {
	*mem.Store
	mu      sync.Mutex
	exists  bool
	refuse  error // CreateBucket fails with it
	deletes int   // Delete calls
}

func (b *bucket) CreateBucket(context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.refuse != nil {
		return b.refuse
	}
	b.exists = true
	return nil
}

func (b *bucket) Delete(ctx context.Context, key string) error {
	b.mu.Lock()
	b.deletes++
	b.mu.Unlock()
	return b.Store.Delete(ctx, key)
}

func (b *bucket) DeleteBucket(ctx context.Context) error {
	var n int
	_ = b.List(ctx, "", func(storage.ObjectInfo) error { n++; return nil })
	if n > 0 {
		return errors.New("BucketNotEmpty")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.exists = false
	return nil
}

func (b *bucket) BucketExists(context.Context) (bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.exists, nil
}

// cluster is a target with several buckets; names listed in existing
// exist before the run.
type cluster struct {
	mu      sync.Mutex
	buckets map[string]*bucket
	opened  []string
}

func newCluster(existing ...string) *cluster {
	c := &cluster{buckets: map[string]*bucket{}}
	for _, name := range existing {
		c.buckets[name] = &bucket{Store: mem.New(), exists: true}
	}
	return c
}

func (c *cluster) open(_ context.Context, _ *workload.Storage, name string) (storage.Store, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.opened = append(c.opened, name)
	if c.buckets[name] == nil {
		c.buckets[name] = &bucket{Store: mem.New()}
	}
	return c.buckets[name], nil
}

func sel(t *testing.T, s string) *workload.Selector {
	t.Helper()
	v, err := workload.ParseSelector(s)
	if err != nil {
		t.Fatal(err)
	}
	return &v
}

// cosbenchLike is COSBench's 80/20 sample: two buckets (one of which
// exists already), ten objects each, reads of 1..10, writes to 11..20.
func cosbenchLike(t *testing.T, verify bool) workload.Spec {
	ks := func(idx string, pick bool) workload.KeySpace {
		k := workload.KeySpace{Buckets: []string{"b1", "b2"}, Prefix: "myobjects_", Index: sel(t, idx)}
		if pick {
			k.BucketPick = sel(t, "u(1,2)")
		}
		return k
	}
	writes := ks("u(11,20)", true)
	return workload.Spec{Stages: []workload.Stage{
		{Name: "init", Kind: result.KindInit, Streams: []workload.Stream{{Objects: workload.KeySpace{Buckets: []string{"b1", "b2"}}}}},
		{Name: "prepare", Kind: result.KindPrepare, Streams: []workload.Stream{{Name: "p", Concurrency: []int{3}, Objects: ks("r(1,10)", false), Size: 1000}}},
		{Name: "main", Kind: result.KindMain, Streams: []workload.Stream{{
			Name: "m", Concurrency: []int{4}, Bounds: workload.Bounds{Ops: 400}, Objects: ks("u(1,10)", true), Size: 1000,
			Percent: true, Data: workload.Data{Verify: verify},
			Mix: []workload.OpWeight{{Op: "read", Weight: 80}, {Op: "write", Weight: 20, Objects: &writes}},
		}}},
		{Name: "cleanup", Kind: result.KindCleanup, Streams: []workload.Stream{{Concurrency: []int{2}, Objects: ks("r(1,20)", false)}}},
		{Name: "dispose", Kind: result.KindDispose},
	}}
}

func TestCOSBenchStyleWorkflowCreatesUsesAndRemovesOnlyItsOwn(t *testing.T) {
	ctx := context.Background()
	c := newCluster("b1") // b1 is someone's bucket; b2 is not there yet
	if _, err := c.buckets["b1"].Put(ctx, "myobjects_1", strings.NewReader("theirs"), 6, storage.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	cfg := config(t, mem.New(), cosbenchLike(t, true))
	cfg.OpenBucket = c.open
	out, err := loadgen.Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	kinds := []string{}
	for _, s := range out.Steps {
		kinds = append(kinds, s.Kind)
	}
	if !slices.Equal(kinds, []string{"init", "prepare", "main", "cleanup", "dispose"}) {
		t.Fatalf("steps ran %v", kinds)
	}
	if put := total(t, out.Steps[1], "PUT"); put.OK != 20 || put.Bytes != 20*1000 {
		t.Errorf("prepare wrote %d objects (%d bytes); want 10 in each of 2 buckets", put.OK, put.Bytes)
	}
	get, put := total(t, out.Steps[2], "GET"), total(t, out.Steps[2], "PUT")
	if get.Ops+put.Ops != 400 || get.OK != get.Ops || put.OK != put.Ops || get.Bytes != get.OK*1000 {
		t.Errorf("main: GET %d ok of %d, PUT %d ok of %d, %d bytes read; want 400 ops, all ok, verified", get.OK, get.Ops, put.OK, put.Ops, get.Bytes)
	}
	if share := float64(get.Ops) / 400; share < 0.72 || share > 0.88 {
		t.Errorf("read share %.2f, want 0.80±0.08", share)
	}
	if left := keys(t, c.buckets["b1"]); !slices.Equal(left, []string{"myobjects_1"}) {
		t.Errorf("b1 holds %v after cleanup; want only the object that was there before", left)
	}
	if ok, _ := c.buckets["b1"].BucketExists(ctx); !ok {
		t.Error("dispose removed b1, which this run did not create")
	}
	if ok, _ := c.buckets["b2"].BucketExists(ctx); ok {
		t.Error("dispose kept b2, which this run created")
	}
	notes := strings.Join(append(out.Steps[0].Notes, out.Steps[4].Notes...), "\n")
	for _, want := range []string{"bucket b1 exists", "created bucket b2", "kept bucket b1", "removed bucket b2"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
}

// corruptStore flips one byte of every object it returns, or with truncate
// returns only the first half of it (correct bytes, no error: what a
// consistent Content-Length over a truncated object looks like).
type corruptStore struct {
	storage.Store
	truncate bool
}

func (c corruptStore) Get(ctx context.Context, key string, o storage.GetOptions, w io.Writer) (int64, error) {
	var buf strings.Builder
	n, err := c.Store.Get(ctx, key, o, &buf)
	b := []byte(buf.String())
	switch {
	case c.truncate:
		b, n = b[:len(b)/2], int64(len(b)/2)
	case len(b) > 0:
		b[len(b)/2] ^= 1
	}
	_, _ = w.Write(b)
	return n, err
}

func TestVerifyCountsEveryCorruptReadAsAChecksumError(t *testing.T) {
	for _, c := range []struct {
		name     string
		corrupt  bool
		truncate bool
		verify   bool
		want     int64 // checksum errors among 400 GETs at most
	}{
		{"intact data verifies", false, false, true, 0},
		{"corrupt data is caught", true, false, true, -1},
		{"truncated data is caught", true, true, true, -1},
		{"corrupt data unnoticed without verify", true, false, false, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := newCluster()
			cfg := config(t, mem.New(), cosbenchLike(t, c.verify))
			cfg.OpenBucket = cl.open
			if c.corrupt {
				cfg.OpenBucket = func(ctx context.Context, st *workload.Storage, name string) (storage.Store, error) {
					s, err := cl.open(ctx, st, name)
					return struct {
						corruptStore
						storage.BucketManager
					}{corruptStore{s, c.truncate}, s.(storage.BucketManager)}, err
				}
			}
			out, err := loadgen.Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			get := total(t, out.Steps[2], "GET")
			bad := get.Errors[storage.ClassChecksum]
			if (c.want < 0 && (bad == 0 || bad != get.Ops)) || (c.want >= 0 && bad != c.want) {
				t.Errorf("%d checksum errors in %d GETs (errors %v)", bad, get.Ops, get.Errors)
			}
		})
	}
}

func TestErrorRatioStopsTheWorkflowButCleanupStillRuns(t *testing.T) {
	for _, c := range []struct {
		name      string
		ratio     float64
		wantAbort bool
	}{
		{"every stat fails, 20% allowed", 0.2, true},
		{"every stat fails, any failure stops", 0, true},
		{"all may fail", 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			sp := spec(workload.Stream{Name: "s", Mix: []workload.OpWeight{{Op: "stat", Weight: 1}}, Concurrency: []int{2},
				Bounds: workload.Bounds{Ops: 300}, Objects: workload.KeySpace{Prefix: "s/", Count: 3}, Size: 1})
			sp.Stages[1].OnError = &workload.FailurePolicy{MaxErrorRatio: c.ratio}
			after := sp.Stages[1]
			after.Name, after.OnError = "after", nil
			sp.Stages = slices.Insert(sp.Stages, 2, after)
			out, err := loadgen.Run(context.Background(), config(t, failingStore{mem.New()}, sp))
			if err != nil {
				t.Fatal(err)
			}
			ranAfter := slices.ContainsFunc(out.Steps, func(s result.Step) bool { return s.Stage == "after" })
			if (out.Aborted == "error-ratio") != c.wantAbort || ranAfter == c.wantAbort || !out.CleanedUp {
				t.Fatalf("aborted=%q (%s) ranAfter=%v cleaned=%v", out.Aborted, out.AbortDetail, ranAfter, out.CleanedUp)
			}
			if c.wantAbort && (!strings.Contains(out.AbortDetail, `stage "main"`) || len(out.Steps[1].Notes) == 0) {
				t.Errorf("detail %q, notes %v: want the stage and a note on its step", out.AbortDetail, out.Steps[1].Notes)
			}
			if st := total(t, out.Steps[1], "STAT"); c.wantAbort && st.Ops >= 300 {
				t.Errorf("the stage ran all %d ops although it crossed its error ratio", st.Ops)
			}
		})
	}
}

func TestSizeSweepRunsAStepPerSize(t *testing.T) {
	small, large := workload.Const(1000), workload.Const(50000)
	sp := workload.Spec{Stages: []workload.Stage{{Name: "w", Kind: result.KindMain, Streams: []workload.Stream{{
		Name: "w", Mix: []workload.OpWeight{{Op: "put", Weight: 1}}, Concurrency: []int{2}, Bounds: workload.Bounds{Ops: 20},
		Objects: workload.KeySpace{Prefix: "w/"}, Sweep: &workload.Sweep{SizeDists: []workload.Selector{small, large}},
	}}}, {Name: "cleanup", Kind: result.KindCleanup}}}
	out, err := loadgen.Run(context.Background(), config(t, mem.New(), sp))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int64{1000, 50000} {
		s := out.Steps[i]
		if p := total(t, s, "PUT"); p.OK != 20 || p.Bytes != 20*want {
			t.Errorf("step %d: %d PUTs, %d bytes; want 20 of %d", i, p.OK, p.Bytes, want)
		}
		if !strings.HasPrefix(s.Sweep, "size=") {
			t.Errorf("step %d is labelled %q", i, s.Sweep)
		}
	}
}

func TestMultipartAndRangedReadsVerify(t *testing.T) {
	size := workload.Const(12 << 20)
	big := workload.KeySpace{Prefix: "big/", Index: sel(t, "r(1,4)")}
	sp := workload.Spec{Stages: []workload.Stage{
		{Name: "prepare", Kind: result.KindPrepare, Streams: []workload.Stream{{Concurrency: []int{2}, Objects: workload.KeySpace{Prefix: "obj/", Index: sel(t, "r(1,5)")}, Size: 64 << 10}}},
		{Name: "main", Kind: result.KindMain, Streams: []workload.Stream{{
			Name: "m", Concurrency: []int{2}, Bounds: workload.Bounds{Ops: 60}, Objects: workload.KeySpace{Prefix: "obj/", Index: sel(t, "u(1,5)")},
			Size: 64 << 10, RangeSize: 1000, PartSize: 5 << 20, Data: workload.Data{Verify: true}, Percent: true,
			Mix: []workload.OpWeight{{Op: "ranged-read", Weight: 90}, {Op: "multipart", Weight: 10, Objects: &big, SizeDist: &size}},
		}}},
		{Name: "check", Kind: result.KindMain, Streams: []workload.Stream{{
			Name: "c", Concurrency: []int{1}, Bounds: workload.Bounds{Ops: 4}, Objects: workload.KeySpace{Prefix: "big/", Index: sel(t, "s(1,4)")},
			Data: workload.Data{Verify: true}, Mix: []workload.OpWeight{{Op: "get", Weight: 1}},
		}}},
	}}
	sp.Stages[1].Streams[0].Mix[1].Objects.Index = sel(t, "s(1,4)") // every big object written at least once
	store := mem.New()
	out, err := loadgen.Run(context.Background(), config(t, store, sp))
	if err != nil {
		t.Fatal(err)
	}
	rg, mp := total(t, out.Steps[1], "RANGE-GET"), total(t, out.Steps[1], "MULTIPART")
	if rg.OK != rg.Ops || rg.Bytes != rg.OK*1000 || mp.OK != mp.Ops || mp.OK < 4 || mp.Bytes != mp.OK*(12<<20) {
		t.Errorf("RANGE-GET %d/%d ok, %d bytes; MULTIPART %d/%d ok, %d bytes", rg.OK, rg.Ops, rg.Bytes, mp.OK, mp.Ops, mp.Bytes)
	}
	if g := total(t, out.Steps[2], "GET"); g.OK != 4 || g.Bytes != 4*(12<<20) {
		t.Errorf("reading the multipart objects back: %d ok, %d bytes, errors %v", g.OK, g.Bytes, g.Errors)
	}
}

// countingStore counts GETs per key.
type countingStore struct {
	storage.Store
	mu   sync.Mutex
	gets map[string]int
}

func (c *countingStore) Get(ctx context.Context, key string, o storage.GetOptions, w io.Writer) (int64, error) {
	c.mu.Lock()
	c.gets[key]++
	c.mu.Unlock()
	return c.Store.Get(ctx, key, o, w)
}

func TestIndexSelectorsDecideWhichObjectsAreRead(t *testing.T) {
	for _, c := range []struct {
		index string
		check func(t *testing.T, gets map[string]int)
	}{
		{"s(1,5)", func(t *testing.T, gets map[string]int) { // each exactly twice, in turn
			for i := 1; i <= 5; i++ {
				if n := gets[ns+"k"+string(rune('0'+i))]; n != 2 {
					t.Errorf("object %d read %d times, want 2 (%v)", i, n, gets)
				}
			}
		}},
		{"c(3)", func(t *testing.T, gets map[string]int) {
			if len(gets) != 1 || gets[ns+"k3"] != 10 {
				t.Errorf("gets %v; want all 10 of k3", gets)
			}
		}},
		{"zipf(1,5,3)", func(t *testing.T, gets map[string]int) { // a steep zipf: object 1 is hot
			if gets[ns+"k1"] < 6 {
				t.Errorf("hottest object read %d of 10 times (%v)", gets[ns+"k1"], gets)
			}
		}},
	} {
		t.Run(c.index, func(t *testing.T) {
			store := &countingStore{Store: mem.New(), gets: map[string]int{}}
			sp := workload.Spec{Stages: []workload.Stage{
				{Name: "prepare", Kind: result.KindPrepare, Streams: []workload.Stream{{Objects: workload.KeySpace{Prefix: "k", Index: sel(t, "r(1,5)")}, Size: 10}}},
				{Name: "main", Kind: result.KindMain, Streams: []workload.Stream{{Name: "g", Concurrency: []int{1}, Bounds: workload.Bounds{Ops: 10},
					Objects: workload.KeySpace{Prefix: "k", Index: sel(t, c.index)}, Mix: []workload.OpWeight{{Op: "get", Weight: 1}}}}},
			}}
			if _, err := loadgen.Run(context.Background(), config(t, store, sp)); err != nil {
				t.Fatal(err)
			}
			c.check(t, store.gets)
		})
	}
}

func TestDelayStageWaitsAndAnInterruptCutsItShort(t *testing.T) {
	sp := workload.Spec{Stages: []workload.Stage{{Name: "pause", Kind: result.KindDelay, Delay: 20 * time.Millisecond}}}
	out, err := loadgen.Run(context.Background(), config(t, mem.New(), sp))
	if err != nil {
		t.Fatal(err)
	}
	if e := out.Steps[0].Elapsed; e < 20*time.Millisecond {
		t.Errorf("delay of 20ms took %v", e)
	}
	sp.Stages[0].Delay = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out, err = loadgen.Run(ctx, config(t, mem.New(), sp))
	if err != nil || !out.Interrupted || len(out.Steps) != 0 {
		t.Errorf("an interrupted run still started its delay: %+v, %v", out, err)
	}
}

func TestARunNeedsANamespace(t *testing.T) {
	cfg := config(t, mem.New(), cosbenchLike(t, false))
	cfg.Namespace = ""
	if _, err := loadgen.Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "namespace") {
		t.Fatalf("a run without a namespace would write outside it; got %v", err)
	}
}

// noMultipart hides the mem store's multipart uploads.
type noMultipart struct{ storage.Store }

func TestAFailingStageStillCleansUp(t *testing.T) {
	store := mem.New()
	sp := spec(workload.Stream{Name: "g", Mix: []workload.OpWeight{{Op: "get", Weight: 1}}, Concurrency: []int{1},
		Bounds: workload.Bounds{Ops: 5}, Objects: workload.KeySpace{Prefix: "g/", Count: 3}, Size: 10})
	sp.Stages[1].Streams[0].Objects.Buckets = []string{"elsewhere"} // no OpenBucket: the stage cannot start
	out, err := loadgen.Run(context.Background(), config(t, store, sp))
	if err == nil || !strings.Contains(err.Error(), "elsewhere") {
		t.Fatalf("want the stage's error, got %v", err)
	}
	if !out.CleanedUp || len(keys(t, store)) != 0 {
		t.Errorf("after a failed stage: cleaned up %v, store holds %v", out.CleanedUp, keys(t, store))
	}
	mp := spec(workload.Stream{Name: "m", Mix: []workload.OpWeight{{Op: "multipart", Weight: 1}}, Concurrency: []int{1},
		Bounds: workload.Bounds{Ops: 1}, Objects: workload.KeySpace{Prefix: "m/"}, Size: 10})
	if _, err := loadgen.Run(context.Background(), config(t, noMultipart{mem.New()}, mp)); err == nil || !strings.Contains(err.Error(), "multipart") {
		t.Errorf("a store without multipart uploads must be refused before any stage: %v", err)
	}
}

// A workflow whose init fails wrote nothing: its cleanup sends no deletes
// (COSBench's cleanup enumerates numbered keys, none of which exist), and
// the failure is what the run returns.
func TestFailedInitSkipsCleanup(t *testing.T) {
	ctx := context.Background()
	c := newCluster("b1")
	c.buckets["b2"] = &bucket{Store: mem.New(), refuse: errors.New("InvalidBucketName")}
	cfg := config(t, mem.New(), cosbenchLike(t, false))
	cfg.OpenBucket = c.open
	out, err := loadgen.Run(ctx, cfg)
	if err == nil || !strings.Contains(err.Error(), "InvalidBucketName") {
		t.Fatalf("run error %v, want the init failure", err)
	}
	if n := c.buckets["b1"].deletes + c.buckets["b2"].deletes; n != 0 {
		t.Errorf("%d deletes sent for a run that wrote nothing", n)
	}
	var notes []string
	for _, s := range out.Steps {
		if s.Kind == result.KindCleanup {
			notes = s.Notes
		}
	}
	if !slices.Contains(notes, "nothing was written: cleanup skipped") {
		t.Errorf("cleanup notes %q, want it to say it was skipped", notes)
	}
}
