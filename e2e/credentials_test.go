package e2e_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Distinctive credentials: nothing else in objbench's output looks like
// them, so any appearance (whole, or a piece of 12 characters at either
// end, as a cut tail would show) is a leak.
const (
	canaryAccess  = "AKIACANARYLEAK0001"
	canarySecret  = "CanarySecretQ7v2Nx9pLw4Rt8Zk3Hm6Jd1"
	canaryToken   = "CanaryTokenB5s8Wf2Yc7Ug4Ee9Aa3Xq6Po"
	canaryWrong   = "CanaryWrongSecretM3n8Bv5Cx2Zl7Kj4"
	canaryCOSWork = "CanaryCOSBenchSecretT6y1Ui9Op3As8D"
)

var canaries = []string{canarySecret, canaryToken, canaryWrong, canaryCOSWork}

// leaks says which canary (or a 12-character end of one) text holds.
func leaks(text string) []string {
	var found []string
	for _, c := range canaries {
		if strings.Contains(text, c) || strings.Contains(text, c[:12]) || strings.Contains(text, c[len(c)-12:]) {
			found = append(found, c)
		}
	}
	return found
}

// Every command that takes credentials, given known secrets from every
// source (the environment, a profile file, a COSBench workload's config,
// objbench server --secret-key), writes them nowhere: not on stdout or
// stderr, not in any file it writes (result, CSV, HTML, JSON, hdr logs),
// in success and in failure.
func TestCredentialsNeverInOutput(t *testing.T) {
	work := t.TempDir()
	srv := startLeakServer(t, work)
	endpoint := srv.endpoint
	envKeys := []string{"AWS_ACCESS_KEY_ID=" + canaryAccess, "AWS_SECRET_ACCESS_KEY=" + canarySecret, "AWS_REGION=us-east-1"}
	// A profile file instead of the environment (and nothing in the environment).
	creds := filepath.Join(work, "aws-credentials")
	config := filepath.Join(work, "aws-config")
	writeFile(t, creds, "[leaky]\naws_access_key_id = "+canaryAccess+"\naws_secret_access_key = "+canarySecret+"\n"+
		"[wrong]\naws_access_key_id = "+canaryAccess+"\naws_secret_access_key = "+canaryWrong+"\n")
	writeFile(t, config, "[profile leaky]\nregion = us-east-1\n[profile wrong]\nregion = us-east-1\n")
	profileEnv := []string{"AWS_SHARED_CREDENTIALS_FILE=" + creds, "AWS_CONFIG_FILE=" + config,
		"AWS_ACCESS_KEY_ID=", "AWS_SECRET_ACCESS_KEY=", "AWS_SESSION_TOKEN="}
	// A COSBench workload with its own keys in the storage config (the
	// server accepts them: they are its keys, with the COSBench secret).
	cos := filepath.Join(work, "leak.xml")
	writeFile(t, cos, `<?xml version="1.0" encoding="UTF-8" ?>
<workload name="leak" description="credentials from the workload file">
  <storage type="s3" config="accesskey=`+canaryAccess+`;secretkey=`+canarySecret+`;endpoint=`+endpoint+`;path_style_access=true" />
  <workflow>
    <workstage name="init"><work type="init" workers="1" config="cprefix=leak;containers=r(1,1)" /></workstage>
    <workstage name="prepare"><work type="prepare" workers="2" config="cprefix=leak;containers=r(1,1);objects=r(1,10);sizes=c(4)KB" /></workstage>
    <workstage name="main"><work name="rw" workers="2" totalOps="40">
      <operation type="read" ratio="80" config="cprefix=leak;containers=c(1);objects=u(1,10)" />
      <operation type="write" ratio="20" config="cprefix=leak;containers=c(1);objects=u(11,20);sizes=c(4)KB" />
    </work></workstage>
    <workstage name="cleanup"><work type="cleanup" workers="1" config="cprefix=leak;containers=r(1,1);objects=r(1,20)" /></workstage>
    <workstage name="dispose"><work type="dispose" workers="1" config="cprefix=leak;containers=r(1,1)" /></workstage>
  </workflow>
</workload>
`)
	// The same workload with a wrong secret: the run fails with a 403.
	cosWrong := filepath.Join(work, "leak-wrong.xml")
	b, err := os.ReadFile(cos)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, cosWrong, strings.ReplaceAll(string(b), canarySecret, canaryCOSWork))

	leakyTool := filepath.Join(work, "leaky-tool.sh")
	writeFile(t, leakyTool, "#!/bin/sh\nenv >&2\necho \"secret: $AWS_SECRET_ACCESS_KEY\" >&2\necho \"$AWS_SECRET_ACCESS_KEY\"\nexit 1\n")
	if err := os.Chmod(leakyTool, 0o700); err != nil {
		t.Fatal(err)
	}
	s3flags := []string{"--endpoint-url", endpoint, "--bucket", "objbench"}
	in := func(dir string) string { return filepath.Join(work, dir) }
	for _, c := range []struct {
		name     string
		env      []string
		args     []string
		wantCode int
	}{
		{"put/env", append(envKeys, "AWS_SESSION_TOKEN="+canaryToken), append([]string{"put", "--size", "4KiB", "--ops", "30", "--concurrency", "2",
			"--out", in("put.json"), "--csv", in("put.csv"), "--html", in("put.html")}, s3flags...), 0},
		{"get/profile", profileEnv, append([]string{"get", "--profile", "leaky", "--size", "4KiB", "--objects", "8", "--ops", "30",
			"--out", in("get.json"), "--csv", in("get.csv"), "--html", in("get.html"), "--op-log", in("get.jsonl")}, s3flags...), 0},
		{"replay", envKeys, append([]string{"replay", in("get.jsonl"), "--speed", "max", "--out", in("replay.json"), "--op-log", in("replay.jsonl")},
			s3flags...), 0},
		{"replay/synthesize", nil, []string{"replay", "--synthesize", in("get.jsonl"), "-o", in("synth.yaml")}, 0},
		{"report/op-log", nil, []string{"report", "--op-log", in("get.jsonl"), "--html", in("oplog.html")}, 0},
		{"mixed/AWS_PROFILE", append(profileEnv, "AWS_PROFILE=leaky"), append([]string{"mixed", "--size", "4KiB", "--objects", "8", "--ops", "30",
			"--out", in("mixed.json")}, s3flags...), 0},
		{"run/cosbench", []string{"AWS_ACCESS_KEY_ID=", "AWS_SECRET_ACCESS_KEY="}, []string{"run", "--out", in("cos.json"), "--csv", in("cos.csv"),
			"--html", in("cos.html"), cos}, 0},
		{"run/cosbench-dry", nil, []string{"run", "--dry-run", cos}, 0},
		{"transfer/up", envKeys, []string{"transfer", "gen:3x1MiB", "s3://objbench/leak-t/", "--endpoint-url", endpoint,
			"--out", in("transfer.json"), "--timeline"}, 0},
		{"transfer/down", envKeys, []string{"transfer", "s3://objbench/leak-t/", "null:", "--endpoint-url", endpoint}, 0},
		{"get/worker", envKeys, append([]string{"get", "--worker", "0/1", "--run-id", "leak-dist", "--size", "4KiB", "--objects", "4", "--ops", "20",
			"--out", "s3://objbench/leak-dist/"}, s3flags...), 0},
		{"merge/worker", envKeys, []string{"merge", "s3://objbench/leak-dist/", "--endpoint-url", endpoint, "-o", in("merged-dist.json")}, 0},
		{"transfer/result-up", envKeys, []string{"transfer", in("put.json"), "s3://objbench/leak-results/w0.json", "--endpoint-url", endpoint}, 0},
		{"merge/s3", envKeys, []string{"merge", "s3://objbench/leak-results/", "--endpoint-url", endpoint,
			"-o", in("merged.json"), "--csv", in("merged.csv"), "--html", in("merged.html")}, 0},
		{"saturate", envKeys, append([]string{"saturate", "get", "--start-rate", "50/s", "--max-rate", "100/s", "--step", "500ms",
			"--max-time", "2s", "--objects", "8", "--out", in("saturate.json")}, s3flags...), 0},
		{"tools", envKeys, append([]string{"tools", "--tools", "aws,boto3,objbench", "--files", "2x1MiB", "--threads", "1",
			"--csv", in("tools.csv"), "--json", in("tools.json")}, s3flags...), 0},
		{"report", nil, []string{"report", in("put.json"), "--html", in("report.html"), "--csv", in("report.csv"), "--hdr-log", in("hdr")}, 0},
		{"report/json", nil, []string{"report", "--json", in("cos.json")}, 0},
		{"compare", nil, []string{"compare", in("put.json"), in("get.json"), "--html", in("compare.html")}, 0},
		// Failures print their cause: none may carry the secret.
		{"put/wrong-secret", []string{"AWS_ACCESS_KEY_ID=" + canaryAccess, "AWS_SECRET_ACCESS_KEY=" + canaryWrong},
			append([]string{"put", "--ops", "5", "--out", in("wrong.json")}, s3flags...), 1},
		{"get/wrong-profile", profileEnv, append([]string{"get", "--profile", "wrong", "--ops", "5"}, s3flags...), 1},
		{"run/cosbench-wrong", nil, []string{"run", "--out", in("cos-wrong.json"), cosWrong}, 1},
		{"transfer/wrong", []string{"AWS_ACCESS_KEY_ID=" + canaryAccess, "AWS_SECRET_ACCESS_KEY=" + canaryWrong},
			[]string{"transfer", "gen:1MiB", "s3://objbench/leak-w", "--endpoint-url", endpoint}, 1},
		{"tools/wrong", []string{"AWS_ACCESS_KEY_ID=" + canaryAccess, "AWS_SECRET_ACCESS_KEY=" + canaryWrong},
			append([]string{"tools", "--tools", "aws,boto3,objbench", "--files", "1x1MiB", "--threads", "1"}, s3flags...), 1},
		// A tool that prints its environment and fails: the shoot-out shows
		// its stderr's tail, scrubbed.
		{"tools/leaky-tool", envKeys, append([]string{"tools", "--tools", "objbench", "--tool", "leaky=" + leakyTool + " {src} {dst} {threads}",
			"--files", "1x1MiB", "--threads", "1", "--json", in("tools-leaky.json")}, s3flags...), 1},
		{"put/unreachable", envKeys, []string{"put", "--endpoint-url", "http://127.0.0.1:1", "--bucket", "objbench", "--ops", "5"}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := objbench(t, work, c.env, c.args...)
			if r.code == 1 && !strings.Contains(c.name, "unreachable") && !strings.Contains(c.name, "leaky") &&
				!strings.Contains(r.stdout+r.stderr, "403") && !strings.Contains(r.stdout+r.stderr, "access denied") {
				t.Errorf("a failure with the wrong secret does not say the server refused the signature:\n%s%s", r.stdout, r.stderr)
			}
			if r.code != c.wantCode {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, c.wantCode, r.stdout, r.stderr)
			}
			if l := leaks(r.stdout); l != nil {
				t.Errorf("stdout shows %q:\n%s", l, r.stdout)
			}
			if l := leaks(r.stderr); l != nil {
				t.Errorf("stderr shows %q:\n%s", l, r.stderr)
			}
		})
	}
	t.Run("live-view", func(t *testing.T) { checkLiveView(t, work, envKeys, s3flags) })
	srv.stop(t)
	if l := leaks(srv.output()); l != nil {
		t.Errorf("objbench server --secret-key printed %q:\n%s", l, srv.output())
	}
	if !strings.Contains(srv.output(), canaryAccess) {
		t.Errorf("objbench server does not say which access key to use:\n%s", srv.output())
	}
	// Every file any command wrote.
	var files int
	_ = filepath.WalkDir(work, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || p == creds || p == cos || p == cosWrong || p == leakyTool || strings.HasPrefix(p, srv.data) {
			return nil
		}
		files++
		b, err := os.ReadFile(p)
		if err != nil {
			t.Error(err)
			return nil
		}
		if l := leaks(string(b)); l != nil {
			t.Errorf("%s holds %q", p, l)
		}
		return nil
	})
	for _, f := range []string{"put.json", "put.csv", "put.html", "get.json", "cos.json", "cos.html", "transfer.json",
		"merged.json", "merged.html", "merged-dist.json", "saturate.json", "tools.json", "tools.csv", "tools-leaky.json", "report.html", "compare.html"} {
		if _, err := os.Stat(in(f)); err != nil {
			t.Errorf("%s was not written, so it was not checked: %v", f, err)
		}
	}
	if hdr, _ := filepath.Glob(in("hdr") + "*"); len(hdr) == 0 {
		t.Errorf("no hdr logs written under %s", in("hdr"))
	}
	if b, err := os.ReadFile(in("tools-leaky.json")); err != nil || !strings.Contains(string(b), "secret: ***") {
		t.Errorf("the leaky tool's stderr tail is not in tools-leaky.json, scrubbed (%v)", err)
	}
	t.Logf("%d files checked", files)
}

// leakServer is `objbench server --secret-key` run as its own process.
type leakServer struct {
	cmd      *exec.Cmd
	endpoint string
	data     string
	stdout   strings.Builder
	stderr   strings.Builder
	done     chan struct{}
}

func startLeakServer(t *testing.T, work string) *leakServer {
	t.Helper()
	s := &leakServer{data: filepath.Join(work, "server-data"), done: make(chan struct{})}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	s.cmd = exec.CommandContext(ctx, binary, "server", "--listen", "127.0.0.1:0", "--bucket", "objbench",
		"--access-key", canaryAccess, "--secret-key", canarySecret, "--data", s.data)
	s.cmd.Stderr = &s.stderr
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.cmd.Process.Kill(); <-s.done })
	lines := make(chan string, 1)
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			s.stdout.WriteString(sc.Text() + "\n")
			if v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "endpoint:"); ok {
				select {
				case lines <- strings.TrimSpace(v):
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, out)
		close(lines)
	}()
	select {
	case s.endpoint = <-lines:
	case <-time.After(time.Minute):
		t.Fatal("objbench server printed no endpoint within a minute")
	}
	if !strings.HasPrefix(s.endpoint, "http://127.0.0.1:") {
		t.Fatalf("objbench server printed endpoint %q", s.endpoint)
	}
	return s
}

// stop interrupts the server as Ctrl-C does and waits for it.
func (s *leakServer) stop(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	<-s.done
	if err := s.cmd.Wait(); err != nil {
		t.Errorf("objbench server after Ctrl-C: %v\n%s", err, s.stderr.String())
	}
}

func (s *leakServer) output() string { return s.stdout.String() + s.stderr.String() }

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// checkLiveView reads everything the --listen view serves (page, metrics,
// event stream) while a run with the canary keys goes.
func checkLiveView(t *testing.T, work string, env, s3flags []string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, append([]string{"get", "--listen", "127.0.0.1:0", "--duration", "3s", "--objects", "8",
		"--size", "4KiB", "--concurrency", "2", "--out", filepath.Join(work, "live.json")}, s3flags...)...)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout strings.Builder
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var errText strings.Builder
	addr := make(chan string, 1)
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			errText.WriteString(sc.Text() + "\n")
			if _, u, ok := strings.Cut(sc.Text(), "live view: "); ok {
				select {
				case addr <- strings.TrimSpace(u):
				default:
				}
			}
		}
	}()
	var base string
	select {
	case base = <-addr:
	case <-scanned:
		t.Fatal("no live view address")
	}
	var served strings.Builder
	for _, path := range []string{"", "metrics", "events"} {
		rctx, rcancel := context.WithTimeout(ctx, 1500*time.Millisecond) // the event stream runs until the run ends
		req, _ := http.NewRequestWithContext(rctx, http.MethodGet, base+path, nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
			resp.Body.Close()
			served.Write(b)
		} else {
			t.Logf("GET %s: %v", base+path, err)
		}
		rcancel()
	}
	<-scanned
	if err := cmd.Wait(); err != nil {
		t.Errorf("objbench get --listen: %v\n%s", err, errText.String())
	}
	if served.Len() == 0 {
		t.Fatal("the live view served nothing")
	}
	for what, text := range map[string]string{"the live view": served.String(), "stdout": stdout.String(), "stderr": errText.String()} {
		if l := leaks(text); l != nil {
			t.Errorf("%s shows %q", what, l)
		}
	}
}
