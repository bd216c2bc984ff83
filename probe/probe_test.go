package probe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/objbench/objbench/faultserver"
	"github.com/objbench/objbench/probe"
	"github.com/objbench/objbench/s3server"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// embedded starts the embedded server with bucket "probe-keep" holding
// one object the probe must leave alone.
func embedded(t *testing.T) (s3.Config, *s3.Store) {
	t.Helper()
	srv, err := s3server.Start(context.Background(), s3server.Config{Buckets: []string{"probe-keep"}, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(context.Background()) })
	c := s3.Config{Endpoint: srv.Endpoint(), Bucket: "probe-keep", AccessKey: srv.AccessKey(), SecretKey: srv.SecretKey(),
		Region: "us-east-1", PathStyle: true}
	st, err := s3.New(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if _, err := st.Put(context.Background(), "keep/me", strings.NewReader("precious"), 8, storage.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	return c, st
}

func statuses(r *probe.Report) map[string]probe.Status {
	m := map[string]probe.Status{}
	for _, f := range r.Findings {
		m[f.Feature] = f.Status
	}
	return m
}

// What the embedded server supports (s3server's doc): every feature the
// probe asks about but object lock (left out here: the server may gain
// it), virtual-host addressing and TLS (not asked over http on an IP).
func TestProbeMatchesEmbeddedServer(t *testing.T) {
	c, st := embedded(t)
	rep, err := probe.Run(context.Background(), c, probe.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := statuses(rep)
	want := map[string]probe.Status{
		"addressing.path": probe.Yes, "addressing.virtual-host": probe.NotChecked, "tls": probe.NotChecked,
		"versioning": probe.NotChecked, // an existing bucket: its settings are not the probe's to change
		"clock-skew": probe.Info, "throttling": probe.Info, "server": probe.Info,
	}
	for _, f := range rep.Findings {
		w, ok := want[f.Feature]
		if !ok {
			w = probe.Yes
		}
		if f.Feature != "object-lock" && f.Status != w {
			t.Errorf("%s: %s (%s), want %s", f.Feature, f.Status, f.Detail, w)
		}
	}
	for _, n := range []string{"etag.put", "list.v1", "list.v2", "multipart.min-part-size", "checksum.crc64nvme.trailer",
		"conditional.put.if-none-match", "sse.c", "upload-part-copy", "presigned-url"} {
		if _, ok := got[n]; !ok {
			t.Errorf("no finding for %s", n)
		}
	}
	if keys := keysIn(t, st); !slices.Equal(keys, []string{"keep/me"}) || len(rep.Left) > 0 {
		t.Errorf("after the probe the bucket holds %v (left %v); want only keep/me", keys, rep.Left)
	}
}

// In a bucket of its own the probe also enables versioning, and removes
// every version and the bucket.
func TestProbeOwnBucket(t *testing.T) {
	c, _ := embedded(t)
	c.Bucket = "probe-own"
	rep, err := probe.Run(context.Background(), c, probe.Options{CreateBucket: true, Only: []string{"versioning", "etag"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := statuses(rep); got["versioning"] != probe.Yes || got["etag.put"] != probe.Yes || len(got) != 2 {
		t.Errorf("findings %v; want versioning and etag.put, both yes", got)
	}
	st, err := s3.New(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if ok, err := st.BucketExists(context.Background()); err != nil || ok || !rep.BucketCreated {
		t.Errorf("the probe's bucket still exists (%v, %v) or was not its own (%v)", ok, err, rep.BucketCreated)
	}
}

// A store made to lack features: refused ones (501) and silently ignored
// ones (conditional writes) are both "no", and the cleanup still leaves
// nothing though the store refuses DeleteObjects.
func TestProbeStoreLackingFeatures(t *testing.T) {
	fs, err := faultserver.Start(context.Background(), faultserver.Config{Bucket: "lacking", Lacks: faultserver.Lacks{
		Refuse: []string{"tagging", "checksum", "delete-objects", "copy"},
		Ignore: []string{"conditional-write"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close(context.Background())
	c := s3.Config{Endpoint: fs.Endpoint(), Bucket: "lacking", AccessKey: "any", SecretKey: "any-secret", Region: "us-east-1", PathStyle: true}
	rep, err := probe.Run(context.Background(), c, probe.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := statuses(rep)
	for feature, want := range map[string]probe.Status{
		"tagging": probe.No, "checksum.crc32c.header": probe.No, "checksum.sha256.trailer": probe.No,
		"checksum.multipart": probe.No, "delete-objects": probe.No, "delete-objects.limit": probe.No, "copy-object": probe.No, "upload-part-copy": probe.No,
		"conditional.put.if-none-match": probe.No, "conditional.put.if-match": probe.No,
		"conditional.get.if-none-match": probe.Yes, "multipart": probe.Yes, "etag.put": probe.Yes, "presigned-url": probe.Yes,
	} {
		if got[feature] != want {
			f, _ := rep.Find(feature)
			t.Errorf("%s: %s (%s), want %s", feature, got[feature], f.Detail, want)
		}
	}
	if f, _ := rep.Find("conditional.put.if-none-match"); !strings.Contains(f.Detail, "ignored") {
		t.Errorf("an ignored condition should be named as ignored: %q", f.Detail)
	}
	for _, name := range []string{"tagging", "delete-objects", "delete-objects.limit"} {
		if f, _ := rep.Find(name); !strings.Contains(f.Detail, "not implemented") {
			t.Errorf("%s: a refused feature should be named not implemented: %q", name, f.Detail)
		}
	}
	st, err := s3.New(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if keys := keysIn(t, st); len(keys) != 0 || len(rep.Left) != 0 {
		t.Errorf("the probe left %v (report: %v)", keys, rep.Left)
	}
}

func TestReportTableAndJSON(t *testing.T) {
	c, _ := embedded(t)
	rep, err := probe.Run(context.Background(), c, probe.Options{Only: []string{"etag", "conditional.get.if-match"}})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := probe.WriteTable(&b, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"FEATURE", "etag.put", "conditional.get.if-match", "2 features: 0 missing", "cleaned up"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	raw, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back probe.Report
	if err := json.Unmarshal(raw, &back); err != nil || len(back.Findings) != 2 || back.Findings[0].Feature != "etag.put" {
		t.Errorf("JSON round trip: %v %+v", err, back.Findings)
	}
}

func keysIn(t *testing.T, st storage.Store) []string {
	t.Helper()
	keys, err := storage.KeysUnder(context.Background(), st, "")
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// Over https the probe asks which TLS versions the server accepts: the
// embedded server's Go TLS stack accepts 1.2 and 1.3 only.
func TestProbeTLSVersions(t *testing.T) {
	srv, err := s3server.Start(context.Background(), s3server.Config{Buckets: []string{"probe-tls"}, TLS: true, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close(context.Background())
	c := s3.Config{Endpoint: srv.Endpoint(), Bucket: "probe-tls", AccessKey: srv.AccessKey(), SecretKey: srv.SecretKey(),
		Region: "us-east-1", PathStyle: true, CABundle: srv.CAFile()}
	rep, err := probe.Run(context.Background(), c, probe.Options{Only: []string{"tls"}})
	if err != nil {
		t.Fatal(err)
	}
	f, ok := rep.Find("tls")
	if !ok || f.Status != probe.Yes || f.Detail != "accepts TLS 1.2, TLS 1.3; refuses TLS 1.0, TLS 1.1" {
		t.Errorf("tls: %+v", f)
	}
}
