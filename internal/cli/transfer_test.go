package cli_test

import (
	"strings"
	"testing"
)

func TestTransferOutOfTheBox(t *testing.T) {
	code, out, errs := execute(t, nil, "transfer", "gen:3x6MiB", "s3://mybucket/p/", "--part-size", "5MiB", "-q")
	if code != 0 || !strings.Contains(out, "verified: 3 objects, 18874368 bytes") || !strings.Contains(out, "RETRIES") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
}

func TestTransferUsage(t *testing.T) {
	for _, args := range [][]string{
		{"transfer", "gen:1KiB", "./here"},
		{"transfer", "s3://a/b", "s3://c/d"},
		{"transfer", "gen:1KiB", "s3://b/p", "--part-size", "1MiB"},
		{"transfer", "gen:1KiB", "s3://b/p", "--workers", "-1"},
		{"transfer", "gen:0x1KiB", "s3://bkt/p"},
		{"transfer", "gen:1KiB", "s3://bkt/p", "--target", "s3://bkt"},
		{"transfer", "gen:1KiB", "s3://bkt/p", "--bucket", "other", "--endpoint-url", "http://127.0.0.1:1"},
	} {
		if code, _, errs := execute(t, nil, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errs)
		}
	}
}
