package s3_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// Server-side copies on MinIO and the embedded server, both clients: a
// whole object (its metadata kept, or replaced), an older version of it,
// and parts of a multipart upload taken from byte ranges of it.
func TestCopy(t *testing.T) {
	for _, tg := range featureTargets(t) {
		for _, client := range clients {
			t.Run(tg.name+"/"+client, func(t *testing.T) {
				c := tg.cfg
				c.Bucket, c.HTTPClient = "copy-"+client, client
				checkCopy(t, connect(t, c))
			})
		}
	}
}

func checkCopy(t *testing.T, s *s3.Store) {
	ctx := context.Background()
	if err := s.CreateBucket(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.SetVersioning(ctx, true); err != nil {
		t.Fatal(err)
	}
	data := payload(6 << 20)
	old, err := s.Put(ctx, "src", bytes.NewReader(data[:100]), 100, storage.PutOptions{Metadata: map[string]string{"a": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(ctx, "src", bytes.NewReader(data), int64(len(data)), storage.PutOptions{Metadata: map[string]string{"a": "1"}}); err != nil {
		t.Fatal(err)
	}
	info, err := s.CopyObject(ctx, "src", "dst", storage.CopyOptions{})
	if got, gerr := getAll(s, "dst", storage.GetOptions{}); err != nil || gerr != nil || !bytes.Equal(got, data) || info.ETag == "" {
		t.Fatalf("copy: %+v, %v; GET %d bytes, %v", info, err, len(got), gerr)
	}
	if d := stat(t, s, "dst", storage.StatOptions{}); d.Metadata["a"] != "1" {
		t.Errorf("copy's metadata %v, want the source's", d.Metadata)
	}
	if _, err := s.CopyObject(ctx, "src", "dst", storage.CopyOptions{Dest: storage.PutOptions{Metadata: map[string]string{"b": "2"}}}); err != nil {
		t.Fatal(err)
	}
	if d := stat(t, s, "dst", storage.StatOptions{}); d.Metadata["b"] != "2" || d.Metadata["a"] != "" {
		t.Errorf("copy with new metadata: %v, want b only", d.Metadata)
	}
	if _, err := s.CopyObject(ctx, "src", "old", storage.CopyOptions{SourceVersionID: old.VersionID}); err != nil {
		t.Fatal(err)
	}
	if got, err := getAll(s, "old", storage.GetOptions{}); err != nil || !bytes.Equal(got, data[:100]) {
		t.Fatalf("copy of the first version: %d bytes, %v", len(got), err)
	}
	id, err := s.CreateMultipart(ctx, "parts")
	if err != nil {
		t.Fatal(err)
	}
	var parts []storage.Part
	for i, r := range []storage.Range{{Offset: 0, Length: 5 << 20}, {Offset: 5 << 20, Length: 1 << 20}} {
		p, err := s.UploadPartCopy(ctx, "parts", id, i+1, "src", storage.CopyOptions{Range: &r})
		if err != nil || p.ETag == "" || p.Size != r.Length {
			t.Fatalf("part copy %d: %+v, %v", i+1, p, err)
		}
		parts = append(parts, p)
	}
	if _, err := s.CompleteMultipart(ctx, "parts", id, parts); err != nil {
		t.Fatal(err)
	}
	if got, err := getAll(s, "parts", storage.GetOptions{}); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("object of copied parts: %d bytes, %v", len(got), err)
	}
}

func putMany(t *testing.T, s *s3.Store, prefix string, n int) []storage.ObjectID {
	t.Helper()
	ids := make([]storage.ObjectID, n)
	var g errgroup.Group
	g.SetLimit(8)
	for i := range ids {
		ids[i].Key = fmt.Sprintf("%s%04d", prefix, i)
		g.Go(func() error {
			_, err := s.Put(context.Background(), ids[i].Key, bytes.NewReader([]byte("x")), 1, storage.PutOptions{})
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	return ids
}

// DeleteObjects takes at most 1,000 objects, deletes them in one request,
// and returns each object it could not delete with the target's reason.
func TestDeleteObjects(t *testing.T) {
	m := testenv.StartMinIO(t)
	emb := startEmbedded(t, "multidel")
	for name, c := range map[string]s3.Config{
		"minio":    {Endpoint: m.Endpoint, Bucket: "multidel", AccessKey: m.AccessKey, SecretKey: m.SecretKey},
		"embedded": {Endpoint: emb.Endpoint(), Bucket: "multidel", AccessKey: emb.AccessKey(), SecretKey: emb.SecretKey()},
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := connect(t, c)
			if err := s.CreateBucket(ctx); err != nil {
				t.Fatal(err)
			}
			ids := putMany(t, s, "many/", 1001)
			if _, err := s.DeleteObjects(ctx, ids); err == nil {
				t.Fatal("1,001 objects in one request were sent")
			}
			failed, err := s.DeleteObjects(ctx, append(ids[:999:999], storage.ObjectID{Key: "many/never-written"}))
			if err != nil || len(failed) != 0 {
				t.Fatalf("1,000 objects: failed %v, %v", failed, err)
			}
			if failed, err = s.DeleteObjects(ctx, ids[999:1000]); err != nil || len(failed) != 0 {
				t.Fatalf("1 object: failed %v, %v", failed, err)
			}
			keys, err := storage.KeysUnder(ctx, s, "many/")
			if err != nil || len(keys) != 1 || keys[0] != ids[1000].Key {
				t.Fatalf("left: %v, %v; want %s only", keys, err, ids[1000].Key)
			}
			if err := s.SetVersioning(ctx, true); err != nil {
				t.Fatal(err)
			}
			failed, err = s.DeleteObjects(ctx, []storage.ObjectID{{Key: ids[1000].Key}, {Key: "many/x", VersionID: "not-a-version-id"}})
			if err != nil || len(failed) != 1 || failed[0].Key != "many/x" || failed[0].Code != "NoSuchVersion" || !failed[0].Gone() {
				t.Fatalf("a bad version id: failed %+v, %v; want that one object, with MinIO's NoSuchVersion", failed, err)
			}
		})
	}
}

// A store without server-side copies says so (ErrNotImplemented) for a
// copy, a copy of a version, one with new metadata and a part copy.
func TestCopyNotImplemented(t *testing.T) {
	ctx := context.Background()
	s := newStore(t, lackingServer(t))
	putData(t, s, "dir/src key", payload(1000))
	for what, err := range map[string]error{
		"copy": func() error { _, err := s.CopyObject(ctx, "dir/src key", "dst", storage.CopyOptions{}); return err }(),
		"copy of a version": func() error {
			_, err := s.CopyObject(ctx, "dir/src key", "v", storage.CopyOptions{SourceVersionID: "v1"})
			return err
		}(),
		"copy with new metadata": func() error {
			_, err := s.CopyObject(ctx, "dir/src key", "m", storage.CopyOptions{Dest: storage.PutOptions{Metadata: map[string]string{"a": "b"}}})
			return err
		}(),
		"part copy": func() error {
			_, err := s.UploadPartCopy(ctx, "mp", "id", 1, "dir/src key", storage.CopyOptions{})
			return err
		}(),
	} {
		if !errors.Is(err, storage.ErrNotImplemented) {
			t.Errorf("%s: %v, want not implemented", what, err)
		}
	}
}

// Each per-key error of a DeleteObjects answer comes back with its code
// and message (Content-MD5 sent, as S3 requires); a whole-request error
// in a 200 is the call's error.
func TestDeleteObjectsErrors(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		failed     int
		wantErr    bool
	}{
		{"per key", `<DeleteResult><Error><Key>a</Key><Code>AccessDenied</Code><Message>locked</Message></Error>` +
			`<Error><Key>b</Key><VersionId>v</VersionId><Code>NoSuchVersion</Code><Message>gone</Message></Error></DeleteResult>`, 2, false},
		{"whole request", `<Error><Code>InternalError</Code><Message>try again</Message></Error>`, 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodPost || !r.URL.Query().Has("delete") || r.Header.Get("Content-Md5") == "" {
					t.Errorf("%s %s, Content-MD5 %q", r.Method, r.URL, r.Header.Get("Content-Md5"))
				}
				io.WriteString(w, tt.body)
			}))
			s := newStore(t, srv.URL)
			failed, err := s.DeleteObjects(context.Background(), []storage.ObjectID{{Key: "a"}, {Key: "b", VersionID: "v"}, {Key: "c"}})
			if (err != nil) != tt.wantErr || len(failed) != tt.failed {
				t.Fatalf("failed %+v, err %v", failed, err)
			}
			if tt.failed > 0 && (failed[0].Code != "AccessDenied" || failed[0].Gone() || !failed[1].Gone() || failed[1].VersionID != "v") {
				t.Errorf("failed %+v", failed)
			}
		})
	}
}
