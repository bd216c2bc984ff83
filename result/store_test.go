package result_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/mem"
)

// keys lists every key in st.
func keys(t *testing.T, st storage.Store) []string {
	t.Helper()
	var ks []string
	if err := st.List(context.Background(), "", func(o storage.ObjectInfo) error { ks = append(ks, o.Key); return nil }); err != nil {
		t.Fatal(err)
	}
	return ks
}

func TestCheckUploadLeavesNothingAndRefusesATakenKey(t *testing.T) {
	ctx := context.Background()
	st := mem.New()
	probe, err := result.CheckUpload(ctx, st, "runs/r1/worker-2.json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(probe, "runs/r1/.objbench-probe-worker-2-") {
		t.Errorf("probe %q: want it beside the result, named for it", probe)
	}
	if ks := keys(t, st); len(ks) != 0 {
		t.Errorf("the check left %v", ks)
	}
	// A key that holds an object (the last run's result) is refused, and kept.
	if _, err := st.Put(ctx, "runs/r1/worker-2.json", strings.NewReader("old"), 3, storage.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = result.CheckUpload(ctx, st, "runs/r1/worker-2.json")
	if !errors.Is(err, storage.ErrPreconditionFailed) || !strings.Contains(err.Error(), "runs/r1/worker-2.json") {
		t.Errorf("check of a taken key: %v; want a precondition error naming it", err)
	}
	if ks := keys(t, st); len(ks) != 1 {
		t.Errorf("after a refused check the store holds %v", ks)
	}
}

func TestUploadNeverReplacesAResult(t *testing.T) {
	ctx := context.Background()
	st := mem.New()
	first := &result.Run{RunInfo: result.RunInfo{RunID: "r1"}}
	if err := result.Upload(ctx, st, "runs/r1/worker-0.json", first); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := st.Get(ctx, "runs/r1/worker-0.json", storage.GetOptions{}, &buf); err != nil {
		t.Fatal(err)
	}
	got, err := result.Decode(&buf)
	if err != nil || got.RunID != "r1" {
		t.Fatalf("uploaded result reads back as %+v, %v", got, err)
	}
	second := &result.Run{RunInfo: result.RunInfo{RunID: "r2"}}
	err = result.Upload(ctx, st, "runs/r1/worker-0.json", second)
	if !errors.Is(err, storage.ErrPreconditionFailed) {
		t.Errorf("second upload to one key: %v; want ErrPreconditionFailed", err)
	}
	buf.Reset()
	if _, err := st.Get(ctx, "runs/r1/worker-0.json", storage.GetOptions{}, &buf); err != nil {
		t.Fatal(err)
	}
	if got, _ := result.Decode(&buf); got == nil || got.RunID != "r1" {
		t.Errorf("the first result was replaced: %+v", got)
	}
}

// failing is a store whose Put or Delete fails with err.
type failing struct {
	storage.Store
	put, del error
	ifNone   []string // the If-None-Match of each Put
}

func (f *failing) Put(ctx context.Context, key string, body io.Reader, size int64, o storage.PutOptions) (storage.ObjectInfo, error) {
	f.ifNone = append(f.ifNone, o.IfNoneMatch)
	if f.put != nil && (o.IfNoneMatch != "" || !errors.Is(f.put, storage.ErrNotImplemented)) {
		return storage.ObjectInfo{}, f.put
	}
	return f.Store.Put(ctx, key, body, size, o)
}

func (f *failing) Delete(ctx context.Context, key string) error {
	if f.del != nil {
		return f.del
	}
	return f.Store.Delete(ctx, key)
}

func TestCheckUploadSaysWhatFailed(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name     string
		st       *failing
		want     error
		wantText string
		left     int
		puts     []string
	}{
		{"no bucket", &failing{Store: mem.New(), put: storage.ErrBucketNotFound}, storage.ErrBucketNotFound, "probe runs/r/.objbench-probe-", 0, []string{"*"}},
		{"read-only", &failing{Store: mem.New(), put: storage.ErrAccessDenied}, storage.ErrAccessDenied, "probe runs/r/", 0, []string{"*"}},
		{"no delete", &failing{Store: mem.New(), del: storage.ErrAccessDenied}, storage.ErrAccessDenied, "written but not deleted", 1, []string{"*"}},
		// A store that answers 501 to If-None-Match gets the PUT again, without it.
		{"no conditions", &failing{Store: mem.New(), put: storage.ErrNotImplemented}, nil, "", 0, []string{"*", ""}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := result.CheckUpload(ctx, c.st, "runs/r/worker-0.json")
			if c.want == nil && err != nil || c.want != nil && (!errors.Is(err, c.want) || !strings.Contains(err.Error(), c.wantText)) {
				t.Errorf("got %v; want %v with %q", err, c.want, c.wantText)
			}
			if ks := keys(t, c.st); len(ks) != c.left {
				t.Errorf("left %v, want %d objects", ks, c.left)
			}
			if strings.Join(c.st.ifNone, ",") != strings.Join(c.puts, ",") {
				t.Errorf("PUTs with If-None-Match %q, want %q", c.st.ifNone, c.puts)
			}
		})
	}
}
