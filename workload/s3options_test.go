package workload_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/objbench/objbench/workload"
)

func TestYAMLS3OptionsAndConnections(t *testing.T) {
	sp := decodeOK(t, "s.yaml", `storage: {endpoint: "https://h:9000", keepalive: false, max_conns_per_host: 16, ca_bundle: /etc/ca.pem, tls_resumption: no}
stages:
  - kind: main
    duration: 1s
    ops: {put: 50, get: 30, copy: 10, delete-batch: 5, list-versions: 5}
    objects: {prefix: w/}
    size: 1KiB
    s3:
      checksum: crc64nvme/trailer
      verify_checksum: true
      if_none_match: "*"
      sse: kms:key-1
      tags: {team: storage, env: test}
      metadata: {owner: bench}
      storage_class: STANDARD_IA
      versioned: true
      batch_size: 250
`)
	st := sp.Storage
	if st.KeepAlive == nil || *st.KeepAlive || st.MaxConnsPerHost != 16 || st.CABundle != "/etc/ca.pem" || !st.NoTLSResumption {
		t.Errorf("storage connections %+v", st)
	}
	o := sp.Stages[0].Streams[0].S3
	if o == nil || o.Checksum != "crc64nvme" || !o.ChecksumTrailer || !o.VerifyChecksum || o.IfNoneMatch != "*" || o.SSE != "kms:key-1" ||
		o.Tagging() != "env=test&team=storage" || o.Metadata["owner"] != "bench" || o.StorageClass != "STANDARD_IA" || !o.Versioned || o.BatchSize != 250 {
		t.Errorf("s3 options %+v", o)
	}
	var plan bytes.Buffer
	if err := workload.WritePlan(&plan, sp); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"s3 options: checksum crc64nvme trailer, verify-checksum, if-none-match *, sse kms:key-1, tags env=test&team=storage",
		"a new connection per request (keepalive off), at most 16 connections to the host"} {
		if !strings.Contains(plan.String(), want) {
			t.Errorf("the plan does not say %q:\n%s", want, plan.String())
		}
	}
}

func TestS3OptionsProblems(t *testing.T) {
	for _, c := range []struct {
		s3, want string
	}{
		{`{checksum: crc33}`, `unknown checksum "crc33"`},
		{`{checksum_trailer: true}`, "checksum_trailer needs a checksum"},
		{`{checksum: md5/trailer}`, "md5 travels as Content-MD5"},
		{`{if_none_match: '"abc"'}`, `takes only "*"`},
		{`{sse: c}`, "SSE-C needs the key's file"},
		{`{sse: s3:key}`, "SSE-S3 takes no key"},
		{`{sse: rot13}`, "want s3, kms[:KEYID] or c:KEYFILE"},
		{`{batch_size: 5000}`, "batch_size 5000: want 1 to 1000"},
		{`{presign: true, conditional_get: true}`, "presign and conditional_get"},
		{`{colour: red}`, "colour"},
	} {
		doc := "stages:\n  - kind: main\n    duration: 1s\n    ops: {get: 100}\n    objects: {prefix: w/}\n    s3: " + c.s3 + "\n"
		sp, _, err := workload.Decode("p.yaml", []byte(doc))
		if err == nil {
			errs := sp.Validate()
			if len(errs) > 0 {
				err = errs[0]
			}
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "p.yaml:") {
			t.Errorf("s3 %s: got %v, want an error naming the line and %q", c.s3, err, c.want)
		}
	}
}

func TestS3OpsThatDoNotGoTogether(t *testing.T) {
	for _, c := range []struct{ stream, want string }{
		{"ops: {cas: 100}\n    verify: true", "cas writes fresh bytes"},
		{"ops: {get: 100}\n    range_size: 1KiB\n    s3: {verify_checksum: true}", "verify_checksum checks whole objects"},
	} {
		doc := "stages:\n  - kind: main\n    duration: 1s\n    objects: {prefix: w/}\n    " + c.stream + "\n"
		_, _, err := workload.Decode("p.yaml", []byte(doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.stream, err, c.want)
		}
	}
}
