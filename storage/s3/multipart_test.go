package s3_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/objbench/objbench/storage"
)

func TestMultipartRoundTrip(t *testing.T) {
	s := bucketStore(t)
	ctx := context.Background()
	const key = "big/multi part+object"
	data := payload(3*100_000 + 123)
	id, err := s.CreateMultipart(ctx, key)
	if err != nil || id == "" {
		t.Fatalf("CreateMultipart = %q, %v", id, err)
	}
	var parts []storage.Part
	var tr storage.Trace
	for n, off := 1, 0; off < len(data); n++ {
		end := min(off+100_000, len(data))
		p, err := s.UploadPart(ctx, key, id, n, bytes.NewReader(data[off:end]), int64(end-off), storage.PutOptions{Trace: &tr})
		if err != nil {
			t.Fatalf("UploadPart %d: %v", n, err)
		}
		if p.Number != n || p.Size != int64(end-off) || p.ETag != md5hex(data[off:end]) {
			t.Errorf("part = %+v", p)
		}
		parts = append(parts, p)
		off = end
	}
	if tr.FirstByte.IsZero() {
		t.Error("UploadPart left Trace.FirstByte zero")
	}
	// Out of order on purpose: Complete sorts them.
	parts[0], parts[2] = parts[2], parts[0]
	info, err := s.CompleteMultipart(ctx, key, id, parts)
	if err != nil {
		t.Fatalf("CompleteMultipart: %v", err)
	}
	if info.Key != key || info.Size != int64(len(data)) || info.ETag == "" {
		t.Errorf("Complete info = %+v", info)
	}
	var buf bytes.Buffer
	if n, err := s.Get(ctx, key, storage.GetOptions{}, &buf); err != nil || n != int64(len(data)) || !bytes.Equal(buf.Bytes(), data) {
		t.Fatalf("Get after Complete = %d, %v", n, err)
	}
	// gofakes3 stores the md5 of the whole object, not S3's "<md5>-<parts>"
	// ETag that Complete answered, so only the size is compared.
	if st, err := s.Stat(ctx, key); err != nil || st.Size != int64(len(data)) {
		t.Errorf("Stat = %+v, %v; want size %d", st, err, len(data))
	}
}

func TestMultipartAbort(t *testing.T) {
	s := bucketStore(t)
	ctx := context.Background()
	id, err := s.CreateMultipart(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.UploadPart(ctx, "k", id, 1, bytes.NewReader([]byte("part")), 4, storage.PutOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AbortMultipart(ctx, "k", id); err != nil {
		t.Fatalf("AbortMultipart: %v", err)
	}
	tests := []struct {
		name string
		op   func() error
	}{
		{"complete after abort", func() error { _, err := s.CompleteMultipart(ctx, "k", id, []storage.Part{p}); return err }},
		{"abort twice", func() error { return s.AbortMultipart(ctx, "k", id) }},
		{"upload after abort", func() error {
			_, err := s.UploadPart(ctx, "k", id, 2, bytes.NewReader([]byte("x")), 1, storage.PutOptions{})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var se *storage.StatusError
			if err := tt.op(); !errors.As(err, &se) || se.StatusCode != http.StatusNotFound || !errors.Is(err, storage.ErrNotFound) {
				t.Fatalf("err = %v, want http 404 NoSuchUpload", err)
			}
		})
	}
	if _, err := s.Stat(ctx, "k"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("aborted upload left an object: %v", err)
	}
}

// S3 may answer CompleteMultipartUpload with 200 and an <Error> body.
func TestCompleteMultipartErrorIn200(t *testing.T) {
	srv := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "\n  <?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>InternalError</Code>"+
			"<Message>We encountered an internal error. Please try again.</Message></Error>")
	}))
	s := newStore(t, srv.URL)
	_, err := s.CompleteMultipart(context.Background(), "k", "id", []storage.Part{{Number: 1, ETag: "abc", Size: 1}})
	var se *storage.StatusError
	if !errors.As(err, &se) || se.Code != "InternalError" || se.Message == "" {
		t.Fatalf("err = %v, want a StatusError with code InternalError", err)
	}
}
