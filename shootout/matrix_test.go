package shootout_test

import (
	"os"
	"strings"
	"testing"

	"github.com/objbench/objbench/shootout"
)

func TestParseFileSets(t *testing.T) {
	sets, err := shootout.ParseFileSets("32x128MiB, 1x4GiB,2X1KB")
	if err != nil {
		t.Fatal(err)
	}
	want := []shootout.FileSet{{32, 128 << 20, "32x128MiB"}, {1, 4 << 30, "1x4GiB"}, {2, 1000, "2X1KB"}}
	if len(sets) != len(want) {
		t.Fatalf("%+v", sets)
	}
	for i := range want {
		if sets[i] != want[i] {
			t.Errorf("set %d: %+v, want %+v", i, sets[i], want[i])
		}
	}
	for _, bad := range []string{"", "32", "0x1MiB", "x1MiB", "3x", "3xlots", "-1x1MiB", "1x1MiB,1x1MiB", "100001x1KiB"} {
		_, err := shootout.ParseFileSets(bad)
		if err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if _, err := shootout.ParseFileSets("1x1MiB,4xfoo"); err == nil || !strings.Contains(err.Error(), `"4xfoo"`) {
		t.Errorf("error %v does not name the bad element", err)
	}
}

func TestParseThreads(t *testing.T) {
	got, err := shootout.ParseThreads("1,2, 4,8")
	if err != nil || len(got) != 4 || got[3] != 8 {
		t.Fatalf("%v %v", got, err)
	}
	for _, bad := range []string{"", "0", "1,,2", "two", "2,2", "1025"} {
		if _, err := shootout.ParseThreads(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestParseTemplate(t *testing.T) {
	p, err := shootout.ParseTemplate("my-tool=mytool cp {src} {dst} -j {threads} --url={endpoint}")
	if err != nil {
		t.Fatal(err)
	}
	cmd, err := p.Command(shootout.Job{Src: "/data/3x1mib", Bucket: "b", Prefix: "objbench-tools/r/x/", Threads: 4,
		Target: shootout.Target{Endpoint: "http://127.0.0.1:9", AccessKey: "AKIDEXAMPLE", SecretKey: "s3cr3t"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "mytool cp /data/3x1mib s3://b/objbench-tools/r/x/ -j 4 --url=http://127.0.0.1:9"
	if got := strings.Join(cmd.Args, " "); got != want {
		t.Errorf("args %q, want %q", got, want)
	}
	env := strings.Join(cmd.Env, " ")
	for _, kv := range []string{"AWS_ACCESS_KEY_ID=AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY=s3cr3t", "AWS_ENDPOINT_URL=http://127.0.0.1:9"} {
		if !strings.Contains(env, kv) {
			t.Errorf("env lacks %s", kv)
		}
	}
	for _, bad := range []string{"noequals", "x=", "=cmd {src} {dst}", "Bad Name=cmd {src} {dst}", "x=cmd {src}", "x=cmd {src} {dst} {nope}"} {
		if _, err := shootout.ParseTemplate(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// Every tool with two knobs gets threads requests in flight in all.
func TestThreadsSplitBetweenFilesAndParts(t *testing.T) {
	for _, c := range []struct {
		name            string
		threads, files  int
		wantW, wantP    string
		workers, partsF string
	}{
		{"objbench", 4, 32, "4", "1", "--workers", "--part-concurrency"},
		{"objbench", 4, 1, "1", "4", "--workers", "--part-concurrency"},
		{"rclone", 8, 2, "2", "4", "--transfers", "--s3-upload-concurrency"},
		{"boto3", 2, 16, "2", "1", "--workers", "--max-concurrency"},
	} {
		cmd, err := shootout.Builtin(c.name).Command(shootout.Job{Src: "/d", Bucket: "b", Prefix: "p/", Threads: c.threads,
			Files: c.files, Dir: t.TempDir(), Target: shootout.Target{Endpoint: "http://127.0.0.1:9"}})
		if err != nil {
			t.Fatal(err)
		}
		args := " " + strings.Join(cmd.Args, " ") + " "
		if !strings.Contains(args, " "+c.workers+" "+c.wantW+" ") || !strings.Contains(args, " "+c.partsF+" "+c.wantP+" ") {
			t.Errorf("%s %d threads over %d files: %s", c.name, c.threads, c.files, args)
		}
	}
}

// aws has one knob, for all requests in flight: it goes in a temporary
// config file, with the credentials in the environment, not in argv.
func TestAWSProfileConfig(t *testing.T) {
	dir := t.TempDir()
	cmd, err := shootout.Builtin("aws").Command(shootout.Job{Src: "/d", Bucket: "b", Prefix: "p/", Threads: 8, Files: 32, Dir: dir,
		Target: shootout.Target{Endpoint: "http://127.0.0.1:9", AccessKey: "AKIDEXAMPLE", SecretKey: "s3cr3t"}})
	if err != nil {
		t.Fatal(err)
	}
	var cfg string
	for _, kv := range cmd.Env {
		if v, ok := strings.CutPrefix(kv, "AWS_CONFIG_FILE="); ok {
			cfg = v
		}
	}
	b, err := os.ReadFile(cfg)
	if err != nil || !strings.Contains(string(b), "max_concurrent_requests = 8") {
		t.Errorf("AWS_CONFIG_FILE %q: %q, %v", cfg, b, err)
	}
	if args := strings.Join(cmd.Args, " "); strings.Contains(args, "s3cr3t") || !strings.Contains(args, "--recursive") {
		t.Errorf("argv %q", args)
	}
}
