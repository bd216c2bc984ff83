// Package ssh_test runs the ssh launcher (run.sh) with a fake ssh and scp
// that run the "remote" command on this machine, as a login would: with a
// fresh environment, so that only what run.sh sends reaches objbench.
package ssh_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/s3server"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// fakes writes ssh and scp into bin: each records its argv in log/, then
// scp copies here and ssh runs the command with sh -c in an environment of
// HOME and PATH alone. objbench on the "remote" PATH is a wrapper that
// records its AWS_ environment, then runs the real one.
func fakes(t *testing.T, bin, remoteBin, home, log, objbench string) {
	t.Helper()
	scripts := map[string]string{
		filepath.Join(bin, "ssh"): `#!/bin/sh
echo "$*" >> ` + log + `/ssh-argv
shift
exec env -i HOME=` + home + ` PATH=` + remoteBin + `:/usr/bin:/bin sh -c "$*"
`,
		filepath.Join(bin, "scp"): `#!/bin/sh
echo "$*" >> ` + log + `/scp-argv
[ "$1" = -q ] && shift
exec cp "$1" "${2#*:}"
`,
		filepath.Join(remoteBin, "objbench"): `#!/bin/sh
env | grep '^AWS_' | sort > ` + log + `/remote-env-$$
exec ` + objbench + ` "$@"
`,
	}
	for p, s := range scripts {
		if err := os.WriteFile(p, []byte(s), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func readAll(t *testing.T, pattern string) []string {
	t.Helper()
	files, _ := filepath.Glob(pattern)
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

// run.sh starts a worker per host and merges their results; the
// credentials reach every worker's environment and never any process's
// command line, whether given as keys with a session token and a region,
// or as a profile alone (which each host reads from its own ~/.aws).
func TestSSHLauncherKeepsCredentialsOffArgv(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the argv watch reads /proc")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("run.sh needs bash")
	}
	script, err := filepath.Abs("run.sh")
	if err != nil {
		t.Fatal(err)
	}
	objbench := testenv.BuildObjbench(t, t.TempDir())
	const ak, sk, token = "ssh-test-access", "ssh-test-secret-9f3a", "ssh-test-token-77c1"
	ctx := context.Background()
	// The store's region is the one the keys' case names and the profile's
	// config gives: a request signed for another is refused, as S3 does.
	srv, err := s3server.Start(ctx, s3server.Config{AccessKey: ak, SecretKey: sk, Buckets: []string{"bench", "results"}, Region: "eu-west-3"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(context.Background()) })
	results, err := s3.New(ctx, s3.Config{Endpoint: srv.Endpoint(), Bucket: "results", PathStyle: true, AccessKey: ak, SecretKey: sk, Region: "eu-west-3"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { results.Close() })

	for _, c := range []struct {
		name      string
		env       []string
		wantEnv   []string // in every worker's environment
		wantNoEnv string
	}{
		{"keys+token+region", []string{"AWS_ACCESS_KEY_ID=" + ak, "AWS_SECRET_ACCESS_KEY=" + sk, "AWS_SESSION_TOKEN=" + token, "AWS_REGION=eu-west-3"},
			[]string{"AWS_ACCESS_KEY_ID=" + ak, "AWS_REGION=eu-west-3", "AWS_SECRET_ACCESS_KEY=" + sk, "AWS_SESSION_TOKEN=" + token}, ""},
		{"profile", []string{"AWS_PROFILE=bench"}, []string{"AWS_PROFILE=bench"}, "AWS_SECRET_ACCESS_KEY"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			bin, remoteBin, home, log := filepath.Join(dir, "bin"), filepath.Join(dir, "remote-bin"), filepath.Join(dir, "home"), filepath.Join(dir, "log")
			for _, d := range []string{bin, remoteBin, filepath.Join(home, ".aws"), log} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			fakes(t, bin, remoteBin, home, log, objbench)
			// The profile, as each host (and this machine, for the merge) has it.
			creds := "[bench]\naws_access_key_id = " + ak + "\naws_secret_access_key = " + sk + "\n"
			if err := os.WriteFile(filepath.Join(home, ".aws", "credentials"), []byte(creds), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(home, ".aws", "config"), []byte("[profile bench]\nregion = eu-west-3\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "hosts"), []byte("# two hosts\nhost-a\nhost-b\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			wl := "name: ssh-test\nstages:\n  - {kind: prepare, concurrency: 2, size: 4KiB, objects: {prefix: d/, count: 20}}\n" +
				"  - {kind: main, concurrency: 4, duration: 1s, size: 4KiB, objects: {prefix: d/, count: 20}, ops: {read: 100}}\n  - {kind: cleanup}\n"
			if err := os.WriteFile(filepath.Join(dir, "w.yaml"), []byte(wl), 0o644); err != nil {
				t.Fatal(err)
			}
			rctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(rctx, "bash", script, "hosts", "w.yaml", srv.Endpoint(), "bench", "s3://results/runs-"+c.name+"/")
			cmd.Dir = dir
			cmd.Env = append([]string{"PATH=" + bin + ":" + filepath.Dir(objbench) + ":" + os.Getenv("PATH"), "HOME=" + home}, c.env...)
			watch := testenv.WatchArgv(objbench+" run", sk, token)
			out, err := cmd.CombinedOutput()
			hits, seen := watch.Stop()
			if err != nil {
				t.Fatalf("run.sh: %v\n%s", err, out)
			}
			for _, h := range hits {
				t.Errorf("a command line held a credential: %s", h)
			}
			if seen == 0 {
				t.Errorf("the argv watch never saw a worker running: it watched nothing")
			}
			for _, a := range append(readAll(t, filepath.Join(log, "*-argv")), string(out)) {
				if strings.Contains(a, sk) || strings.Contains(a, token) {
					t.Errorf("ssh, scp or the output held a credential:\n%s", a)
				}
			}
			envs := readAll(t, filepath.Join(log, "remote-env-*"))
			if len(envs) != 2 { // the merge here runs the real objbench, not the wrapper
				t.Fatalf("%d workers recorded their environment, want 2", len(envs))
			}
			for _, e := range envs {
				for _, want := range c.wantEnv {
					if !strings.Contains(e, want+"\n") {
						t.Errorf("a worker's environment lacks %s", strings.SplitN(want, "=", 2)[0])
					}
				}
				if c.wantNoEnv != "" && strings.Contains(e, c.wantNoEnv) {
					t.Errorf("a worker's environment has %s, which was not set", c.wantNoEnv)
				}
			}
			if !strings.Contains(string(out), "2 of 2 merged") {
				t.Errorf("run.sh's merge did not merge both workers:\n%s", out)
			}
			merged, _ := filepath.Glob(filepath.Join(dir, "merged-ssh-*.json"))
			if len(merged) != 1 {
				t.Errorf("merged results: %v, want one", merged)
			}
			var keys []string
			_ = results.List(ctx, "runs-"+c.name+"/", func(o storage.ObjectInfo) error { keys = append(keys, o.Key); return nil })
			if len(keys) != 2 {
				t.Errorf("the results bucket holds %v, want two workers' results", keys)
			}
			m := regexp.MustCompile(`run (ssh-[0-9a-f-]+) on 2 hosts`).FindStringSubmatch(string(out))
			if m == nil {
				t.Fatalf("run.sh does not say its run id:\n%s", out)
			}
			if _, err := os.Stat("/tmp/objbench-" + m[1] + ".yaml"); err == nil {
				t.Errorf("the workload's copy stayed on the hosts")
			}
		})
	}
}
