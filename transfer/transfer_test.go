package transfer_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/objbench/objbench/dataset"
	"github.com/objbench/objbench/payload"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/s3server"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/mem"
	"github.com/objbench/objbench/storage/s3"
	"github.com/objbench/objbench/transfer"
)

const mib = 1 << 20

// embedded starts the embedded server with bucket b and returns a store on it.
func embedded(t *testing.T) storage.Store {
	t.Helper()
	ctx := context.Background()
	srv, err := s3server.Start(ctx, s3server.Config{Buckets: []string{"bkt"}, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(ctx) })
	st, err := s3.New(ctx, s3.Config{Endpoint: srv.Endpoint(), Bucket: "bkt", Region: "us-east-1",
		AccessKey: srv.AccessKey(), SecretKey: srv.SecretKey(), PathStyle: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func sum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// roundTrip uploads plan up, verifies it, downloads the prefix to null:
// and to a directory, and returns that directory.
func roundTrip(t *testing.T, st storage.Store, up *transfer.Plan, o transfer.Options) string {
	t.Helper()
	ctx := context.Background()
	res, err := transfer.Run(ctx, st, up, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Objects != up.Objects() || res.Bytes != up.Bytes() || res.Retries != 0 {
		t.Fatalf("upload moved %d objects, %d bytes, %d retries; want %d, %d, 0", res.Objects, res.Bytes, res.Retries, up.Objects(), up.Bytes())
	}
	obj, err1 := result.DecodeHistogram(res.ObjectLatency)
	part, err2 := result.DecodeHistogram(res.PartLatency)
	if err1 != nil || err2 != nil || obj.TotalCount() != res.Objects || part.TotalCount() != res.Parts || part.ValueAtQuantile(99) <= 0 {
		t.Errorf("histograms: %v objects / %v parts (%v, %v) for %d objects, %d parts", obj.TotalCount(), part.TotalCount(), err1, err2, res.Objects, res.Parts)
	}
	c, err := transfer.Verify(ctx, st, up, res.Written)
	if err != nil || !c.OK() {
		t.Fatalf("verify: %v %v", c, err)
	}
	for _, dest := range []string{transfer.NullDest, t.TempDir()} {
		down, err := transfer.DownloadPlan(ctx, st, up.Prefix, dest, false)
		if err != nil {
			t.Fatal(err)
		}
		res, err := transfer.Run(ctx, st, down, o)
		if err != nil {
			t.Fatal(err)
		}
		if res.Objects != up.Objects() || res.Bytes != up.Bytes() {
			t.Fatalf("download to %s: %d objects, %d bytes", dest, res.Objects, res.Bytes)
		}
		if dest != transfer.NullDest {
			return dest
		}
	}
	return ""
}

func TestGeneratedRoundTrip(t *testing.T) {
	for name, st := range map[string]storage.Store{"mem": mem.New(), "embedded": embedded(t)} {
		t.Run(name, func(t *testing.T) {
			up, err := transfer.UploadPlan("gen:4x6MiB", "gen/", 42)
			if err != nil {
				t.Fatal(err)
			}
			got := roundTrip(t, st, up, transfer.Options{PartSize: 5 * mib, PartConcurrency: 3, Workers: 2})
			// The same seed makes the same bytes as `objbench gen files`.
			want := t.TempDir()
			if err := dataset.WriteFiles(context.Background(), want, 4, 6*mib, dataset.Options{Seed: 42}); err != nil {
				t.Fatal(err)
			}
			for i := range 4 {
				name := dataset.Name(i, 4)
				if sum(t, filepath.Join(got, name)) != sum(t, filepath.Join(want, name)) {
					t.Errorf("%s differs from gen files' %s", name, name)
				}
			}
		})
	}
}

func TestFileAndDirRoundTrip(t *testing.T) {
	src := t.TempDir()
	if err := dataset.WriteFile(context.Background(), filepath.Join(src, "big"), 13*mib+5, dataset.Options{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	if err := dataset.WriteFiles(context.Background(), filepath.Join(src, "sub"), 3, 1000, dataset.Options{Seed: 2}); err != nil {
		t.Fatal(err)
	}
	up, err := transfer.UploadPlan(src, "dir", 0)
	if err != nil {
		t.Fatal(err)
	}
	got := roundTrip(t, embedded(t), up, transfer.Options{PartSize: 5 * mib, PartConcurrency: 4})
	for _, rel := range []string{"big", "sub/file-1", "sub/file-3"} {
		if sum(t, filepath.Join(got, rel)) != sum(t, filepath.Join(src, rel)) {
			t.Errorf("%s: downloaded bytes differ", rel)
		}
	}
}

func TestUploadPlanKeys(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a1", "a2", "b"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ src, prefix, keys string }{
		{filepath.Join(dir, "a*"), "p/", "p/a1 p/a2"},
		{filepath.Join(dir, "a*"), "p", "p/a1 p/a2"},
		{filepath.Join(dir, "b"), "p/", "p/b"},
		{filepath.Join(dir, "b"), "p/renamed", "p/renamed"},
		{"gen:1KiB", "one", "one"},
		{"gen:2x1KiB", "two/", "two/file-1 two/file-2"},
		{"gen:10x1KiB", "", "file-01 file-02 file-03 file-04 file-05 file-06 file-07 file-08 file-09 file-10"},
	} {
		p, err := transfer.UploadPlan(c.src, c.prefix, 0)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		var keys []string
		for _, it := range transfer.PlanItems(p) {
			keys = append(keys, it.Key)
		}
		if got := strings.Join(keys, " "); got != c.keys {
			t.Errorf("%s -> %s: keys %q, want %q", c.src, c.prefix, got, c.keys)
		}
	}
	for _, bad := range []string{"gen:0x1KiB", "gen:5XB", filepath.Join(dir, "missing")} {
		if _, err := transfer.UploadPlan(bad, "p/", 0); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestDownloadRefusesToOverwrite(t *testing.T) {
	ctx := context.Background()
	st := mem.New()
	if _, err := st.Put(ctx, "p/x", strings.NewReader("new"), 3, storage.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := transfer.DownloadPlan(ctx, st, "p/", dir, false); !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), "Options.Force") {
		t.Fatalf("plan over an existing file: %v", err)
	}
	p, err := transfer.DownloadPlan(ctx, st, "p/", dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := transfer.Run(ctx, st, p, transfer.Options{}); err == nil {
		t.Fatal("run without Force replaced a file")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "x")); string(b) != "old" {
		t.Fatalf("file now holds %q", b)
	}
	if _, err := transfer.Run(ctx, st, p, transfer.Options{Force: true}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "x")); string(b) != "new" {
		t.Fatalf("with Force the file holds %q", b)
	}
}

// flaky fails part 2 of every upload with a 503 until fails runs out, and
// remembers aborted uploads.
type flaky struct {
	*mem.Store
	mu      sync.Mutex
	fails   int
	cancel  context.CancelFunc // if set, called at part 2 instead of failing
	aborted []string
}

func (f *flaky) UploadPart(ctx context.Context, key, id string, n int, body io.Reader, size int64, o storage.PutOptions) (storage.Part, error) {
	f.mu.Lock()
	fail := n == 2 && f.fails > 0
	if fail {
		f.fails--
	}
	f.mu.Unlock()
	if n == 2 && f.cancel != nil {
		f.cancel()
		return storage.Part{}, ctx.Err()
	}
	if fail {
		_, _ = io.Copy(io.Discard, body)
		return storage.Part{}, &storage.StatusError{StatusCode: 503, Code: "SlowDown"}
	}
	return f.Store.UploadPart(ctx, key, id, n, body, size, o)
}

func (f *flaky) AbortMultipart(ctx context.Context, key, id string) error {
	f.mu.Lock()
	f.aborted = append(f.aborted, key)
	f.mu.Unlock()
	return f.Store.AbortMultipart(ctx, key, id)
}

func TestRetriesThenAborts(t *testing.T) {
	ctx := context.Background()
	p, err := transfer.UploadPlan("gen:12MiB", "k", 0)
	if err != nil {
		t.Fatal(err)
	}
	o := transfer.Options{PartSize: 5 * mib, Retries: 2}
	st := &flaky{Store: mem.New(), fails: 2}
	res, err := transfer.Run(ctx, st, p, o)
	if err != nil || res.Retries != 2 || len(st.aborted) != 0 {
		t.Fatalf("two failures, two retries allowed: err %v, %d retries, aborted %v", err, res.Retries, st.aborted)
	}
	// The failed attempts read part 2's body to the end: each retry must
	// send it again from its start.
	b, err := payload.NewBlock(payload.DefaultBlockSize, p.Seed, 0)
	if err != nil {
		t.Fatal(err)
	}
	v := payload.NewVerifier(b)
	v.Reset(transfer.PlanItems(p)[0].Seed, 0)
	if n, err := st.Get(ctx, "k", storage.GetOptions{}, v); err != nil || n != 12*mib || v.Mismatch() >= 0 {
		t.Fatalf("after the retries the object reads %d bytes (%v), first wrong byte at %d", n, err, v.Mismatch())
	}
	st = &flaky{Store: mem.New(), fails: 3}
	res, err = transfer.Run(ctx, st, p, o)
	var se *storage.StatusError
	if !errors.As(err, &se) || res.Retries != 2 || len(st.aborted) != 1 || res.Objects != 0 {
		t.Fatalf("three failures: err %v, %d retries, aborted %v", err, res.Retries, st.aborted)
	}
	if n := countKeys(t, st.Store); n != 0 {
		t.Fatalf("%d objects after a failed upload", n)
	}
	// An interrupted upload is aborted too, though its context is gone.
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st = &flaky{Store: mem.New(), cancel: cancel}
	if _, err := transfer.Run(cctx, st, p, o); !errors.Is(err, context.Canceled) || len(st.aborted) != 1 {
		t.Fatalf("interrupted run: %v, aborted %v", err, st.aborted)
	}
}

func countKeys(t *testing.T, st storage.Store) int {
	n := 0
	if err := st.List(context.Background(), "", func(storage.ObjectInfo) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestAutoPartSize(t *testing.T) {
	for _, c := range []struct{ size, want int64 }{
		{1, 8 * mib},
		{1 << 30, 16 * mib},
		{100 << 30, 16 * mib},
		{1 << 40, 105 * mib}, // 1 TiB / 10,000 parts, rounded up to whole MiB
	} {
		got := transfer.AutoPartSize(c.size)
		if got != c.want || (c.size+got-1)/got > transfer.MaxParts {
			t.Errorf("AutoPartSize(%d) = %d, want %d", c.size, got, c.want)
		}
	}
	o := transfer.Options{}.Resolve(&transfer.Plan{Items: make([]transfer.Item, 100)})
	if o.Workers != 16 || o.PartConcurrency != 1 || o.Retries != 3 {
		t.Errorf("small objects: %+v", o)
	}
	o = transfer.Options{}.Resolve(&transfer.Plan{Items: []transfer.Item{{Size: 1 << 30}}})
	if o.Workers != 1 || o.PartConcurrency != 4 || o.PartSize != 16*mib {
		t.Errorf("one big object: %+v", o)
	}
}

func TestExactKeyAndDirectoryPrefix(t *testing.T) {
	ctx := context.Background()
	st := mem.New()
	for _, key := range []string{"k", "k2", "d/x", "d2/y"} {
		p, err := transfer.UploadPlan("gen:1KiB", key, 1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := transfer.Run(ctx, st, p, transfer.Options{}); err != nil {
			t.Fatal(err)
		}
		if c, err := transfer.Verify(ctx, st, p, nil); err != nil || !c.OK() {
			t.Errorf("%s: %v %v", key, c, err)
		}
	}
	for prefix, want := range map[string]string{"k": "k", "d": "d/x", "d/": "d/x"} {
		p, err := transfer.DownloadPlan(ctx, st, prefix, transfer.NullDest, false)
		if err != nil {
			t.Fatalf("download %s: %v", prefix, err)
		}
		var keys []string
		if err := p.Each(ctx, func(it transfer.Item) error { keys = append(keys, it.Key); return nil }); err != nil || len(keys) != 1 || keys[0] != want {
			t.Errorf("download %s: %v %v", prefix, keys, err)
		}
		_ = p.Close()
	}
	if _, err := transfer.DownloadPlan(ctx, st, "nothing", transfer.NullDest, false); err == nil {
		t.Error("download of nothing: no error")
	}
}

// TestSecondUploadIntoTheSamePrefix is seed 000's sequence: file10g, then
// file100g into the same prefix. The second transfer checks the key it
// wrote and reports the first one's object, not fails on it; an object
// replaced or removed after the upload fails the check.
func TestSecondUploadIntoTheSamePrefix(t *testing.T) {
	ctx := context.Background()
	for name, st := range map[string]storage.Store{"mem": mem.New(), "embedded": embedded(t)} {
		t.Run(name, func(t *testing.T) {
			upload := func(src, key string) (*transfer.Plan, *transfer.Result) {
				t.Helper()
				p, err := transfer.UploadPlan(src, key, 3)
				if err != nil {
					t.Fatal(err)
				}
				res, err := transfer.Run(ctx, st, p, transfer.Options{PartSize: 5 * mib})
				if err != nil {
					t.Fatal(err)
				}
				return p, res
			}
			p1, r1 := upload("gen:6MiB", "file/file10g")
			if c, err := transfer.Verify(ctx, st, p1, r1.Written); err != nil || !c.OK() || c.Others != 0 {
				t.Fatalf("first: %v %v", c, err)
			}
			// Into the directory file/: the other object is under it too.
			p2, r2 := upload("gen:2x1MiB", "file/")
			c, err := transfer.Verify(ctx, st, p2, r2.Written)
			if err != nil || !c.OK() || c.Objects != 2 || c.Others != 1 || c.OtherBytes != 6*mib {
				t.Fatalf("second: %+v %v", c, err)
			}
			if c.Compared != 2 || !strings.Contains(c.String(), "verified: 2 objects, 2097152 bytes") ||
				!strings.Contains(c.String(), "1 objects, 6291456 bytes already under the prefix") {
				t.Errorf("second: %s (%d ETags compared)", c, c.Compared)
			}
			// Another writer replaces one key with other bytes of the same
			// size, and deletes the other.
			other := make([]byte, mib)
			other[0] = 1
			if _, err := st.Put(ctx, transfer.PlanItems(p2)[0].Key, bytes.NewReader(other), mib, storage.PutOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := st.Delete(ctx, transfer.PlanItems(p2)[1].Key); err != nil {
				t.Fatal(err)
			}
			c, err = transfer.Verify(ctx, st, p2, r2.Written)
			if err != nil || c.OK() || c.Changed != 1 || c.Missing != 1 || c.Objects != 0 {
				t.Errorf("after another writer: %+v %v", c, err)
			}
		})
	}
}
