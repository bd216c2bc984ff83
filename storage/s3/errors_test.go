package s3_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// errorServer answers every request with status and an S3 <Error> body
// (none for HEAD).
func errorServer(t *testing.T, status int, code, message string) string {
	return startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(status)
		if code != "" && r.Method != http.MethodHead {
			_, _ = io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>`+code+
				`</Code><Message>`+message+`</Message><RequestId>1</RequestId></Error>`)
		}
	})).URL
}

func TestStatusMapping(t *testing.T) {
	tests := []struct {
		status   int
		code     string
		head     bool // Stat instead of Get
		sentinel error
		class    string
	}{
		{403, "AccessDenied", false, storage.ErrAccessDenied, "http_403"},
		{403, "InvalidAccessKeyId", false, storage.ErrAccessDenied, "http_403"},
		{403, "SignatureDoesNotMatch", false, storage.ErrAccessDenied, "http_403"},
		{400, "ExpiredToken", false, storage.ErrAccessDenied, "http_400"},
		{403, "", true, storage.ErrAccessDenied, "http_403"},
		{403, "RequestTimeTooSkewed", false, nil, "http_403"},
		{404, "NoSuchKey", false, storage.ErrNotFound, "http_404"},
		{404, "NoSuchBucket", false, storage.ErrBucketNotFound, "http_404"},
		{404, "", true, storage.ErrNotFound, "http_404"},
		{503, "SlowDown", false, nil, "http_503"},
		{500, "InternalError", false, nil, "http_500"},
		{301, "PermanentRedirect", false, nil, "http_301"},
	}
	for _, tt := range tests {
		t.Run(tt.code+http.StatusText(tt.status), func(t *testing.T) {
			s := newStore(t, errorServer(t, tt.status, tt.code, "the message"))
			var err error
			if tt.head {
				_, err = s.Stat(context.Background(), "k")
			} else {
				_, err = s.Get(context.Background(), "k", storage.GetOptions{}, io.Discard)
			}
			var se *storage.StatusError
			var oe *storage.OpError
			if !errors.As(err, &se) || !errors.As(err, &oe) {
				t.Fatalf("err = %v, want an OpError around a StatusError", err)
			}
			if se.StatusCode != tt.status || se.Code != tt.code || (tt.code != "" && se.Message != "the message") {
				t.Errorf("StatusError = %+v", se)
			}
			if se.Err != tt.sentinel {
				t.Errorf("sentinel = %v, want %v", se.Err, tt.sentinel)
			}
			if got := storage.ErrorClass(err); got != tt.class {
				t.Errorf("ErrorClass = %q, want %q", got, tt.class)
			}
		})
	}
}

func TestTransportErrorClasses(t *testing.T) {
	// An address nobody listens on: take a port and give it back.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String()
	_ = ln.Close()

	release := make(chan struct{})
	stuck := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release) }) // runs before stuck.Close

	background := func(*testing.T) context.Context { return context.Background() }
	tests := []struct {
		name     string
		endpoint string
		ctx      func(*testing.T) context.Context
		timeout  time.Duration
		want     string
	}{
		{"connection refused", refused, background, 0, storage.ClassConnRef},
		{"response header timeout", stuck.URL, background, 50 * time.Millisecond, storage.ClassTimeout},
		{"context deadline", stuck.URL, deadlineCtx(50 * time.Millisecond), 0, storage.ClassTimeout},
		{"context canceled", stuck.URL, canceledCtx, 0, storage.ClassCanceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t, tt.endpoint, func(c *s3.Config) { c.Timeout = tt.timeout })
			_, err := s.Get(tt.ctx(t), "k", storage.GetOptions{}, io.Discard)
			var oe *storage.OpError
			if !errors.As(err, &oe) || oe.Op != "get" || oe.Key != "k" {
				t.Fatalf("err = %v, want a get OpError", err)
			}
			if got := storage.ErrorClass(err); got != tt.want {
				t.Errorf("ErrorClass(%v) = %q, want %q", err, got, tt.want)
			}
		})
	}
}

func deadlineCtx(d time.Duration) func(*testing.T) context.Context {
	return func(t *testing.T) context.Context {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		t.Cleanup(cancel)
		return ctx
	}
}

func canceledCtx(*testing.T) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

func TestCredentialsNotInErrors(t *testing.T) {
	// A server that echoes everything it was sent, credentials included.
	echo := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		_, _ = io.WriteString(w, "<Error><Code>InvalidAccessKeyId</Code><Message>key "+testAccessKey+
			" secret "+testSecretKey+" token "+testToken+" auth "+r.Header.Get("Authorization")+"</Message></Error>")
	}))
	withToken := func(c *s3.Config) { c.SessionToken = testToken }
	s := newStore(t, echo.URL, withToken)
	ctx := context.Background()
	var errs []error
	add := func(_ any, err error) { errs = append(errs, err) }
	add(s.Get(ctx, "k", storage.GetOptions{}, io.Discard))
	add(s.Put(ctx, "k", bytes.NewReader([]byte("x")), 1, storage.PutOptions{}))
	add(s.Stat(ctx, "k"))
	add(s.CompleteMultipart(ctx, "k", "id", []storage.Part{{Number: 1, ETag: "e"}}))
	add(nil, s.List(ctx, "", func(storage.ObjectInfo) error { return nil }))
	if r, err := s.Exchange(ctx, http.MethodGet, "k", "", nil, nil); err != nil {
		add(nil, err)
	} else {
		add(nil, s.ReplyError(ctx, r))
	}
	add(newStore(t, fakeS3(t).URL, withToken).Get(ctx, "k", storage.GetOptions{}, io.Discard))
	add(newStore(t, "http://127.0.0.1:1", withToken).Get(ctx, "k", storage.GetOptions{}, io.Discard))
	add(s3.New(ctx, s3.Config{Endpoint: "http://" + testAccessKey + ":" + testSecretKey + "@127.0.0.1:1", Bucket: "b"}))
	add(s3.New(ctx, s3.Config{Endpoint: "http://127.0.0.1:1", Bucket: "b", AccessKey: testAccessKey}))
	add(s3.New(ctx, s3.Config{Endpoint: "http://127.0.0.1:1", Bucket: "b", SecretKey: testSecretKey, SessionToken: testToken}))
	for i, err := range errs {
		t.Logf("case %d: %v", i, err)
		if err == nil {
			t.Errorf("case %d: no error", i)
			continue
		}
		msg := err.Error()
		for _, secret := range []string{testAccessKey, testSecretKey, testToken} {
			if strings.Contains(msg, secret) {
				t.Errorf("case %d: error carries a credential: %s", i, msg)
			}
		}
	}
}
