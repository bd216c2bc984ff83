package s3server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/s3server"
)

type versionList struct {
	IsTruncated         bool
	NextKeyMarker       string
	NextVersionIdMarker string
	Version             []struct {
		Key, VersionId string
		IsLatest       bool
		Size           int64
	}
	DeleteMarker []struct {
		Key, VersionId string
		IsLatest       bool
	}
}

// allVersions lists every version and marker of the bucket, a page of
// max at a time, as "key@id" (markers "key@id(marker)"), in the order
// the pages give them.
func allVersions(t *testing.T, base string, max int) []string {
	t.Helper()
	var out []string
	q := fmt.Sprintf("?versions&max-keys=%d", max)
	for page := 0; page < 100; page++ {
		r := do(t, "GET", base+q, nil, nil)
		want(t, "list versions", r, 200)
		var l versionList
		decodeXML(t, r.body, &l)
		// Versions and markers come interleaved in the document; its
		// order is checked by key here, and in full by the caller.
		for _, v := range l.Version {
			out = append(out, v.Key+"@"+v.VersionId)
		}
		for _, m := range l.DeleteMarker {
			out = append(out, m.Key+"@"+m.VersionId+"(marker)")
		}
		if !l.IsTruncated {
			return out
		}
		q = fmt.Sprintf("?versions&max-keys=%d&key-marker=%s&version-id-marker=%s", max, l.NextKeyMarker, l.NextVersionIdMarker)
	}
	t.Fatal("the listing never ended")
	return nil
}

// Versioning as S3 has it: enabled, each PUT a new version read back by
// id; a DELETE leaves a marker (404 with x-amz-delete-marker, 405 for the
// marker by id); a DELETE by id removes a version for good; suspended,
// writes replace the null version; ListObjectVersions pages through all
// of it. A directory server keeps it across a restart.
func TestVersioning(t *testing.T) {
	backends(t, func(t *testing.T, s *s3server.Server) {
		base := s.Endpoint() + "/" + bucket
		u := base + "/doc"
		want(t, "a version before versioning", do(t, "PUT", u, []byte("v0"), nil), 200)
		setVersioning(t, base, "Enabled")
		if r := do(t, "GET", base+"?versioning", nil, nil); !strings.Contains(string(r.body), "<Status>Enabled</Status>") {
			t.Fatalf("versioning: %s", r.body)
		}
		v1 := do(t, "PUT", u, []byte("v1"), nil).header.Get("X-Amz-Version-Id")
		v2 := do(t, "PUT", u, []byte("v2"), nil).header.Get("X-Amz-Version-Id")
		if v1 == "" || v2 == "" || v1 == v2 || v1 == "null" {
			t.Fatalf("version ids %q %q", v1, v2)
		}
		for id, body := range map[string]string{v1: "v1", v2: "v2", "null": "v0"} {
			r := do(t, "GET", u+"?versionId="+id, nil, nil)
			if string(r.body) != body || r.header.Get("X-Amz-Version-Id") != id {
				t.Errorf("GET version %s: %d %q, version %q", id, r.status, r.body, r.header.Get("X-Amz-Version-Id"))
			}
		}
		want(t, "a version that is not", do(t, "GET", u+"?versionId=0123456789abcdef0123456789abcdef", nil, nil), 404)
		r := do(t, "DELETE", u, nil, nil)
		marker := r.header.Get("X-Amz-Version-Id")
		if r.status != 204 || r.header.Get("X-Amz-Delete-Marker") != "true" || marker == "" {
			t.Fatalf("DELETE under versioning: %d %v", r.status, r.header)
		}
		if r := do(t, "GET", u, nil, nil); r.status != 404 || r.header.Get("X-Amz-Delete-Marker") != "true" {
			t.Fatalf("GET behind a marker: %d %v", r.status, r.header)
		}
		want(t, "GET of the marker", do(t, "GET", u+"?versionId="+marker, nil, nil), 405)
		if got := listKeys(t, base); len(got) != 0 {
			t.Fatalf("a deleted key is listed: %v", got)
		}
		want(t, "second key", do(t, "PUT", base+"/other", []byte("o"), nil), 200)
		all := allVersions(t, base, 1000)
		wantAll := []string{"doc@" + v2, "doc@" + v1, "doc@null", "other@"}
		if len(all) != 5 || !strings.HasPrefix(all[3], wantAll[3]) || all[4] != "doc@"+marker+"(marker)" ||
			all[0] != wantAll[0] || all[1] != wantAll[1] || all[2] != wantAll[2] {
			t.Fatalf("versions %v", all)
		}
		if paged := allVersions(t, base, 1); len(paged) != 5 {
			t.Fatalf("one at a time: %v", paged)
		}
		r = do(t, "DELETE", u+"?versionId="+marker, nil, nil)
		if r.status != 204 || r.header.Get("X-Amz-Delete-Marker") != "true" {
			t.Fatalf("DELETE of the marker: %d %v", r.status, r.header)
		}
		if r := do(t, "GET", u, nil, nil); string(r.body) != "v2" {
			t.Fatalf("after removing the marker: %d %q", r.status, r.body)
		}
		want(t, "DELETE of v2 for good", do(t, "DELETE", u+"?versionId="+v2, nil, nil), 204)
		if r := do(t, "GET", u, nil, nil); string(r.body) != "v1" {
			t.Fatalf("after removing v2: %q", r.body)
		}
		setVersioning(t, base, "Suspended")
		r = do(t, "PUT", u, []byte("s1"), nil)
		if r.header.Get("X-Amz-Version-Id") != "" {
			t.Errorf("PUT while suspended answered version %q", r.header.Get("X-Amz-Version-Id"))
		}
		want(t, "suspended again", do(t, "PUT", u, []byte("s2"), nil), 200)
		if r := do(t, "GET", u+"?versionId=null", nil, nil); string(r.body) != "s2" {
			t.Fatalf("the null version: %q", r.body)
		}
		if got := allVersions(t, base, 1000); len(got) != 3 { // doc@null (s2), doc@v1, other@null
			t.Fatalf("suspended: %v", got)
		}
	})
}

// A directory server's versions, markers and versioning state survive a
// restart.
func TestVersionsSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	s1, err := s3server.Start(context.Background(), s3server.Config{DataDir: dir, Buckets: []string{bucket}})
	if err != nil {
		t.Fatal(err)
	}
	register(s1)
	base := s1.Endpoint() + "/" + bucket
	setVersioning(t, base, "Enabled")
	for _, b := range []string{"a", "b", "c"} {
		want(t, "put", do(t, "PUT", base+"/k", []byte(b), nil), 200)
	}
	want(t, "delete", do(t, "DELETE", base+"/k", nil, nil), 204)
	before := allVersions(t, base, 1000)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s1.Close(ctx); err != nil {
		t.Fatal(err)
	}
	s2 := start(t, s3server.Config{DataDir: dir})
	base = s2.Endpoint() + "/" + bucket
	if after := allVersions(t, base, 1000); strings.Join(after, ",") != strings.Join(before, ",") {
		t.Fatalf("after a restart %v, before %v", after, before)
	}
	if r := do(t, "PUT", base+"/k", []byte("d"), nil); r.header.Get("X-Amz-Version-Id") == "" {
		t.Fatal("versioning was not kept")
	}
}

func setVersioning(t *testing.T, base, status string) {
	t.Helper()
	body := "<VersioningConfiguration><Status>" + status + "</Status></VersioningConfiguration>"
	want(t, "versioning "+status, do(t, "PUT", base+"?versioning", []byte(body), nil), 200)
}

func listKeys(t *testing.T, base string) []string {
	t.Helper()
	r := do(t, "GET", base+"?list-type=2", nil, nil)
	var l struct{ Contents []struct{ Key string } }
	decodeXML(t, r.body, &l)
	var out []string
	for _, c := range l.Contents {
		out = append(out, c.Key)
	}
	return out
}
