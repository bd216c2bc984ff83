package s3server_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/objbench/objbench/s3server"
)

func TestObjectRoundTrip(t *testing.T) {
	backends(t, func(t *testing.T, s *s3server.Server) {
		u := s.Endpoint() + "/" + bucket + "/" + url.PathEscape("dir/a b+c~d")
		data := payload(100_000, 1)
		r := do(t, "PUT", u, data, nil)
		want(t, "put", r, 200)
		if got := unquote(r.header.Get("ETag")); got != md5hex(data) {
			t.Errorf("put ETag %s, want md5 %s", got, md5hex(data))
		}
		r = do(t, "GET", u, nil, nil)
		want(t, "get", r, 200)
		if !bytes.Equal(r.body, data) {
			t.Fatalf("get returned %d bytes that differ from the %d put", len(r.body), len(data))
		}
		if r.header.Get("Content-Type") != "binary/octet-stream" || r.header.Get("X-Objbench-Etag") != "" {
			t.Errorf("get headers: %v", r.header)
		}
		r = do(t, "HEAD", u, nil, nil)
		want(t, "head", r, 200)
		if r.header.Get("Content-Length") != "100000" || unquote(r.header.Get("ETag")) != md5hex(data) ||
			r.header.Get("Last-Modified") == "" {
			t.Errorf("head headers: %v", r.header)
		}
		r = do(t, "GET", u, nil, map[string]string{"Range": "bytes=99990-"})
		want(t, "ranged get", r, 206)
		if !bytes.Equal(r.body, data[99990:]) || r.header.Get("Content-Range") != "bytes 99990-99999/100000" {
			t.Errorf("ranged get: %d bytes, Content-Range %q", len(r.body), r.header.Get("Content-Range"))
		}
		want(t, "delete", do(t, "DELETE", u, nil, nil), 204)
		r = do(t, "GET", u, nil, nil)
		want(t, "get after delete", r, 404)
		if !strings.Contains(string(r.body), "NoSuchKey") {
			t.Errorf("get after delete: body %s, want NoSuchKey", r.body)
		}
		want(t, "delete of a missing key", do(t, "DELETE", u, nil, nil), 204)
	})
}

func TestPutReplacesAndCopies(t *testing.T) {
	backends(t, func(t *testing.T, s *s3server.Server) {
		base := s.Endpoint() + "/" + bucket + "/"
		want(t, "put 1", do(t, "PUT", base+"k", payload(10, 1), nil), 200)
		second := payload(20, 2)
		want(t, "put 2", do(t, "PUT", base+"k", second, map[string]string{"Content-Type": "text/plain"}), 200)
		want(t, "copy", do(t, "PUT", base+"copy", nil, map[string]string{"X-Amz-Copy-Source": "/" + bucket + "/k"}), 200)
		want(t, "put if none match", do(t, "PUT", base+"k", payload(5, 3), map[string]string{"If-None-Match": "*"}), 412)
		want(t, "put 3", do(t, "PUT", base+"k", payload(5, 3), nil), 200)
		r := do(t, "GET", base+"copy", nil, nil)
		want(t, "get copy", r, 200)
		if !bytes.Equal(r.body, second) || r.header.Get("Content-Type") != "text/plain" {
			t.Errorf("copy: %d bytes, Content-Type %q; want the second version", len(r.body), r.header.Get("Content-Type"))
		}
	})
}

type listResult struct {
	Keys           []string `xml:"Contents>Key"`
	Sizes          []int64  `xml:"Contents>Size"`
	CommonPrefixes []string `xml:"CommonPrefixes>Prefix"`
	IsTruncated    bool
	NextToken      string `xml:"NextContinuationToken"`
}

func list(t *testing.T, s *s3server.Server, q url.Values) listResult {
	t.Helper()
	q.Set("list-type", "2")
	r := do(t, "GET", s.Endpoint()+"/"+bucket+"?"+q.Encode(), nil, nil)
	want(t, "list", r, 200)
	var lr listResult
	decodeXML(t, r.body, &lr)
	return lr
}

func TestListV2(t *testing.T) {
	backends(t, func(t *testing.T, s *s3server.Server) {
		keys := []string{"a", "b-x", "b/c", "b/d/e", "b0", "c"}
		for i, k := range slices.Backward(keys) {
			want(t, "put "+k, do(t, "PUT", s.Endpoint()+"/"+bucket+"/"+k, payload(i+1, 0), nil), 200)
		}
		tests := []struct {
			q            url.Values
			keys, common []string
		}{
			{url.Values{}, keys, nil},
			{url.Values{"prefix": {"b"}}, []string{"b-x", "b/c", "b/d/e", "b0"}, nil},
			{url.Values{"delimiter": {"/"}}, []string{"a", "b-x", "b0", "c"}, []string{"b/"}},
			{url.Values{"prefix": {"b/"}, "delimiter": {"/"}}, []string{"b/c"}, []string{"b/d/"}},
		}
		for _, tc := range tests {
			lr := list(t, s, tc.q)
			if !slices.Equal(lr.Keys, tc.keys) || !slices.Equal(lr.CommonPrefixes, tc.common) {
				t.Errorf("list %v: keys %q prefixes %q, want %q %q", tc.q, lr.Keys, lr.CommonPrefixes, tc.keys, tc.common)
			}
		}
		// Pages of two, with a common prefix in the middle of a page.
		var got []string
		q := url.Values{"max-keys": {"2"}, "delimiter": {"/"}}
		for page := 0; ; page++ {
			lr := list(t, s, q)
			got = append(got, lr.Keys...)
			got = append(got, lr.CommonPrefixes...)
			if !lr.IsTruncated {
				break
			}
			if page > 5 || lr.NextToken == "" {
				t.Fatalf("paging does not end: %+v", lr)
			}
			q.Set("continuation-token", lr.NextToken)
		}
		slices.Sort(got)
		if wantAll := []string{"a", "b-x", "b/", "b0", "c"}; !slices.Equal(got, wantAll) {
			t.Errorf("paged listing: %q, want %q", got, wantAll)
		}
	})
}

func TestConcurrentClients(t *testing.T) {
	backends(t, func(t *testing.T, s *s3server.Server) {
		g, ctx := errgroup.WithContext(t.Context())
		for w := range 8 {
			g.Go(func() error {
				for i := range 10 {
					u := fmt.Sprintf("%s/%s/w%d/%d", s.Endpoint(), bucket, w, i)
					data := payload(64<<10, uint64(w*10+i))
					if err := roundTrip(ctx, u, data); err != nil {
						return err
					}
				}
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			t.Fatal(err)
		}
	})
}

func roundTrip(ctx context.Context, u string, data []byte) error {
	req, _ := http.NewRequestWithContext(ctx, "PUT", u, bytes.NewReader(data))
	if err := signReq(req, "UNSIGNED-PAYLOAD"); err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("put %s: %s", u, resp.Status)
	}
	req, _ = http.NewRequestWithContext(ctx, "GET", u, nil)
	if err := signReq(req, "UNSIGNED-PAYLOAD"); err != nil {
		return err
	}
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if !bytes.Equal(got, data) {
		return fmt.Errorf("get %s: body differs from what was put", u)
	}
	return nil
}

func TestStartConfig(t *testing.T) {
	s := start(t, s3server.Config{})
	if !strings.HasPrefix(s.Endpoint(), "http://127.0.0.1:") {
		t.Errorf("endpoint %q, want loopback", s.Endpoint())
	}
	if len(s.AccessKey()) != 20 || len(s.SecretKey()) != 40 {
		t.Errorf("generated keys %q / %q, want 20 and 40 characters", s.AccessKey(), s.SecretKey())
	}
	s = start(t, s3server.Config{Listen: "0.0.0.0:0", AccessKey: "ak", SecretKey: "sk", Buckets: []string{"one", "two"}})
	if !strings.HasPrefix(s.Endpoint(), "http://127.0.0.1:") || s.AccessKey() != "ak" || s.SecretKey() != "sk" {
		t.Errorf("endpoint %q keys %q %q", s.Endpoint(), s.AccessKey(), s.SecretKey())
	}
	r := do(t, "GET", s.Endpoint()+"/", nil, nil)
	want(t, "list buckets", r, 200)
	if !strings.Contains(string(r.body), "<Name>one</Name>") || !strings.Contains(string(r.body), "<Name>two</Name>") {
		t.Errorf("list buckets: %s", r.body)
	}
	if _, err := s3server.Start(t.Context(), s3server.Config{Buckets: []string{"Bad_Name"}}); err == nil {
		t.Error("start with an invalid bucket name succeeded")
	}
}

func TestDataDirSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	c := s3server.Config{DataDir: dir, Buckets: []string{bucket}, AccessKey: "restart-ak", SecretKey: "restart-sk"}
	s, err := s3server.Start(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	register(s)
	data := payload(1000, 7)
	want(t, "put", do(t, "PUT", s.Endpoint()+"/"+bucket+"/keep/me", data, nil), 200)
	want(t, "put", do(t, "PUT", s.Endpoint()+"/"+bucket+"/keep/me", data, nil), 200)
	if err := s.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	s = start(t, c)
	r := do(t, "GET", s.Endpoint()+"/"+bucket+"/keep/me", nil, nil)
	want(t, "get after restart", r, 200)
	if !bytes.Equal(r.body, data) || unquote(r.header.Get("ETag")) != md5hex(data) {
		t.Errorf("after restart: %d bytes, ETag %s", len(r.body), r.header.Get("ETag"))
	}
	if lr := list(t, s, url.Values{}); !slices.Equal(lr.Keys, []string{"keep/me"}) {
		t.Errorf("list after restart: %q", lr.Keys)
	}
}

// Close waits for requests in flight, but no longer than its context allows.
func TestCloseIsBoundedByContext(t *testing.T) {
	s, err := s3server.Start(t.Context(), s3server.Config{Buckets: []string{bucket}, NoAuth: true}) // an unsigned slow upload
	if err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	req, _ := http.NewRequest("PUT", s.Endpoint()+"/"+bucket+"/slow", pr)
	req.ContentLength = 1 << 20
	req.Header.Set("Expect", "100-continue")
	done := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	// With Expect: 100-continue the client sends the body only once the
	// handler reads it, so when this write returns the request is in flight.
	if _, err := pw.Write(make([]byte, 1024)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 0)
	defer cancel()
	if err := s.Close(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("close with a request in flight and no time: %v, want DeadlineExceeded", err)
	}
	pw.Close()
	<-done
}

// A directory server leaves no files behind once its objects are deleted:
// replaced bodies, completed and aborted uploads are all cleaned up.
func TestDataDirCleansUp(t *testing.T) {
	dir := t.TempDir()
	s := start(t, s3server.Config{DataDir: dir, Buckets: []string{bucket}})
	base := s.Endpoint() + "/" + bucket + "/"
	for i := range 3 {
		want(t, "put", do(t, "PUT", base+"k", payload(100, uint64(i)), nil), 200)
	}
	want(t, "copy", do(t, "PUT", base+"copy", nil, map[string]string{"X-Amz-Copy-Source": "/" + bucket + "/k"}), 200)
	id := createUpload(t, base+"multi")
	etag := uploadPart(t, base+"multi", id, 1, payload(100, 1), nil)
	want(t, "complete", completeUpload(t, base+"multi", id, []string{etag}), 200)
	aborted := createUpload(t, base+"aborted")
	uploadPart(t, base+"aborted", aborted, 1, payload(100, 1), nil)
	want(t, "abort", do(t, "DELETE", base+"aborted?uploadId="+aborted, nil, nil), 204)
	for _, k := range []string{"k", "copy", "multi"} {
		want(t, "delete "+k, do(t, "DELETE", base+k, nil, nil), 204)
	}
	for _, sub := range []string{bucket, ".uploads"} {
		entries, err := os.ReadDir(filepath.Join(dir, sub))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		if len(entries) != 0 {
			t.Errorf("%s still holds %d entries after everything was deleted", sub, len(entries))
		}
	}
	want(t, "delete bucket", do(t, "DELETE", s.Endpoint()+"/"+bucket, nil, nil), 204)
}

func TestDeleteBucket(t *testing.T) {
	backends(t, func(t *testing.T, s *s3server.Server) {
		want(t, "put", do(t, "PUT", s.Endpoint()+"/"+bucket+"/k", []byte("x"), nil), 200)
		want(t, "delete non-empty bucket", do(t, "DELETE", s.Endpoint()+"/"+bucket, nil, nil), 409)
		want(t, "delete object", do(t, "DELETE", s.Endpoint()+"/"+bucket+"/k", nil, nil), 204)
		want(t, "delete bucket", do(t, "DELETE", s.Endpoint()+"/"+bucket, nil, nil), 204)
		want(t, "head deleted bucket", do(t, "HEAD", s.Endpoint()+"/"+bucket, nil, nil), 404)
		want(t, "create bucket", do(t, "PUT", s.Endpoint()+"/again", nil, nil), 200)
		want(t, "put into new bucket", do(t, "PUT", s.Endpoint()+"/again/k", []byte("x"), nil), 200)
	})
}

// A GET that has started keeps reading the version it opened, even when
// the object is replaced (and the old body released) halfway through.
func TestReplaceWhileReading(t *testing.T) {
	backends(t, func(t *testing.T, s *s3server.Server) {
		u := s.Endpoint() + "/" + bucket + "/moving"
		first := payload(16<<20, 1)
		want(t, "put", do(t, "PUT", u, first, nil), 200)
		get, _ := http.NewRequestWithContext(t.Context(), "GET", u, nil)
		sign(t, get, "UNSIGNED-PAYLOAD")
		resp, err := http.DefaultClient.Do(get)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		head := make([]byte, 1)
		if _, err := io.ReadFull(resp.Body, head); err != nil {
			t.Fatal(err)
		}
		want(t, "replace", do(t, "PUT", u, payload(10, 2), nil), 200)
		want(t, "delete", do(t, "DELETE", u, nil, nil), 204)
		rest, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("reading on after the replace: %v", err)
		}
		if got := append(head, rest...); !bytes.Equal(got, first) {
			t.Fatalf("got %d bytes that differ from the %d of the version opened", len(got), len(first))
		}
	})
}

func TestRequestLog(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(lockedWriter{&mu, &buf}, nil))
	s := start(t, s3server.Config{Buckets: []string{bucket}, Log: log})
	want(t, "get missing", do(t, "GET", s.Endpoint()+"/"+bucket+"/nope", nil, nil), 404)
	quiet := start(t, s3server.Config{Buckets: []string{bucket}, Log: log, Quiet: true})
	want(t, "get missing", do(t, "GET", quiet.Endpoint()+"/"+bucket+"/quiet", nil, nil), 404)
	mu.Lock()
	defer mu.Unlock()
	if out := buf.String(); !strings.Contains(out, "path=/bench/nope") || !strings.Contains(out, "status=404") || strings.Contains(out, "quiet") {
		t.Errorf("request log:\n%s", out)
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
