package s3server_test

import (
	"bufio"
	"crypto/md5"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/objbench/objbench/s3server"
)

// User metadata comes back with its keys in lower case, as S3 sends them
// (read off the wire: net/http's client would canonicalise them), with
// the content headers, Cache-Control and Expires the PUT gave; metadata
// over 2 KB is refused.
func TestMetadataAsS3KeepsIt(t *testing.T) {
	s := start(t, s3server.Config{Buckets: []string{bucket}, NoAuth: true})
	u := s.Endpoint() + "/" + bucket + "/meta"
	hdr := map[string]string{"x-amz-meta-Owner-Name": "objbench", "Cache-Control": "max-age=60",
		"Expires": "Thu, 01 Dec 2094 16:00:00 GMT", "Content-Type": "text/plain", "Content-Language": "en"}
	want(t, "put", do(t, "PUT", u, []byte("x"), hdr), 200)
	head := rawHead(t, s.Endpoint(), "/"+bucket+"/meta")
	for _, line := range []string{"x-amz-meta-owner-name: objbench", "Cache-Control: max-age=60",
		"Expires: Thu, 01 Dec 2094 16:00:00 GMT", "Content-Type: text/plain", "Content-Language: en", "Last-Modified: "} {
		if !strings.Contains(head, "\r\n"+line) {
			t.Errorf("HEAD lacks %q:\n%s", line, head)
		}
	}
	big := map[string]string{"x-amz-meta-big": strings.Repeat("x", 2100)}
	r := do(t, "PUT", u, []byte("y"), big)
	if r.status != 400 || !strings.Contains(string(r.body), "MetadataTooLarge") {
		t.Errorf("2 KB of metadata: %d %s", r.status, r.body)
	}
}

// rawHead sends HEAD path over a plain connection and returns the answer's
// head as sent.
func rawHead(t *testing.T, endpoint, path string) string {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(endpoint, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "HEAD %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", path)
	var b strings.Builder
	sc := bufio.NewScanner(c)
	for sc.Scan() && sc.Text() != "" {
		b.WriteString(sc.Text() + "\r\n")
	}
	return "\r\n" + b.String()
}

// Object tags: set by x-amz-tagging on PUT, read, replaced and deleted
// with ?tagging, counted on HEAD; S3's limits refuse bad tag sets.
func TestTagging(t *testing.T) {
	backends(t, func(t *testing.T, s *s3server.Server) {
		u := s.Endpoint() + "/" + bucket + "/tagged"
		want(t, "put", do(t, "PUT", u, []byte("x"), map[string]string{"x-amz-tagging": "team=bench&env=test%20run"}), 200)
		if r := do(t, "HEAD", u, nil, nil); r.header.Get("X-Amz-Tagging-Count") != "2" {
			t.Errorf("HEAD tag count %q", r.header.Get("X-Amz-Tagging-Count"))
		}
		r := do(t, "GET", u+"?tagging", nil, nil)
		if !strings.Contains(string(r.body), "<Key>env</Key><Value>test run</Value>") {
			t.Errorf("tags: %s", r.body)
		}
		tags := `<Tagging><TagSet><Tag><Key>k</Key><Value>v</Value></Tag></TagSet></Tagging>`
		want(t, "put tags", do(t, "PUT", u+"?tagging", []byte(tags), nil), 200)
		if r := do(t, "GET", u+"?tagging", nil, nil); strings.Contains(string(r.body), "team") || !strings.Contains(string(r.body), "<Key>k</Key>") {
			t.Errorf("replaced tags: %s", r.body)
		}
		if r := do(t, "GET", u, nil, nil); string(r.body) != "x" {
			t.Fatalf("tagging changed the object: %q", r.body)
		}
		want(t, "delete tags", do(t, "DELETE", u+"?tagging", nil, nil), 204)
		if r := do(t, "HEAD", u, nil, nil); r.header.Get("X-Amz-Tagging-Count") != "" {
			t.Errorf("tags left: %v", r.header)
		}
		var many strings.Builder
		for i := range 11 {
			fmt.Fprintf(&many, "k%d=v&", i)
		}
		want(t, "11 tags", do(t, "PUT", u, []byte("x"), map[string]string{"x-amz-tagging": many.String()}), 400)
		want(t, "a long key", do(t, "PUT", u+"?tagging", []byte(`<Tagging><TagSet><Tag><Key>`+strings.Repeat("k", 129)+`</Key><Value>v</Value></Tag></TagSet></Tagging>`), nil), 400)
		want(t, "tags of a missing key", do(t, "GET", u+"-missing?tagging", nil, nil), 404)
	})
}

// CopyObject keeps the source's metadata and tags or, with REPLACE
// directives, takes the request's; copies a version; refuses a copy onto
// itself that changes nothing; and honours the copy-source conditions.
// UploadPartCopy takes a range of the source.
func TestCopies(t *testing.T) {
	backends(t, func(t *testing.T, s *s3server.Server) {
		base := s.Endpoint() + "/" + bucket
		src := base + "/src"
		data := payload(6<<20, 51)
		r := do(t, "PUT", src, data, map[string]string{"x-amz-meta-a": "1", "x-amz-tagging": "t=1", "Content-Type": "text/x"})
		etag := r.header.Get("ETag")
		copyFrom := func(dst string, hdr map[string]string) response {
			h := map[string]string{"x-amz-copy-source": bucket + "/src"}
			for k, v := range hdr {
				h[k] = v
			}
			return do(t, "PUT", base+"/"+dst, nil, h)
		}
		want(t, "copy", copyFrom("c1", nil), 200)
		r = do(t, "HEAD", base+"/c1", nil, nil)
		if r.header.Get("X-Amz-Meta-A") != "1" || r.header.Get("Content-Type") != "text/x" || r.header.Get("X-Amz-Tagging-Count") != "1" || r.header.Get("ETag") != etag {
			t.Errorf("copy's headers: %v", r.header)
		}
		want(t, "copy with REPLACE", copyFrom("c2", map[string]string{"x-amz-metadata-directive": "REPLACE", "x-amz-meta-b": "2",
			"x-amz-tagging-directive": "REPLACE", "x-amz-tagging": "u=2"}), 200)
		r = do(t, "HEAD", base+"/c2", nil, nil)
		if r.header.Get("X-Amz-Meta-A") != "" || r.header.Get("X-Amz-Meta-B") != "2" || r.header.Get("Content-Type") != "binary/octet-stream" {
			t.Errorf("REPLACE copy's headers: %v", r.header)
		}
		if r := do(t, "GET", base+"/c2?tagging", nil, nil); !strings.Contains(string(r.body), "<Key>u</Key>") {
			t.Errorf("REPLACE copy's tags: %s", r.body)
		}
		want(t, "onto itself", copyFrom("src", nil), 400)
		want(t, "onto itself with new metadata", copyFrom("src", map[string]string{"x-amz-metadata-directive": "REPLACE", "x-amz-meta-a": "3"}), 200)
		want(t, "if-match holds", copyFrom("c3", map[string]string{"x-amz-copy-source-if-match": etag}), 200)
		want(t, "if-none-match fails", copyFrom("c4", map[string]string{"x-amz-copy-source-if-none-match": etag}), 412)
		want(t, "if-unmodified-since fails", copyFrom("c4", map[string]string{"x-amz-copy-source-if-unmodified-since": "Mon, 01 Jan 2001 00:00:00 GMT"}), 412)
		want(t, "if-modified-since fails", copyFrom("c4", map[string]string{"x-amz-copy-source-if-modified-since": "Thu, 01 Dec 2094 16:00:00 GMT"}), 412)
		want(t, "nothing copied", do(t, "HEAD", base+"/c4", nil, nil), 404)
		want(t, "missing source", do(t, "PUT", base+"/c5", nil, map[string]string{"x-amz-copy-source": bucket + "/nope"}), 404)

		setVersioning(t, base, "Enabled")
		v1 := do(t, "PUT", base+"/v", []byte("first"), nil).header.Get("X-Amz-Version-Id")
		want(t, "second", do(t, "PUT", base+"/v", []byte("second"), nil), 200)
		r = do(t, "PUT", base+"/vc", nil, map[string]string{"x-amz-copy-source": "/" + bucket + "/v?versionId=" + v1})
		if r.status != 200 || r.header.Get("X-Amz-Copy-Source-Version-Id") != v1 {
			t.Fatalf("copy of a version: %d %v %s", r.status, r.header, r.body)
		}
		if r := do(t, "GET", base+"/vc", nil, nil); string(r.body) != "first" {
			t.Fatalf("copy of the first version holds %q", r.body)
		}

		mp := base + "/" + url.PathEscape("parts copy")
		id := createUpload(t, mp)
		var etags []string
		for i, rng := range []string{"bytes=0-5242879", "bytes=5242880-6291455"} {
			r := do(t, "PUT", fmt.Sprintf("%s?partNumber=%d&uploadId=%s", mp, i+1, id), nil,
				map[string]string{"x-amz-copy-source": bucket + "/src", "x-amz-copy-source-range": rng})
			want(t, "part copy "+rng, r, 200)
			var res struct{ ETag string }
			decodeXML(t, r.body, &res)
			etags = append(etags, res.ETag)
		}
		want(t, "a range past the end", do(t, "PUT", fmt.Sprintf("%s?partNumber=3&uploadId=%s", mp, id), nil,
			map[string]string{"x-amz-copy-source": bucket + "/src", "x-amz-copy-source-range": "bytes=0-7000000"}), 416)
		want(t, "complete", completeUpload(t, mp, id, etags), 200)
		if r := do(t, "GET", mp, nil, nil); string(r.body) != string(data) {
			t.Fatalf("object of copied parts: %d bytes", len(r.body))
		}
	})
}

// DeleteObjects deletes up to 1,000 keys, reports each (or, quiet, only
// failures), refuses 1,001 and a body without Content-MD5.
func TestDeleteObjects(t *testing.T) {
	backends(t, func(t *testing.T, s *s3server.Server) {
		base := s.Endpoint() + "/" + bucket
		for i := range 3 {
			want(t, "put", do(t, "PUT", fmt.Sprintf("%s/d%d", base, i), []byte("x"), nil), 200)
		}
		del := func(keys []string, quiet bool) response {
			var b strings.Builder
			fmt.Fprintf(&b, "<Delete><Quiet>%v</Quiet>", quiet)
			for _, k := range keys {
				b.WriteString("<Object><Key>" + k + "</Key></Object>")
			}
			b.WriteString("</Delete>")
			sum := md5.Sum([]byte(b.String()))
			return do(t, "POST", base+"?delete", []byte(b.String()), map[string]string{"Content-MD5": base64.StdEncoding.EncodeToString(sum[:])})
		}
		many := make([]string, 1001)
		for i := range many {
			many[i] = fmt.Sprintf("d%d", i)
		}
		want(t, "1,001 keys", del(many, false), 400)
		if got := listKeys(t, base); len(got) != 3 {
			t.Fatalf("a refused request deleted: %v", got)
		}
		r := del([]string{"d0", "never"}, false)
		if r.status != 200 || strings.Count(string(r.body), "<Deleted>") != 2 {
			t.Fatalf("delete: %d %s", r.status, r.body)
		}
		r = del(many[1:1000], true)
		if r.status != 200 || strings.Contains(string(r.body), "<Deleted>") {
			t.Fatalf("quiet delete: %d %s", r.status, r.body)
		}
		if got := listKeys(t, base); len(got) != 0 {
			t.Fatalf("left: %v", got)
		}
		want(t, "no Content-MD5", do(t, "POST", base+"?delete", []byte("<Delete><Object><Key>a</Key></Object></Delete>"), nil), 400)
	})
}

// Listing pages as S3 does: max-keys=0 lists nothing, keys go out
// URL-encoded when asked, Owner only with fetch-owner in V2.
func TestListingDetails(t *testing.T) {
	s := start(t, s3server.Config{Buckets: []string{bucket}})
	base := s.Endpoint() + "/" + bucket
	want(t, "put", do(t, "PUT", base+"/"+url.PathEscape("a b+c"), []byte("x"), nil), 200)
	r := do(t, "GET", base+"?list-type=2&max-keys=0", nil, nil)
	if strings.Contains(string(r.body), "<Contents>") || !strings.Contains(string(r.body), "<IsTruncated>false</IsTruncated>") {
		t.Errorf("max-keys=0: %s", r.body)
	}
	r = do(t, "GET", base+"?list-type=2&encoding-type=url", nil, nil)
	if !strings.Contains(string(r.body), "<Key>a%20b%2Bc</Key>") || strings.Contains(string(r.body), "<Owner>") {
		t.Errorf("url-encoded V2: %s", r.body)
	}
	if r := do(t, "GET", base+"?list-type=2&fetch-owner=true", nil, nil); !strings.Contains(string(r.body), "<Owner>") {
		t.Errorf("fetch-owner: %s", r.body)
	}
	if r := do(t, "GET", base+"?max-keys=-1", nil, nil); r.status != http.StatusBadRequest {
		t.Errorf("max-keys=-1: %d", r.status)
	}
}
