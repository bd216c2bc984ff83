package s3_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// conditionTargets are MinIO and the embedded server, each with a bucket.
func conditionTargets(t *testing.T, bucket string) map[string]s3.Config {
	t.Helper()
	m := testenv.StartMinIO(t)
	emb := startEmbedded(t, bucket)
	return map[string]s3.Config{
		"minio":    {Endpoint: m.Endpoint, Bucket: bucket, AccessKey: m.AccessKey, SecretKey: m.SecretKey},
		"embedded": {Endpoint: emb.Endpoint(), Bucket: bucket, AccessKey: emb.AccessKey(), SecretKey: emb.SecretKey()},
	}
}

// Create-only and compare-and-swap PUTs, and conditional GETs: a
// condition that does not hold is a distinct outcome
// (ErrPreconditionFailed, ErrNotModified, each with its class) that
// writes or transfers nothing.
func TestConditionalRequests(t *testing.T) {
	for name, base := range conditionTargets(t, "conds") {
		for _, client := range clients {
			t.Run(name+"/"+client, func(t *testing.T) {
				c := base
				c.HTTPClient = client
				s := connect(t, c)
				if err := s.CreateBucket(context.Background()); err != nil {
					t.Fatal(err)
				}
				checkConditions(t, s, "k-"+client)
			})
		}
	}
}

func isOutcome(err, want error, class string) bool {
	return errors.Is(err, want) && storage.ErrorClass(err) == class
}

func checkConditions(t *testing.T, s *s3.Store, key string) {
	ctx := context.Background()
	put := func(data []byte, o storage.PutOptions) (storage.ObjectInfo, error) {
		return s.Put(ctx, key, bytes.NewReader(data), int64(len(data)), o)
	}
	content := func() []byte {
		var b bytes.Buffer
		if _, err := s.Get(ctx, key, storage.GetOptions{}, &b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	v1, v2, v3 := []byte("first"), []byte("second"), []byte("third")
	first, err := put(v1, storage.PutOptions{IfNoneMatch: "*"})
	if err != nil {
		t.Fatalf("create-only PUT of a free key: %v", err)
	}
	if _, err := put(v2, storage.PutOptions{IfNoneMatch: "*"}); !isOutcome(err, storage.ErrPreconditionFailed, storage.ClassPrecond) {
		t.Fatalf("create-only PUT of a taken key: %v, want precondition failed", err)
	}
	if got := content(); !bytes.Equal(got, v1) {
		t.Fatalf("after a refused create the object holds %q", got)
	}
	second, err := put(v2, storage.PutOptions{IfMatch: first.ETag})
	if err != nil {
		t.Fatalf("compare-and-swap with the current ETag: %v", err)
	}
	if _, err := put(v3, storage.PutOptions{IfMatch: first.ETag}); !isOutcome(err, storage.ErrPreconditionFailed, storage.ClassPrecond) {
		t.Fatalf("compare-and-swap with a stale ETag: %v, want precondition failed", err)
	}
	if got := content(); !bytes.Equal(got, v2) {
		t.Fatalf("after a lost compare-and-swap the object holds %q", got)
	}
	var b bytes.Buffer
	n, err := s.Get(ctx, key, storage.GetOptions{IfNoneMatch: second.ETag}, &b)
	if !isOutcome(err, storage.ErrNotModified, storage.ClassNotMod) || n != 0 || b.Len() != 0 {
		t.Fatalf("GET if changed from the current ETag: %d bytes, %v; want not modified", n, err)
	}
	if n, err := s.Get(ctx, key, storage.GetOptions{IfNoneMatch: first.ETag}, &b); err != nil || n != int64(len(v2)) {
		t.Fatalf("GET if changed from a stale ETag: %d bytes, %v", n, err)
	}
	_, err = s.Get(ctx, key, storage.GetOptions{IfMatch: first.ETag}, &b)
	if !isOutcome(err, storage.ErrPreconditionFailed, storage.ClassPrecond) {
		t.Fatalf("GET if still the stale ETag: %v, want precondition failed", err)
	}
}

// A store that ignores If-Match on GET serves the object anyway; the
// client sees the ETag does not match and says the target lacks the
// condition.
func TestGetIfMatchIgnored(t *testing.T) {
	s := newStore(t, lackingServer(t))
	putData(t, s, "k", []byte("data"))
	_, err := s.Get(context.Background(), "k", storage.GetOptions{IfMatch: `"0123456789abcdef0123456789abcdef"`}, io.Discard)
	if !isOutcome(err, storage.ErrNotImplemented, storage.ClassNotImpl) {
		t.Fatalf("GET if an ETag it does not have, from a target that ignores If-Match: %v, want not implemented", err)
	}
}
