package s3_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

func versionsOf(t *testing.T, s storage.Versioner, prefix string) []storage.ObjectVersion {
	t.Helper()
	var all []storage.ObjectVersion
	if err := s.ListVersions(context.Background(), prefix, func(v storage.ObjectVersion) error {
		all = append(all, v)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return all
}

func putData(t *testing.T, s *s3.Store, key string, data []byte) storage.ObjectInfo {
	t.Helper()
	info, err := s.Put(context.Background(), key, bytes.NewReader(data), int64(len(data)), storage.PutOptions{})
	if err != nil {
		t.Fatalf("PUT %s: %v", key, err)
	}
	return info
}

// A versioned bucket on MinIO and the embedded server, both clients: PUTs
// return versions, a version reads and stats as it was, a plain delete
// leaves a marker and the versions, a versioned delete removes one version
// for good, and the listing shows them all, newest first.
func TestVersions(t *testing.T) {
	for _, tg := range featureTargets(t) {
		for _, client := range clients {
			t.Run(tg.name+"/"+client, func(t *testing.T) {
				c := tg.cfg
				c.Bucket, c.HTTPClient = "versions-"+client, client
				checkVersions(t, connect(t, c))
			})
		}
	}
}

func checkVersions(t *testing.T, s *s3.Store) {
	ctx := context.Background()
	if err := s.CreateBucket(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.SetVersioning(ctx, true); err != nil {
		t.Fatal(err)
	}
	if st, err := s.Versioning(ctx); err != nil || st != storage.VersioningEnabled {
		t.Fatalf("Versioning() = %q, %v", st, err)
	}
	v1, v2 := putData(t, s, "run/k", []byte("one")), putData(t, s, "run/k", []byte("two!"))
	if v1.VersionID == "" || v2.VersionID == "" || v1.VersionID == v2.VersionID {
		t.Fatalf("PUT versions %q, %q", v1.VersionID, v2.VersionID)
	}
	var b bytes.Buffer
	if _, err := s.Get(ctx, "run/k", storage.GetOptions{VersionID: v1.VersionID}, &b); err != nil || b.String() != "one" {
		t.Fatalf("GET of the first version: %q, %v", b.String(), err)
	}
	if info, err := s.StatWith(ctx, "run/k", storage.StatOptions{VersionID: v1.VersionID}); err != nil || info.Size != 3 || info.VersionID != v1.VersionID {
		t.Fatalf("HEAD of the first version: %+v, %v", info, err)
	}
	del, err := s.DeleteWith(ctx, "run/k", storage.DeleteOptions{})
	if err != nil || !del.DeleteMarker || del.VersionID == "" {
		t.Fatalf("plain DELETE in a versioned bucket: %+v, %v; want a delete marker", del, err)
	}
	if _, err := s.Get(ctx, "run/k", storage.GetOptions{}, io.Discard); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("GET behind a delete marker: %v", err)
	}
	vs := versionsOf(t, s, "run/")
	if len(vs) != 3 || !vs[0].DeleteMarker || !vs[0].IsLatest || vs[0].VersionID != del.VersionID ||
		vs[1].VersionID != v2.VersionID || vs[2].VersionID != v1.VersionID || vs[2].Size != 3 {
		t.Fatalf("versions: %+v", vs)
	}
	if _, err := s.DeleteWith(ctx, "run/k", storage.DeleteOptions{VersionID: v1.VersionID}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "run/k", storage.GetOptions{VersionID: v1.VersionID}, io.Discard); err == nil {
		t.Fatal("a deleted version still reads")
	}
	if n := len(versionsOf(t, s, "run/")); n != 2 {
		t.Fatalf("%d versions after deleting one of 3", n)
	}
}

// strayVersions lists the whole bucket whatever prefix it is asked for,
// as a broken gateway might.
type strayVersions struct{ *s3.Store }

func (s strayVersions) ListVersions(ctx context.Context, _ string, fn func(storage.ObjectVersion) error) error {
	return s.Store.ListVersions(ctx, "", fn)
}

// dottedVersions lists the versions under the prefix and one more, whose
// key has a dot segment: "run/../other/d" is under "run/" as a string, and
// is other/d to a proxy that normalises paths.
type dottedVersions struct {
	*s3.Store
	extra storage.ObjectVersion
}

func (s dottedVersions) ListVersions(ctx context.Context, prefix string, fn func(storage.ObjectVersion) error) error {
	if err := s.Store.ListVersions(ctx, prefix, fn); err != nil {
		return err
	}
	return fn(s.extra)
}

// DeleteVersionsUnder removes every version and delete marker under the
// run's prefix and nothing else; a listing that strays outside the prefix
// deletes nothing at all.
func TestDeleteVersionsUnder(t *testing.T) {
	for _, tg := range featureTargets(t) {
		t.Run(tg.name, func(t *testing.T) {
			c := tg.cfg
			c.Bucket = "cleanup"
			checkDeleteVersionsUnder(t, connect(t, c))
		})
	}
}

func checkDeleteVersionsUnder(t *testing.T, s *s3.Store) {
	ctx := context.Background()
	if err := s.CreateBucket(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.SetVersioning(ctx, true); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"run/a", "run/a", "run/b", "run-other/c", "other/d"} {
		putData(t, s, k, []byte(k))
	}
	if err := s.Delete(ctx, "run/b"); err != nil { // a delete marker
		t.Fatal(err)
	}
	_, err := storage.DeleteVersionsUnder(ctx, strayVersions{s}, "run/")
	if !errors.Is(err, storage.ErrListingFault) {
		t.Fatalf("a listing outside the prefix: %v, want a listing fault", err)
	}
	if n := len(versionsOf(t, s, "")); n != 6 {
		t.Fatalf("%d versions left after a refused cleanup, want all 6", n)
	}
	other := versionsOf(t, s, "other/")
	_, err = storage.DeleteVersionsUnder(ctx, dottedVersions{s, storage.ObjectVersion{ObjectInfo: storage.ObjectInfo{Key: "run/../other/d", VersionID: other[0].VersionID}}}, "run/")
	if !errors.Is(err, storage.ErrListingFault) {
		t.Fatalf("a listed key with a dot segment: %v, want a listing fault", err)
	}
	if n := len(versionsOf(t, s, "")); n != 6 {
		t.Fatalf("%d versions left after a refused cleanup, want all 6", n)
	}
	n, err := storage.DeleteVersionsUnder(ctx, s, "run/")
	if err != nil || n != 4 {
		t.Fatalf("DeleteVersionsUnder = %d, %v; want 4 (two versions, a version and its marker)", n, err)
	}
	left := versionsOf(t, s, "")
	if len(left) != 2 || left[0].Key != "other/d" || left[1].Key != "run-other/c" {
		t.Fatalf("left: %+v, want other/d and run-other/c only", left)
	}
	if _, err := storage.DeleteVersionsUnder(ctx, s, ""); err == nil {
		t.Fatal("a cleanup of the whole bucket was not refused")
	}
}

// A store without versions says so (ErrNotImplemented) when versioning
// is turned on, versions are listed or one is read.
func TestVersionsNotImplemented(t *testing.T) {
	ctx := context.Background()
	s := newStore(t, lackingServer(t))
	putData(t, s, "k", []byte("x"))
	for what, err := range map[string]error{
		"SetVersioning": s.SetVersioning(ctx, true),
		"ListVersions":  s.ListVersions(ctx, "", func(storage.ObjectVersion) error { return nil }),
		"GET a version": func() error {
			_, err := s.Get(ctx, "k", storage.GetOptions{VersionID: "v1"}, io.Discard)
			return err
		}(),
		"DeleteVersionsUnder": func() error { _, err := storage.DeleteVersionsUnder(ctx, s, "k"); return err }(),
	} {
		if !errors.Is(err, storage.ErrNotImplemented) {
			t.Errorf("%s: %v, want not implemented", what, err)
		}
	}
}
