package s3_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/objbench/objbench/s3server"
	"github.com/objbench/objbench/storage"
)

// Quirk (Ceph RGW 16.2, pacific): CompleteMultipartUpload answers
// <ETag></ETag>. The object has its ETag, which HEAD gives: the store asks
// for it, so transfers and cleanups that check ETags still can.
func TestCompleteMultipartWithoutETag(t *testing.T) {
	h, err := s3server.NewHandler(context.Background(), s3server.Config{NoAuth: true, Buckets: []string{testBucket}, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	emptied := 0
	srv := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !r.URL.Query().Has("uploadId") {
			h.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		body := regexp.MustCompile(`<ETag>[^<]*</ETag>`).ReplaceAll(rec.Body.Bytes(), []byte("<ETag></ETag>"))
		if !bytes.Equal(body, rec.Body.Bytes()) {
			emptied++
		}
		for k, v := range rec.Header() {
			if k != "Content-Length" {
				w.Header()[k] = v
			}
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(body)
	}))
	s := newStore(t, srv.URL)
	ctx := context.Background()
	id, err := s.CreateMultipart(ctx, "big")
	if err != nil {
		t.Fatal(err)
	}
	data := payload(5<<20 + 10)
	var parts []storage.Part
	for i, b := range [][]byte{data[:5<<20], data[5<<20:]} {
		p, err := s.UploadPart(ctx, "big", id, i+1, bytes.NewReader(b), int64(len(b)), storage.PutOptions{})
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, p)
	}
	oi, err := s.CompleteMultipart(ctx, "big", id, parts)
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Stat(ctx, "big")
	if err != nil {
		t.Fatal(err)
	}
	if emptied != 1 || oi.ETag == "" || oi.ETag != st.ETag {
		t.Errorf("complete answered an empty ETag %d time(s); the store reported %q, HEAD says %q", emptied, oi.ETag, st.ETag)
	}
}

// Quirk (Ceph RGW 16.2): an aws-chunked upload with a trailing checksum
// (STREAMING-UNSIGNED-PAYLOAD-TRAILER) is answered 400
// XAmzContentSHA256Mismatch: the store took the marker for a SHA-256. No
// body was compared with anything, so it is not a checksum error (which a
// benchmark would report as corruption) but a feature the store lacks.
func TestTrailerRefusedAsSHA256MismatchIsNotImplemented(t *testing.T) {
	h, err := s3server.NewHandler(context.Background(), s3server.Config{NoAuth: true, Buckets: []string{testBucket}, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Amz-Content-Sha256") == "STREAMING-UNSIGNED-PAYLOAD-TRAILER" {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>XAmzContentSHA256Mismatch</Code><BucketName>bench</BucketName></Error>`))
			return
		}
		h.ServeHTTP(w, r)
	}))
	s := newStore(t, srv.URL)
	ctx := context.Background()
	data := payload(4096)
	_, err = s.Put(ctx, "k", bytes.NewReader(data), int64(len(data)), storage.PutOptions{Checksum: storage.ChecksumCRC32C, ChecksumTrailer: true})
	if !errors.Is(err, storage.ErrNotImplemented) || errors.Is(err, storage.ErrChecksum) {
		t.Errorf("PUT with a trailer: %v; want not implemented, not a checksum mismatch", err)
	}
	id, err := s.CreateMultipart(ctx, "m")
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.UploadPart(ctx, "m", id, 1, bytes.NewReader(data), int64(len(data)), storage.PutOptions{Checksum: storage.ChecksumSHA256, ChecksumTrailer: true})
	if !errors.Is(err, storage.ErrNotImplemented) || errors.Is(err, storage.ErrChecksum) {
		t.Errorf("part with a trailer: %v; want not implemented", err)
	}
	// A checksum in a header still reaches the store, which verifies it.
	if _, err := s.Put(ctx, "k", bytes.NewReader(data), int64(len(data)), storage.PutOptions{Checksum: storage.ChecksumCRC32C}); err != nil {
		t.Errorf("PUT with the checksum in a header: %v", err)
	}
}
