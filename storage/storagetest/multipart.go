package storagetest

import (
	"bytes"
	"testing"

	"github.com/objbench/objbench/storage"
)

func multiparter(t *testing.T, f *fixture) storage.Multiparter {
	t.Helper()
	mp, ok := f.s.(storage.Multiparter)
	if !ok {
		t.Skip("store does not implement storage.Multiparter")
	}
	return mp
}

func testMultipart(t *testing.T, f *fixture) {
	mp := multiparter(t, f)
	ctx := t.Context()
	key := f.key("multi")
	id, err := mp.CreateMultipart(ctx, key)
	if err != nil {
		t.Fatalf("create multipart: %v", err)
	}
	var (
		parts []storage.Part
		whole []byte
	)
	// 5 MiB is S3's smallest part that is not the last.
	for i, size := range []int{5 << 20, 5 << 20, 1 << 10} {
		data := payload(size, uint64(10+i))
		whole = append(whole, data...)
		p, err := mp.UploadPart(ctx, key, id, i+1, bytes.NewReader(data), int64(size), storage.PutOptions{})
		if err != nil {
			t.Fatalf("upload part %d: %v", i+1, err)
		}
		if p.Number != i+1 || p.Size != int64(size) {
			t.Errorf("upload part %d returned %+v, want number %d size %d", i+1, p, i+1, size)
		}
		parts = append(parts, p)
	}
	oi, err := mp.CompleteMultipart(ctx, key, id, parts)
	if err != nil {
		t.Fatalf("complete multipart: %v", err)
	}
	if oi.Key != key {
		t.Errorf("complete returned key %q, want %q", oi.Key, key)
	}
	equalBytes(t, "get multipart object", f.get(key, storage.GetOptions{}), whole)
	if st := f.stat(key); st.Size != int64(len(whole)) {
		t.Errorf("stat size = %d, want %d", st.Size, len(whole))
	}
}

func testMultipartAbort(t *testing.T, f *fixture) {
	mp := multiparter(t, f)
	ctx := t.Context()
	key := f.key("aborted")
	id, err := mp.CreateMultipart(ctx, key)
	if err != nil {
		t.Fatalf("create multipart: %v", err)
	}
	data := payload(1<<10, 1)
	if _, err := mp.UploadPart(ctx, key, id, 1, bytes.NewReader(data), int64(len(data)), storage.PutOptions{}); err != nil {
		t.Fatalf("upload part: %v", err)
	}
	if err := mp.AbortMultipart(ctx, key, id); err != nil {
		t.Fatalf("abort multipart: %v", err)
	}
	f.wantNotFound(key)
	if got := f.list(f.prefix); len(got) != 0 {
		t.Errorf("list after abort: %v, want nothing", got)
	}
}
