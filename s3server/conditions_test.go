package s3server_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/s3server"
)

// GET and HEAD with the four conditions answer as S3 does: If-Match and
// If-Unmodified-Since 412, If-None-Match and If-Modified-Since 304 (with
// the ETag), and If-Match that holds overrides If-Unmodified-Since.
func TestReadConditions(t *testing.T) {
	backends(t, func(t *testing.T, s *s3server.Server) {
		u := s.Endpoint() + "/" + bucket + "/cond"
		data := payload(1000, 41)
		r := do(t, "PUT", u, data, nil)
		want(t, "put", r, 200)
		etag := r.header.Get("ETag")
		r = do(t, "HEAD", u, nil, nil)
		mod, err := http.ParseTime(r.header.Get("Last-Modified"))
		if err != nil {
			t.Fatal(err)
		}
		before, after := mod.Add(-time.Hour).Format(http.TimeFormat), mod.Add(time.Hour).Format(http.TimeFormat)
		for _, c := range []struct {
			hdr    map[string]string
			status int
		}{
			{map[string]string{"If-Match": etag}, 200},
			{map[string]string{"If-Match": `"00000000000000000000000000000000"`}, 412},
			{map[string]string{"If-Match": "*"}, 200},
			{map[string]string{"If-None-Match": etag}, 304},
			{map[string]string{"If-None-Match": "*"}, 304},
			{map[string]string{"If-None-Match": `"00000000000000000000000000000000"`}, 200},
			{map[string]string{"If-Modified-Since": before}, 200},
			{map[string]string{"If-Modified-Since": after}, 304},
			{map[string]string{"If-Unmodified-Since": after}, 200},
			{map[string]string{"If-Unmodified-Since": before}, 412},
			{map[string]string{"If-Match": etag, "If-Unmodified-Since": before}, 200},
			{map[string]string{"If-None-Match": `"0"`, "If-Modified-Since": after}, 200},
		} {
			for _, m := range []string{"GET", "HEAD"} {
				r := do(t, m, u, nil, c.hdr)
				if r.status != c.status {
					t.Errorf("%s with %v: %d, want %d", m, c.hdr, r.status, c.status)
				}
				if r.status == 304 && (r.header.Get("ETag") != etag || len(r.body) != 0) {
					t.Errorf("%s with %v: 304 with ETag %q and %d bytes", m, c.hdr, r.header.Get("ETag"), len(r.body))
				}
				if m == "GET" && r.status == 200 && !bytes.Equal(r.body, data) {
					t.Errorf("GET with %v: %d bytes", c.hdr, len(r.body))
				}
			}
		}
	})
}

// Conditional writes: If-None-Match: * creates only, If-Match replaces
// only the version it names (404 without one), DELETE with If-Match
// deletes only that version, CompleteMultipartUpload takes both; what a
// failed condition refused is not stored.
func TestWriteConditions(t *testing.T) {
	backends(t, func(t *testing.T, s *s3server.Server) {
		u := s.Endpoint() + "/" + bucket + "/cas"
		want(t, "If-Match on a missing key", do(t, "PUT", u, []byte("x"), map[string]string{"If-Match": `"abc"`}), 404)
		want(t, "create", do(t, "PUT", u, []byte("one"), map[string]string{"If-None-Match": "*"}), 200)
		want(t, "create again", do(t, "PUT", u, []byte("two"), map[string]string{"If-None-Match": "*"}), 412)
		first := do(t, "HEAD", u, nil, nil).header.Get("ETag")
		want(t, "swap", do(t, "PUT", u, []byte("two"), map[string]string{"If-Match": first}), 200)
		want(t, "stale swap", do(t, "PUT", u, []byte("three"), map[string]string{"If-Match": first}), 412)
		if r := do(t, "GET", u, nil, nil); string(r.body) != "two" {
			t.Fatalf("after a refused swap: %q", r.body)
		}
		want(t, "If-None-Match with an ETag", do(t, "PUT", u, []byte("x"), map[string]string{"If-None-Match": first}), 501)
		want(t, "stale delete", do(t, "DELETE", u, nil, map[string]string{"If-Match": first}), 412)
		second := do(t, "HEAD", u, nil, nil).header.Get("ETag")
		want(t, "delete", do(t, "DELETE", u, nil, map[string]string{"If-Match": second}), 204)
		want(t, "gone", do(t, "GET", u, nil, nil), 404)

		mp := s.Endpoint() + "/" + bucket + "/cas-mp"
		want(t, "taken", do(t, "PUT", mp, []byte("taken"), nil), 200)
		id := createUpload(t, mp)
		etag := uploadPart(t, mp, id, 1, []byte("part"), nil)
		r := completeUploadWith(t, mp, id, []string{etag}, map[string]string{"If-None-Match": "*"})
		want(t, "complete onto a taken key", r, 412)
		if r := do(t, "GET", mp, nil, nil); string(r.body) != "taken" {
			t.Fatalf("a refused completion replaced the object: %q", r.body)
		}
		taken := do(t, "HEAD", mp, nil, nil).header.Get("ETag")
		want(t, "complete with If-Match", completeUploadWith(t, mp, id, []string{etag}, map[string]string{"If-Match": taken}), 200)
		if r := do(t, "GET", mp, nil, nil); string(r.body) != "part" {
			t.Fatalf("after completing: %q", r.body)
		}
	})
}

// A conditional PUT whose condition held when it arrived but not when it
// finished (another PUT of the key completed while its body was on the
// way) is 409 ConditionalRequestConflict, as S3 answers, and not stored.
func TestWriteConditionRace(t *testing.T) {
	s := start(t, s3server.Config{Buckets: []string{bucket}})
	u := s.Endpoint() + "/" + bucket + "/race"
	pr, pw := io.Pipe()
	req, _ := http.NewRequestWithContext(t.Context(), "PUT", u, pr)
	req.ContentLength = 8
	req.Header.Set("If-None-Match", "*")
	sign(t, req, "UNSIGNED-PAYLOAD")
	// With Expect: 100-continue the client sends no byte of the body
	// before the server asks for it, which it does on its first read of
	// the body: after the condition was checked.
	req.Header.Set("Expect", "100-continue")
	client := &http.Client{Transport: &http.Transport{ExpectContinueTimeout: time.Minute}}
	done := make(chan response, 1)
	go func() {
		resp, err := client.Do(req)
		if err != nil {
			done <- response{status: -1, body: []byte(err.Error())}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		done <- response{resp.StatusCode, resp.Header, b}
	}()
	// This write returns once the client took the bytes to send: after
	// the server asked for them.
	if _, err := pw.Write([]byte("slow")); err != nil {
		t.Fatal(err)
	}
	want(t, "the other PUT", do(t, "PUT", u, []byte("fast"), nil), 200)
	if _, err := pw.Write([]byte("body")); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	r := <-done
	want(t, "the slow conditional PUT", r, 409)
	if !strings.Contains(string(r.body), "ConditionalRequestConflict") {
		t.Errorf("answer: %s", r.body)
	}
	if r := do(t, "GET", u, nil, nil); string(r.body) != "fast" {
		t.Fatalf("the key holds %q", r.body)
	}
}

func completeUploadWith(t *testing.T, objURL, id string, etags []string, hdr map[string]string) response {
	t.Helper()
	var b strings.Builder
	b.WriteString("<CompleteMultipartUpload>")
	for i, e := range etags {
		b.WriteString("<Part><PartNumber>" + string(rune('1'+i)) + "</PartNumber><ETag>" + e + "</ETag></Part>")
	}
	b.WriteString("</CompleteMultipartUpload>")
	return do(t, "POST", objURL+"?uploadId="+id, []byte(b.String()), hdr)
}
