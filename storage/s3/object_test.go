package s3_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/objbench/objbench/storage"
)

func TestObjectRoundTrip(t *testing.T) {
	s := bucketStore(t)
	ctx := context.Background()
	tests := []struct {
		name string
		key  string
		size int
	}{
		{"plain", "plain", 4096},
		{"nested", "dir/sub/object.bin", 1000},
		{"needs escaping", "a b/c+d%e~f", 333},
		{"reserved chars", "x!$&'()*,;=:@[]?#y", 10},
		{"unicode", "unicodé/ключ/日本", 77},
		{"empty object", "empty", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := payload(tt.size)
			info, err := s.Put(ctx, tt.key, bytes.NewReader(data), int64(len(data)), storage.PutOptions{})
			if err != nil {
				t.Fatalf("Put: %v", err)
			}
			if info.Key != tt.key || info.Size != int64(tt.size) || info.ETag != md5hex(data) {
				t.Errorf("Put info = %+v, want key %q size %d etag %s", info, tt.key, tt.size, md5hex(data))
			}
			var buf bytes.Buffer
			n, err := s.Get(ctx, tt.key, storage.GetOptions{}, &buf)
			if err != nil || n != int64(tt.size) || !bytes.Equal(buf.Bytes(), data) {
				t.Fatalf("Get = %d, %v; data equal %v", n, err, bytes.Equal(buf.Bytes(), data))
			}
			st, err := s.Stat(ctx, tt.key)
			if err != nil {
				t.Fatalf("Stat: %v", err)
			}
			if st.Size != int64(tt.size) || st.ETag != md5hex(data) || st.ModTime.IsZero() {
				t.Errorf("Stat = %+v", st)
			}
			var listed []storage.ObjectInfo
			err = s.List(ctx, tt.key, func(o storage.ObjectInfo) error { listed = append(listed, o); return nil })
			if err != nil || len(listed) != 1 || listed[0].Key != tt.key || listed[0].Size != int64(tt.size) {
				t.Errorf("List(%q) = %+v, %v", tt.key, listed, err)
			}
			if err := s.Delete(ctx, tt.key); err != nil {
				t.Fatalf("Delete: %v", err)
			}
			if _, err := s.Stat(ctx, tt.key); !errors.Is(err, storage.ErrNotFound) {
				t.Errorf("Stat after Delete: %v, want ErrNotFound", err)
			}
		})
	}
}

func TestGetRange(t *testing.T) {
	s := bucketStore(t)
	ctx := context.Background()
	data := payload(10000)
	mustPut(t, s, "obj", data)
	tests := []struct {
		name       string
		rng        storage.Range
		want       []byte
		wantStatus int // 0: success
	}{
		{"first byte", storage.Range{Offset: 0, Length: 1}, data[:1], 0},
		{"middle", storage.Range{Offset: 1234, Length: 4096}, data[1234 : 1234+4096], 0},
		{"open ended", storage.Range{Offset: 9000, Length: -1}, data[9000:], 0},
		{"whole", storage.Range{Offset: 0, Length: 10000}, data, 0},
		{"past the end is clipped", storage.Range{Offset: 9990, Length: 100}, data[9990:], 0},
		{"starting past the end", storage.Range{Offset: 20000, Length: 10}, nil, 416},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			n, err := s.Get(ctx, "obj", storage.GetOptions{Range: &tt.rng}, &buf)
			if tt.wantStatus != 0 {
				var se *storage.StatusError
				if !errors.As(err, &se) || se.StatusCode != tt.wantStatus {
					t.Fatalf("Get = %d, %v; want http %d", n, err, tt.wantStatus)
				}
				return
			}
			if err != nil || n != int64(len(tt.want)) || !bytes.Equal(buf.Bytes(), tt.want) {
				t.Fatalf("Get = %d, %v; want %d bytes (equal: %v)", n, err, len(tt.want), bytes.Equal(buf.Bytes(), tt.want))
			}
		})
	}
}

func TestBadRangeAndEmptyKey(t *testing.T) {
	s := bucketStore(t)
	ctx := context.Background()
	_, before := s.ConnStats()
	tests := []struct {
		name string
		op   func() error
	}{
		{"zero length range", func() error {
			_, err := s.Get(ctx, "k", storage.GetOptions{Range: &storage.Range{Offset: 0, Length: 0}}, io.Discard)
			return err
		}},
		{"negative offset", func() error {
			_, err := s.Get(ctx, "k", storage.GetOptions{Range: &storage.Range{Offset: -1, Length: 1}}, io.Discard)
			return err
		}},
		{"put empty key", func() error {
			_, err := s.Put(ctx, "", bytes.NewReader(nil), 0, storage.PutOptions{})
			return err
		}},
		{"get empty key", func() error { _, err := s.Get(ctx, "", storage.GetOptions{}, io.Discard); return err }},
		{"stat empty key", func() error { _, err := s.Stat(ctx, ""); return err }},
		{"delete empty key", func() error { return s.Delete(ctx, "") }},
		{"create multipart empty key", func() error { _, err := s.CreateMultipart(ctx, ""); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var oe *storage.OpError
			if err := tt.op(); !errors.As(err, &oe) {
				t.Fatalf("err = %v, want an OpError", err)
			}
		})
	}
	// An empty key addresses the bucket itself: none of these may be sent.
	if _, after := s.ConnStats(); after != before {
		t.Errorf("requests sent: %d, want 0", after-before)
	}
}

func TestNotFound(t *testing.T) {
	s := bucketStore(t)
	noBucket := newStore(t, fakeS3(t).URL)
	ctx := context.Background()
	tests := []struct {
		name    string
		op      func() error
		want    error // nil: no error expected
		wantCls string
	}{
		{"get missing key", func() error { _, err := s.Get(ctx, "nope", storage.GetOptions{}, io.Discard); return err }, storage.ErrNotFound, "http_404"},
		{"stat missing key", func() error { _, err := s.Stat(ctx, "nope"); return err }, storage.ErrNotFound, "http_404"},
		{"delete missing key", func() error { return s.Delete(ctx, "nope") }, nil, ""},
		{"get missing bucket", func() error { _, err := noBucket.Get(ctx, "k", storage.GetOptions{}, io.Discard); return err }, storage.ErrBucketNotFound, "http_404"},
		{"put missing bucket", func() error {
			_, err := noBucket.Put(ctx, "k", bytes.NewReader([]byte("x")), 1, storage.PutOptions{})
			return err
		}, storage.ErrBucketNotFound, "http_404"},
		{"delete missing bucket", func() error { return noBucket.Delete(ctx, "k") }, storage.ErrBucketNotFound, "http_404"},
		{"list missing bucket", func() error {
			return noBucket.List(ctx, "", func(storage.ObjectInfo) error { return nil })
		}, storage.ErrBucketNotFound, "http_404"},
		// HEAD answers carry no body, so a missing bucket looks like a missing key.
		{"stat missing bucket", func() error { _, err := noBucket.Stat(ctx, "k"); return err }, storage.ErrNotFound, "http_404"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.op()
			if tt.want == nil {
				if err != nil {
					t.Fatalf("err = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want errors.Is %v", err, tt.want)
			}
			if got := storage.ErrorClass(err); got != tt.wantCls {
				t.Errorf("ErrorClass = %q, want %q", got, tt.wantCls)
			}
		})
	}
}

func TestTraceFirstByte(t *testing.T) {
	s := bucketStore(t)
	ctx := context.Background()
	data := payload(4096)
	var tr storage.Trace
	start := time.Now()
	if _, err := s.Put(ctx, "k", bytes.NewReader(data), int64(len(data)), storage.PutOptions{Trace: &tr}); err != nil {
		t.Fatal(err)
	}
	if end := time.Now(); tr.FirstByte.Before(start) || tr.FirstByte.After(end) {
		t.Errorf("Put FirstByte %v not within [%v, %v]", tr.FirstByte, start, end)
	}
	tr = storage.Trace{}
	start = time.Now()
	if _, err := s.Get(ctx, "k", storage.GetOptions{Trace: &tr}, io.Discard); err != nil {
		t.Fatal(err)
	}
	if end := time.Now(); tr.FirstByte.Before(start) || tr.FirstByte.After(end) {
		t.Errorf("Get FirstByte %v not within [%v, %v]", tr.FirstByte, start, end)
	}
}

// closeRecorder is a body that remembers being closed.
type closeRecorder struct {
	io.Reader
	closed bool
}

func (c *closeRecorder) Close() error { c.closed = true; return nil }

func TestPutLeavesBodyOpen(t *testing.T) {
	s := bucketStore(t)
	body := &closeRecorder{Reader: bytes.NewReader(payload(100))}
	if _, err := s.Put(context.Background(), "k", body, 100, storage.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	if body.closed {
		t.Error("Put closed the caller's body")
	}
}

func TestPutShortBody(t *testing.T) {
	s := bucketStore(t)
	_, err := s.Put(context.Background(), "k", bytes.NewReader(payload(10)), 100, storage.PutOptions{})
	var oe *storage.OpError
	if !errors.As(err, &oe) || oe.Op != "put" {
		t.Fatalf("err = %v, want a put OpError", err)
	}
}

func TestConnectionReuse(t *testing.T) {
	s := bucketStore(t)
	ctx := context.Background()
	mustPut(t, s, "k", payload(4096))
	d0, r0 := s.ConnStats()
	const n = 100
	for i := 0; i < n; i++ {
		if _, err := s.Get(ctx, "k", storage.GetOptions{}, io.Discard); err != nil {
			t.Fatal(err)
		}
		// Errors drain their bodies too.
		if _, err := s.Get(ctx, "missing", storage.GetOptions{}, io.Discard); !errors.Is(err, storage.ErrNotFound) {
			t.Fatal(err)
		}
	}
	d1, r1 := s.ConnStats()
	if r1-r0 != 2*n {
		t.Errorf("requests = %d, want %d", r1-r0, 2*n)
	}
	if d1-d0 > 1 {
		t.Errorf("dialed %d connections for %d sequential requests, want <= 1", d1-d0, 2*n)
	}
}
