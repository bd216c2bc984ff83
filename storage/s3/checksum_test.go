package s3_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"net/http"
	"testing"

	"github.com/objbench/objbench/internal/testenv"
	pl "github.com/objbench/objbench/payload"
	"github.com/objbench/objbench/s3server"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// bodyKinds are the ways a body reaches Put: the payload generator
// (WriterTo and Seeker: no copy), a section of a file-like reader
// (Seeker only) and a plain reader (neither: trailers only).
var bodyKinds = []string{"generator", "seeker", "reader"}

func body(t *testing.T, kind string, data []byte) io.Reader {
	t.Helper()
	switch kind {
	case "generator":
		blk, err := pl.NewBlock(1<<16, 9, 0)
		if err != nil {
			t.Fatal(err)
		}
		r := pl.NewReader(blk)
		r.Reset(3, int64(len(data)))
		got, _ := io.ReadAll(r)
		copy(data, got) // the test's copy of what the generator sends
		r.Reset(3, int64(len(data)))
		return r
	case "seeker":
		return io.NewSectionReader(bytes.NewReader(data), 0, int64(len(data)))
	}
	return struct{ io.Reader }{bytes.NewReader(data)}
}

// Every checksum, in a header and as a trailer, through every kind of
// body and both clients, is taken by MinIO and the embedded server (which
// verify them), and a GET with verification checks the body against what
// the server stored.
func TestChecksums(t *testing.T) {
	for _, tg := range featureTargets(t) {
		for _, client := range clients {
			c := tg.cfg
			c.Bucket, c.HTTPClient = "sums-"+client, client
			s := connect(t, c)
			if err := s.CreateBucket(context.Background()); err != nil {
				t.Fatal(err)
			}
			for _, algo := range storage.Checksums() {
				for _, trailer := range []bool{false, true} {
					for _, bk := range bodyKinds {
						name := tg.name + "/" + client + "/" + string(algo) + map[bool]string{false: "/header/", true: "/trailer/"}[trailer] + bk
						t.Run(name, func(t *testing.T) {
							// The embedded server gives an object written
							// without a checksum S3's default CRC64NVME; the
							// pinned MinIO keeps none.
							checkChecksumPut(t, s, algo, trailer, bk, tg.name == "embedded")
						})
					}
				}
			}
		}
	}
}

func checkChecksumPut(t *testing.T, s *s3.Store, algo storage.Checksum, trailer bool, bk string, defaultSum bool) {
	ctx := context.Background()
	for _, size := range []int{0, 1, 200_000} { // 200 KB: four aws-chunked chunks, the last short
		data := make([]byte, size)
		b := body(t, bk, data)
		_, err := s.Put(ctx, "k", b, int64(size), storage.PutOptions{Checksum: algo, ChecksumTrailer: trailer})
		switch {
		case trailer && algo == storage.ChecksumMD5:
			if err == nil || !bytes.Contains([]byte(err.Error()), []byte("Content-MD5")) {
				t.Fatalf("MD5 as a trailer: %v, want a refusal", err)
			}
			return
		case !trailer && bk == "reader":
			if err == nil || !bytes.Contains([]byte(err.Error()), []byte("seekable")) {
				t.Fatalf("header checksum of an unseekable body: %v, want a refusal", err)
			}
			return
		case err != nil:
			t.Fatalf("PUT of %d bytes: %v", size, err)
		}
		var got bytes.Buffer
		n, err := s.Get(ctx, "k", storage.GetOptions{VerifyChecksum: true}, &got)
		if algo == storage.ChecksumMD5 && !defaultSum { // not a flexible checksum: nothing stored to verify against
			if !errors.Is(err, storage.ErrNotImplemented) || storage.ErrorClass(err) != storage.ClassNotImpl {
				t.Fatalf("verified GET of an object stored with Content-MD5 only: %v", err)
			}
		} else if err != nil {
			t.Fatalf("verified GET of %d bytes: %v", size, err)
		}
		if n != int64(size) || !bytes.Equal(got.Bytes(), data) {
			t.Fatalf("GET returned %d bytes, not the %d put", n, size)
		}
	}
}

// A payload that differs from its checksum is refused, by MinIO and the
// embedded server, for every flexible checksum and MD5.
func TestChecksumMismatchRefused(t *testing.T) {
	m := testenv.StartMinIO(t)
	emb := startEmbedded(t, "sums")
	targets := map[string]s3.Config{
		"minio":    {Endpoint: m.Endpoint, Bucket: "sums", AccessKey: m.AccessKey, SecretKey: m.SecretKey},
		"embedded": {Endpoint: emb.Endpoint(), Bucket: "sums", AccessKey: emb.AccessKey(), SecretKey: emb.SecretKey()},
	}
	for name, c := range targets {
		s := connect(t, c)
		if err := s.CreateBucket(context.Background()); err != nil {
			t.Fatal(err)
		}
		for _, algo := range storage.Checksums() {
			t.Run(name+"/"+string(algo), func(t *testing.T) {
				data := payload(5000)
				_, err := s.Put(context.Background(), "bad", testenv.NewFlipping(data), int64(len(data)), storage.PutOptions{Checksum: algo})
				if !errors.Is(err, storage.ErrChecksum) || storage.ErrorClass(err) != storage.ClassChecksum {
					t.Fatalf("PUT of bytes that differ from their checksum: %v (class %s), want a checksum error", err, storage.ErrorClass(err))
				}
			})
		}
	}
}

func startEmbedded(t *testing.T, buckets ...string) *s3server.Server {
	t.Helper()
	srv, err := s3server.Start(context.Background(), s3server.Config{Buckets: buckets})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(context.Background()) })
	return srv
}

// A store that does not keep flexible checksums does not confirm an
// upload with one: the PUT fails with ErrNotImplemented (counted as such,
// class not_implemented), as does a GET asking to verify, after the whole
// body.
func TestChecksumsNotImplemented(t *testing.T) {
	url := lackingServer(t)
	for _, client := range clients {
		s := newStore(t, url, withClient(client))
		for _, trailer := range []bool{false, true} {
			data := payload(70_000)
			_, err := s.Put(context.Background(), "k", bytes.NewReader(data), int64(len(data)),
				storage.PutOptions{Checksum: storage.ChecksumCRC64NVME, ChecksumTrailer: trailer})
			if !errors.Is(err, storage.ErrNotImplemented) || storage.ErrorClass(err) != storage.ClassNotImpl {
				t.Errorf("%s trailer=%v: PUT with a checksum: %v, want not implemented", client, trailer, err)
			}
			var got bytes.Buffer
			_, err = s.Get(context.Background(), "k", storage.GetOptions{VerifyChecksum: true}, &got)
			if !errors.Is(err, storage.ErrNotImplemented) || !bytes.Equal(got.Bytes(), data) {
				t.Errorf("%s: verified GET: %v, %d bytes; want not implemented after the whole body", client, err, got.Len())
			}
		}
	}
}

// A GET whose body does not match the checksum the server answers with
// is a checksum error; a composite (multipart) checksum is not checked.
func TestGetChecksumMismatch(t *testing.T) {
	data := []byte("the body as stored")
	var good [4]byte
	binary.BigEndian.PutUint32(good[:], crc32.ChecksumIEEE(data))
	for _, tt := range []struct {
		name, value, typ string
		want             error
	}{
		{"matching", base64.StdEncoding.EncodeToString(good[:]), "FULL_OBJECT", nil},
		{"mismatching", "AAAAAA==", "FULL_OBJECT", storage.ErrChecksum},
		{"composite", "AAAAAA==-2", "COMPOSITE", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("X-Amz-Checksum-Mode") != "ENABLED" {
					t.Errorf("x-amz-checksum-mode %q", r.Header.Get("X-Amz-Checksum-Mode"))
				}
				w.Header().Set("X-Amz-Checksum-Crc32", tt.value)
				w.Header().Set("X-Amz-Checksum-Type", tt.typ)
				w.Write(data)
			}))
			s := newStore(t, srv.URL)
			_, err := s.Get(context.Background(), "k", storage.GetOptions{VerifyChecksum: true}, io.Discard)
			if !errors.Is(err, tt.want) || (tt.want == nil && err != nil) {
				t.Fatalf("GET: %v, want %v", err, tt.want)
			}
		})
	}
	s := newStore(t, "http://127.0.0.1:1")
	if _, err := s.Get(context.Background(), "k", storage.GetOptions{VerifyChecksum: true, Range: &storage.Range{Length: 1}}, io.Discard); err == nil {
		t.Error("a verified ranged GET was sent")
	}
}
