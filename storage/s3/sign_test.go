package s3_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// sigV4Check recomputes each request's SigV4 signature from what arrived on
// the wire, independently of the SDK, the way S3 does: the path exactly as
// sent, the query re-encoded and sorted. gofakes3 checks no signatures.
type sigV4Check struct {
	mu       sync.Mutex
	failures []string
	uris     []string
	next     http.Handler
}

func (v *sigV4Check) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	err := verifySigV4(r, testSecretKey)
	v.mu.Lock()
	v.uris = append(v.uris, r.Method+" "+r.RequestURI)
	if err != nil {
		v.failures = append(v.failures, r.Method+" "+r.RequestURI+": "+err.Error())
	}
	v.mu.Unlock()
	if err != nil {
		w.WriteHeader(http.StatusForbidden)
		_, _ = io.WriteString(w, "<Error><Code>SignatureDoesNotMatch</Code></Error>")
		return
	}
	v.next.ServeHTTP(w, r)
}

func verifySigV4(r *http.Request, secret string) error {
	fields := map[string]string{}
	alg, rest, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	for _, f := range strings.Split(rest, ", ") {
		k, val, _ := strings.Cut(f, "=")
		fields[k] = val
	}
	scope := strings.SplitN(fields["Credential"], "/", 2)
	signed := strings.Split(fields["SignedHeaders"], ";")
	switch {
	case alg != "AWS4-HMAC-SHA256" || len(scope) != 2:
		return errors.New("no SigV4 Authorization header")
	case r.Header.Get("X-Amz-Content-Sha256") != "UNSIGNED-PAYLOAD":
		return errors.New("payload hash is not UNSIGNED-PAYLOAD")
	case !slices.IsSorted(signed):
		return errors.New("signed headers not sorted")
	}
	for _, need := range []string{"host", "x-amz-content-sha256", "x-amz-date"} {
		if !slices.Contains(signed, need) {
			return errors.New("header not signed: " + need)
		}
	}
	if r.Header.Get("Range") != "" && !slices.Contains(signed, "range") {
		return errors.New("range not signed")
	}
	rawPath, rawQuery, _ := strings.Cut(r.RequestURI, "?")
	var canon strings.Builder
	canon.WriteString(r.Method + "\n" + rawPath + "\n" + canonicalQuery(rawQuery) + "\n")
	for _, h := range signed {
		val := strings.Join(r.Header.Values(h), ",")
		switch h {
		case "host":
			val = r.Host
		case "content-length":
			val = strconv.FormatInt(r.ContentLength, 10)
		}
		canon.WriteString(h + ":" + strings.TrimSpace(val) + "\n")
	}
	canon.WriteString("\n" + fields["SignedHeaders"] + "\nUNSIGNED-PAYLOAD")
	hash := sha256.Sum256([]byte(canon.String()))
	toSign := "AWS4-HMAC-SHA256\n" + r.Header.Get("X-Amz-Date") + "\n" + scope[1] + "\n" + hex.EncodeToString(hash[:])
	key := []byte("AWS4" + secret)
	for _, part := range strings.Split(scope[1], "/") { // date, region, service, aws4_request
		key = hmacSHA256(key, part)
	}
	if got := hex.EncodeToString(hmacSHA256(key, toSign)); got != fields["Signature"] {
		return errors.New("signature mismatch; canonical request:\n" + canon.String())
	}
	return nil
}

func hmacSHA256(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}

// canonicalQuery decodes the query as sent and encodes it as SigV4 wants.
func canonicalQuery(raw string) string {
	if raw == "" {
		return ""
	}
	var pairs []string
	for _, kv := range strings.Split(raw, "&") {
		k, v, _ := strings.Cut(kv, "=")
		k, _ = url.QueryUnescape(k)
		v, _ = url.QueryUnescape(v)
		pairs = append(pairs, sigEscape(k)+"="+sigEscape(v))
	}
	slices.Sort(pairs)
	return strings.Join(pairs, "&")
}

func sigEscape(s string) string {
	return strings.ReplaceAll(url.QueryEscape(s), "+", "%20")
}

func TestSignatureMatchesWire(t *testing.T) {
	tests := []struct {
		name    string
		virtual bool
		region  string
	}{
		{"path style", false, "us-east-1"},
		{"virtual host", true, "eu-west-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check := &sigV4Check{next: gofakes3.New(s3mem.New(), gofakes3.WithHostBucket(tt.virtual),
				gofakes3.WithLogger(gofakes3.DiscardLog())).Server()}
			srv := startServer(t, check)
			endpoint := srv.URL
			if tt.virtual {
				endpoint = "http://s3.objbench.test:" + srv.URL[strings.LastIndexByte(srv.URL, ':')+1:]
			}
			s := newStore(t, endpoint, func(c *s3.Config) {
				c.PathStyle, c.Region, c.SessionToken, c.ListPageSize = !tt.virtual, tt.region, testToken, 1
			})
			s3.RedirectDials(s, srv.Listener.Addr().String())
			if err := everyOp(context.Background(), s, "a b/c+d%e~f"); err != nil {
				t.Errorf("ops: %v", err)
			}
			check.mu.Lock()
			defer check.mu.Unlock()
			for _, f := range check.failures {
				t.Error(f)
			}
			wantPath := "/a%20b/c%2Bd%25e~f"
			if !tt.virtual {
				wantPath = "/" + testBucket + wantPath
			}
			if !slices.Contains(check.uris, "GET "+wantPath) {
				t.Errorf("no GET %s among %q", wantPath, check.uris)
			}
		})
	}
}

// everyOp exercises each kind of request once (twice for list pages).
func everyOp(ctx context.Context, s *s3.Store, key string) error {
	steps := []func() error{
		func() error { return s.CreateBucket(ctx) },
		func() error { _, err := s.BucketExists(ctx); return err },
		func() error {
			_, err := s.Put(ctx, key, strings.NewReader("hello"), 5, storage.PutOptions{})
			return err
		},
		func() error {
			_, err := s.Put(ctx, key+"2", strings.NewReader(""), 0, storage.PutOptions{})
			return err
		},
		func() error { _, err := s.Get(ctx, key, storage.GetOptions{}, io.Discard); return err },
		func() error {
			_, err := s.Get(ctx, key, storage.GetOptions{Range: &storage.Range{Offset: 1, Length: 2}}, io.Discard)
			return err
		},
		func() error { _, err := s.Stat(ctx, key); return err },
		func() error { return s.List(ctx, key[:2], func(storage.ObjectInfo) error { return nil }) },
		func() error { return multipartOnce(ctx, s, key+"-mp") },
		func() error { return s.Delete(ctx, key) },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			return errors.New("step " + strconv.Itoa(i) + ": " + err.Error())
		}
	}
	return nil
}

func multipartOnce(ctx context.Context, s *s3.Store, key string) error {
	id, err := s.CreateMultipart(ctx, key)
	if err != nil {
		return err
	}
	p, err := s.UploadPart(ctx, key, id, 1, bytes.NewReader([]byte("part")), 4, storage.PutOptions{})
	if err != nil {
		return err
	}
	if _, err := s.CompleteMultipart(ctx, key, id, []storage.Part{p}); err != nil {
		return err
	}
	id, err = s.CreateMultipart(ctx, key)
	if err != nil {
		return err
	}
	return s.AbortMultipart(ctx, key, id)
}
