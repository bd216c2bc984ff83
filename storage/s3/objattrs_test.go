package s3_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

func stat(t *testing.T, s *s3.Store, key string, o storage.StatOptions) storage.ObjectDetails {
	t.Helper()
	var d storage.ObjectDetails
	o.Details = &d
	if _, err := s.StatWith(context.Background(), key, o); err != nil {
		t.Fatalf("HEAD %s: %v", key, err)
	}
	return d
}

func getAll(s *s3.Store, key string, o storage.GetOptions) ([]byte, error) {
	var b bytes.Buffer
	_, err := s.Get(context.Background(), key, o, &b)
	return b.Bytes(), err
}

// Server-side encryption on MinIO (https, with a KMS key) and on the
// embedded server, both clients: SSE-S3 and SSE-KMS objects say so on
// HEAD; an SSE-C object reads only with its key, also when uploaded in
// parts.
func TestEncryption(t *testing.T) {
	m := testenv.StartMinIOWith(t, testenv.MinIOOptions{TLS: true, KMS: true})
	emb := startEmbedded(t)
	for _, tg := range []struct {
		name   string
		cfg    s3.Config
		kmsKey string
	}{
		{"minio", s3.Config{Endpoint: m.Endpoint, AccessKey: m.AccessKey, SecretKey: m.SecretKey, CABundle: m.CAFile}, m.KMSKeyID},
		{"embedded", s3.Config{Endpoint: emb.Endpoint(), AccessKey: emb.AccessKey(), SecretKey: emb.SecretKey()}, "objbench-test-key"},
	} {
		for _, client := range clients {
			t.Run(tg.name+"/"+client, func(t *testing.T) {
				c := tg.cfg
				c.Bucket, c.HTTPClient = "enc-"+client, client
				checkEncryption(t, connect(t, c), tg.kmsKey)
			})
		}
	}
}

func checkEncryption(t *testing.T, s *s3.Store, kmsKey string) {
	ctx := context.Background()
	key := make([]byte, 32)
	rand.Read(key)
	ssec := &storage.Encryption{Mode: storage.SSEC, CustomerKey: key}
	if err := s.CreateBucket(ctx); err != nil {
		t.Fatal(err)
	}
	data := payload(10_000)
	for _, e := range []*storage.Encryption{{Mode: storage.SSES3}, {Mode: storage.SSEKMS, KMSKeyID: kmsKey}, ssec} {
		if _, err := s.Put(ctx, "obj", bytes.NewReader(data), int64(len(data)), storage.PutOptions{Encryption: e}); err != nil {
			t.Fatalf("PUT with %s: %v", e.Mode, err)
		}
		d := stat(t, s, "obj", storage.StatOptions{Encryption: e})
		if d.Encryption != e.Mode || (e.Mode == storage.SSEKMS && !strings.Contains(d.KMSKeyID, kmsKey)) {
			t.Errorf("HEAD of a %s object: %+v", e.Mode, d)
		}
		if got, err := getAll(s, "obj", storage.GetOptions{Encryption: e}); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("GET of a %s object: %d bytes, %v", e.Mode, len(got), err)
		}
	}
	if _, err := getAll(s, "obj", storage.GetOptions{}); err == nil {
		t.Error("an SSE-C object read without its key")
	}
	other := &storage.Encryption{Mode: storage.SSEC, CustomerKey: make([]byte, 32)}
	if _, err := getAll(s, "obj", storage.GetOptions{Encryption: other}); err == nil {
		t.Error("an SSE-C object read with another key")
	}
	if _, err := s.Put(ctx, "short", bytes.NewReader(data), 1, storage.PutOptions{Encryption: &storage.Encryption{Mode: storage.SSEC, CustomerKey: key[:16]}}); err == nil {
		t.Error("a 16-byte SSE-C key was sent")
	}
	checkSSECMultipart(t, s, ssec)
	// A server-side copy of the SSE-C object: the source's key to
	// read it, another key for the copy.
	key2 := make([]byte, 32)
	rand.Read(key2)
	ssec2 := &storage.Encryption{Mode: storage.SSEC, CustomerKey: key2}
	if _, err := s.CopyObject(ctx, "obj", "copy", storage.CopyOptions{SourceEncryption: ssec, Dest: storage.PutOptions{Encryption: ssec2}}); err != nil {
		t.Fatalf("copy of an SSE-C object: %v", err)
	}
	if got, err := getAll(s, "copy", storage.GetOptions{Encryption: ssec2}); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("GET of the copy with its own key: %d bytes, %v", len(got), err)
	}
}

func checkSSECMultipart(t *testing.T, s *s3.Store, e *storage.Encryption) {
	ctx := context.Background()
	id, err := s.CreateMultipartWith(ctx, "mp", storage.PutOptions{Encryption: e})
	if err != nil {
		t.Fatal(err)
	}
	data := payload(5<<20 + 1000) // parts but the last are 5 MiB at least
	var parts []storage.Part
	for i, chunk := range [][]byte{data[:5<<20], data[5<<20:]} {
		p, err := s.UploadPart(ctx, "mp", id, i+1, bytes.NewReader(chunk), int64(len(chunk)), storage.PutOptions{Encryption: e})
		if err != nil {
			t.Fatalf("part %d: %v", i+1, err)
		}
		parts = append(parts, p)
	}
	if _, err := s.CompleteMultipart(ctx, "mp", id, parts); err != nil {
		t.Fatal(err)
	}
	if got, err := getAll(s, "mp", storage.GetOptions{Encryption: e}); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("GET of an SSE-C multipart object: %d bytes, %v", len(got), err)
	}
}

// Tags, user metadata and a storage class on PUT and on a multipart
// upload: HEAD on MinIO and on the embedded server shows them; a
// multipart upload's parts carry checksums the completion names.
func TestObjectAttributes(t *testing.T) {
	for _, tg := range featureTargets(t) {
		for _, client := range clients {
			t.Run(tg.name+"/"+client, func(t *testing.T) {
				c := tg.cfg
				c.Bucket, c.HTTPClient = "attrs-"+client, client
				checkObjectAttributes(t, connect(t, c))
			})
		}
	}
}

func checkObjectAttributes(t *testing.T, s *s3.Store) {
	ctx := context.Background()
	if err := s.CreateBucket(ctx); err != nil {
		t.Fatal(err)
	}
	o := storage.PutOptions{Tagging: "team=bench&env=test", Metadata: map[string]string{"Owner": "objbench", "run": "r1"},
		StorageClass: "REDUCED_REDUNDANCY"}
	data := payload(1000)
	if _, err := s.Put(ctx, "obj", bytes.NewReader(data), int64(len(data)), o); err != nil {
		t.Fatal(err)
	}
	d := stat(t, s, "obj", storage.StatOptions{})
	if d.TagCount != 2 || d.Metadata["owner"] != "objbench" || d.Metadata["run"] != "r1" || d.StorageClass != "REDUCED_REDUNDANCY" {
		t.Errorf("HEAD: %+v", d)
	}
	o.Checksum = storage.ChecksumCRC32C
	id, err := s.CreateMultipartWith(ctx, "mp", o)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.UploadPart(ctx, "mp", id, 1, bytes.NewReader(data), int64(len(data)), storage.PutOptions{Checksum: storage.ChecksumCRC32C, ChecksumTrailer: true})
	if err != nil || p.Checksum == "" || p.ChecksumAlgorithm != storage.ChecksumCRC32C {
		t.Fatalf("part with a checksum: %+v, %v", p, err)
	}
	if _, err := s.CompleteMultipart(ctx, "mp", id, []storage.Part{p}); err != nil {
		t.Fatal(err)
	}
	if d := stat(t, s, "mp", storage.StatOptions{}); d.TagCount != 2 || d.Metadata["owner"] != "objbench" {
		t.Errorf("HEAD of the multipart object: %+v", d)
	}
	if got, err := getAll(s, "mp", storage.GetOptions{VerifyChecksum: true}); err != nil || !bytes.Equal(got, data) {
		t.Errorf("verified GET of the multipart object: %d bytes, %v", len(got), err)
	}
}

// A store without encryption, tags or storage classes refuses them (501),
// and the client says not implemented; nothing is stored.
func TestObjectAttributesNotImplemented(t *testing.T) {
	url := lackingServer(t)
	ctx := context.Background()
	for _, client := range clients {
		s := newStore(t, url, withClient(client))
		data := payload(100)
		for what, o := range map[string]storage.PutOptions{
			"SSE-S3":        {Encryption: &storage.Encryption{Mode: storage.SSES3}},
			"tags":          {Tagging: "a=b"},
			"storage class": {StorageClass: "GLACIER"},
		} {
			_, err := s.Put(ctx, "refused", bytes.NewReader(data), 100, o)
			if !errors.Is(err, storage.ErrNotImplemented) || storage.ErrorClass(err) != storage.ClassNotImpl {
				t.Errorf("%s: PUT with %s: %v, want not implemented", client, what, err)
			}
		}
		if _, err := s.Get(ctx, "refused", storage.GetOptions{}, io.Discard); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("%s: a refused object was stored: %v", client, err)
		}
	}
}
