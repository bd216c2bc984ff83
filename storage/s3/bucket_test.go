package s3_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

func TestBucketLifecycle(t *testing.T) {
	s := newStore(t, fakeS3(t).URL)
	ctx := context.Background()
	steps := []struct {
		name string
		do   func() error
		want bool // BucketExists afterwards
	}{
		{"initially absent", func() error { return nil }, false},
		{"create", func() error { return s.CreateBucket(ctx) }, true},
		{"create again is fine", func() error { return s.CreateBucket(ctx) }, true},
		{"delete non-empty fails", func() error {
			mustPut(t, s, "k", []byte("x"))
			err := s.DeleteBucket(ctx)
			var se *storage.StatusError
			if !errors.As(err, &se) || se.Code != "BucketNotEmpty" {
				return errors.New("want BucketNotEmpty, got " + errString(err))
			}
			return s.Delete(ctx, "k")
		}, true},
		{"delete", func() error { return s.DeleteBucket(ctx) }, false},
		{"delete missing", func() error {
			if err := s.DeleteBucket(ctx); !errors.Is(err, storage.ErrBucketNotFound) {
				return errors.New("want ErrBucketNotFound, got " + errString(err))
			}
			return nil
		}, false},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		got, err := s.BucketExists(ctx)
		if err != nil || got != st.want {
			t.Fatalf("%s: BucketExists = %v, %v; want %v", st.name, got, err, st.want)
		}
	}
}

func TestCreateBucketLocation(t *testing.T) {
	tests := []struct {
		region string
		want   string // in the request body; "" = no body
	}{
		{"us-east-1", ""},
		{"eu-west-1", "<LocationConstraint>eu-west-1</LocationConstraint>"},
	}
	for _, tt := range tests {
		t.Run(tt.region, func(t *testing.T) {
			fake := fakeS3(t)
			var mu sync.Mutex
			var body string
			srv := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				mu.Lock()
				body = string(b)
				mu.Unlock()
				r.Body = io.NopCloser(bytes.NewReader(b))
				fake.Config.Handler.ServeHTTP(w, r)
			}))
			s := newStore(t, srv.URL, func(c *s3.Config) { c.Region = tt.region })
			if err := s.CreateBucket(context.Background()); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if (tt.want == "") != (body == "") || !strings.Contains(body, tt.want) {
				t.Errorf("body = %q, want %q in it", body, tt.want)
			}
		})
	}
}

func TestBucketExistsErrors(t *testing.T) {
	tests := []struct {
		status int
		want   error
	}{
		{http.StatusForbidden, storage.ErrAccessDenied},
		{http.StatusInternalServerError, nil},
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.status), func(t *testing.T) {
			srv := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
			}))
			ok, err := newStore(t, srv.URL).BucketExists(context.Background())
			var se *storage.StatusError
			if ok || !errors.As(err, &se) || se.StatusCode != tt.status || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Fatalf("BucketExists = %v, %v; want http %d error (%v)", ok, err, tt.status, tt.want)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}
