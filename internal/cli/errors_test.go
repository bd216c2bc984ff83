package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/objbench/objbench/faultserver"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

const helpHint = "for usage."

// A command given too few (or too many) arguments says what to give and
// how, and points at its own --help.
func TestMissingArgumentsAreNamed(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report"}, "report needs a result file: objbench report RESULT.json"},
		{[]string{"report", "a.json", "b.json"}, `report takes a result file, got 2 arguments ("a.json" "b.json")`},
		{[]string{"compare", "a.json"}, "compare needs two or more sides (result files, comma lists or directories), the base first: objbench compare BASE OTHER"},
		{[]string{"merge"}, "merge needs the workers' results: a directory, s3://BUCKET/PREFIX/ or result files: objbench merge DIR"},
		{[]string{"saturate"}, "saturate needs the operation to saturate (get, put or stat): objbench saturate get|put|stat"},
		{[]string{"transfer"}, "transfer needs a source and a destination"},
		{[]string{"transfer", "a", "b", "c"}, "transfer takes a source and a destination"},
		{[]string{"gen", "files", "--count", "2", "--size", "1KiB"}, "gen files needs the directory to write the files into: objbench gen files"},
		{[]string{"gen", "file", "--size", "1KiB"}, "gen file needs the path of the file to write: objbench gen file"},
		{[]string{"run", "a.yaml", "b.yaml"}, "run takes one workload file at most, got 2 arguments"},
		{[]string{"server", "now"}, `server takes no arguments, got "now" (flags start with --)`},
		{[]string{"get", "bucket"}, `get takes no arguments, got "bucket"`},
		{[]string{"tools", "aws"}, `tools takes no arguments, got "aws"`},
	} {
		code, _, errs := execute(t, nil, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) || !strings.Contains(errs, helpHint) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2, %q and the --help hint", c.args, code, errs, c.want)
		}
		if strings.Contains(errs, "arg(s)") {
			t.Errorf("%v: cobra's own message: %q", c.args, errs)
		}
	}
	if _, _, errs := execute(t, nil, "report"); !strings.Contains(errs, "Run 'objbench report --help' for usage.") {
		t.Errorf("the hint names the command whose help explains it: %q", errs)
	}
}

// Bad input files are exit 2 but their fix is not in --help: no pointer
// to it.
func TestInputErrorsGiveNoUsageHint(t *testing.T) {
	dir := t.TempDir()
	corrupt := filepath.Join(dir, "corrupt.json")
	badWorkload := filepath.Join(dir, "bad.yaml")
	for p, body := range map[string]string{corrupt: `{"version": 1, "steps": [`, badWorkload: "stages: [{name: main, streams: [{ops: {get: -1}}]}]\n"} {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"report", corrupt},
		{"report", filepath.Join(dir, "missing.json")},
		{"compare", corrupt, corrupt},
		{"merge", corrupt},
		{"merge", dir + "/nothing-here"},
		{"run", "--dry-run", badWorkload},
	} {
		code, _, errs := execute(t, nil, args...)
		if code != 2 || strings.Contains(errs, helpHint) || !strings.HasPrefix(errs, "objbench: ") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and no --help hint", args, code, errs)
		}
	}
}

// A listing the store got wrong is the store's fault: exit 1, the fault
// named, no --help hint.
func TestRefusedListingGivesNoUsageHint(t *testing.T) {
	ctx := context.Background()
	srv, err := faultserver.Start(ctx, faultserver.Config{IgnoreListPrefix: true, AccessKey: "ak", SecretKey: "errors-test-secret"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(context.Background()) })
	st, err := s3.New(ctx, s3.Config{Endpoint: srv.Endpoint(), Bucket: srv.Bucket(), PathStyle: true, Region: "us-east-1",
		AccessKey: "ak", SecretKey: "errors-test-secret"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for _, k := range []string{"results/w0.json", "other/x"} {
		if _, err := st.Put(ctx, k, strings.NewReader("{}"), 2, storage.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "ak") // the SDK's credential chain reads the process environment
	t.Setenv("AWS_SECRET_ACCESS_KEY", "errors-test-secret")
	t.Setenv("AWS_REGION", "us-east-1")
	code, _, errs := execute(t, map[string]string{"AWS_REGION": "us-east-1"}, "merge", "--endpoint-url", srv.Endpoint(), "-o", filepath.Join(t.TempDir(), "m.json"),
		"s3://"+srv.Bucket()+"/results/")
	if code != 1 || strings.Contains(errs, helpHint) || !strings.Contains(errs, "other/x") && !strings.Contains(errs, "outside") {
		t.Errorf("exit %d, stderr %q; want exit 1 naming the listing fault, no --help hint", code, errs)
	}
}
