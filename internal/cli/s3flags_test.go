package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Bad S3 option flags stop before any work with exit 2, naming the value;
// an SSE-C key file is named, never its content.
func TestS3FlagsAreChecked(t *testing.T) {
	dir := t.TempDir()
	short := filepath.Join(dir, "short.key")
	if err := os.WriteFile(short, []byte("not-a-256-bit-key-SECRETVALUE"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"put", "--checksum", "crc33"}, `unknown checksum "crc33"`},
		{[]string{"put", "--checksum", "crc32c/header"}, "--checksum crc32c/header: want ALG or ALG/trailer"},
		{[]string{"put", "--checksum-trailer"}, "checksum_trailer needs a checksum"},
		{[]string{"put", "--tag", "team"}, `--tag "team": want KEY=VALUE`},
		{[]string{"put", "--meta", "=x"}, `--meta "=x": want KEY=VALUE`},
		{[]string{"put", "--if-none-match", "abc"}, `if_none_match "abc"`},
		{[]string{"put", "--sse", "rot13"}, `sse "rot13"`},
		{[]string{"put", "--sse", "c:" + short}, "want a 256-bit key"},
		{[]string{"put", "--sse", "c:" + filepath.Join(dir, "none.key")}, "none.key"},
		{[]string{"put", "--max-conns-per-host", "-1"}, "--max-conns-per-host -1"},
		{[]string{"put", "--addressing", "sideways"}, `bad --addressing "sideways"`},
	} {
		code, out, errs := execute(t, nil, append(c.args, "--ops", "1", "--out", filepath.Join(dir, "r.json"))...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, errs, c.want)
		}
		if strings.Contains(out+errs, "SECRETVALUE") {
			t.Errorf("%v: the key file's content was printed", c.args)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "r.json")); err == nil {
		t.Error("a result was written for bad flags")
	}
}

// A workload file says its S3 options in its s3: block: the flags are
// refused with it, and --dry-run prints the file's options.
func TestS3FlagsWithAWorkloadFile(t *testing.T) {
	dir := t.TempDir()
	wl := filepath.Join(dir, "w.yaml")
	if err := os.WriteFile(wl, []byte("stages:\n  - kind: main\n    duration: 1s\n    ops: {put: 100}\n    objects: {prefix: w/}\n    s3: {checksum: sha256, sse: s3}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := execute(t, nil, "run", wl, "--checksum", "crc32"); code != 2 || !strings.Contains(errs, "--checksum cannot be combined with a workload file") {
		t.Errorf("--checksum with a file: exit %d, %q", code, errs)
	}
	code, out, errs := execute(t, nil, "run", wl, "--dry-run", "--keepalive=false", "--max-conns-per-host", "4")
	if code != 0 || !strings.Contains(out, "s3 options: checksum sha256, sse s3") ||
		!strings.Contains(out, "connections: a new connection per request (keepalive off), at most 4 connections to the host") {
		t.Errorf("dry run: exit %d, stdout:\n%s\nstderr: %s", code, out, errs)
	}
}
