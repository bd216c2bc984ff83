package e2e_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/testenv"
)

// hosts are network namespaces joined by veth pairs to a bridge in a
// namespace of their own: separate hosts on one machine. Nothing of it
// touches the machine's own network namespace.
type hosts struct {
	t      *testing.T
	prefix string
	names  []string
}

func (h *hosts) ip(args ...string) {
	h.t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		h.t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// newHosts makes a LAN namespace with a bridge and one namespace per host
// at 10.77.0.1, .2, ...; everything goes at the end of the test.
func newHosts(t *testing.T, n int) *hosts {
	t.Helper()
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		if os.Getenv("OBJBENCH_REQUIRE_NETNS") != "" {
			t.Fatal("the separate-hosts test needs Linux and root (network namespaces)")
		}
		t.Skip("separate hosts need Linux and root (ip netns): skipping")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("no ip command (iproute2): skipping the separate-hosts test")
	}
	h := &hosts{t: t, prefix: fmt.Sprintf("ob%d", os.Getpid()%100000)}
	lan := h.prefix + "-lan"
	t.Cleanup(func() {
		for _, ns := range append(h.names, lan) {
			_ = exec.Command("ip", "netns", "del", ns).Run()
		}
	})
	h.ip("netns", "add", lan)
	h.ip("-n", lan, "link", "add", "br0", "type", "bridge")
	h.ip("-n", lan, "link", "set", "br0", "up")
	for i := range n {
		ns := fmt.Sprintf("%s-h%d", h.prefix, i)
		h.ip("netns", "add", ns)
		h.names = append(h.names, ns)
		in, out := fmt.Sprintf("eth%d", i), fmt.Sprintf("p%d", i)
		h.ip("link", "add", in, "netns", ns, "type", "veth", "peer", "name", out, "netns", lan)
		h.ip("-n", ns, "addr", "add", fmt.Sprintf("10.77.0.%d/24", i+1), "dev", in)
		h.ip("-n", ns, "link", "set", in, "up")
		h.ip("-n", ns, "link", "set", "lo", "up")
		h.ip("-n", lan, "link", "set", out, "master", "br0")
		h.ip("-n", lan, "link", "set", out, "up")
	}
	return h
}

// start runs a command on host i; it is killed at the end of the test.
func (h *hosts) start(i int, env []string, name string, args ...string) (*exec.Cmd, *bufio.Scanner) {
	h.t.Helper()
	cmd := exec.Command("ip", append([]string{"netns", "exec", h.names[i], name}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout = nil
	stderr, err := cmd.StderrPipe()
	if err != nil {
		h.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd, bufio.NewScanner(stderr)
}

// run runs a command on host i to its end.
func (h *hosts) run(i int, env []string, dir string, name string, args ...string) run {
	h.t.Helper()
	return objbenchCmd(h.t, dir, env, 2*time.Minute, "ip", append([]string{"netns", "exec", h.names[i], name}, args...)...)
}

// MinIO on one host, three workers on three others; one worker is killed
// (SIGKILL) in the middle of the main step. The other two finish it, find
// at the cleanup meeting within seconds that it gave no sign of life (not
// after their 90 s rendezvous timeout), clean up what they and it wrote
// (nothing of the run is left in the bucket) and end well. The merge of
// what was written says PARTIAL 2/3 in its first line, adds up the two,
// and exits 1 unless --allow-partial.
func TestWorkersOnSeparateHosts(t *testing.T) {
	h := newHosts(t, 4)
	bin, err := testenv.MinIOBinary()
	if err != nil {
		t.Skipf("MinIO not installed: %v", err)
	}
	data := t.TempDir()
	creds := []string{"MINIO_ROOT_USER=nsadmin", "MINIO_ROOT_PASSWORD=nsadmin-secret", "AWS_ACCESS_KEY_ID=nsadmin",
		"AWS_SECRET_ACCESS_KEY=nsadmin-secret", "AWS_REGION=us-east-1"}
	h.start(0, creds, bin, "server", "--quiet", "--address", "10.77.0.1:9000", "--console-address", "10.77.0.1:9001", data)
	ep := "http://10.77.0.1:9000"
	dir := t.TempDir()
	deadline := time.Now().Add(60 * time.Second)
	for { // MinIO is up when a worker host can create the bucket through it
		r := h.run(1, creds, dir, binary, "put", "--endpoint-url", ep, "--bucket", "bench", "--create-bucket", "--ops", "1", "-q", "-o", "probe.json")
		if r.code == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("MinIO on host 0 is not reachable from host 1: %s", r.stderr)
		}
		time.Sleep(200 * time.Millisecond) // polling a server coming up, bounded by the deadline
	}
	args := func(rank int) []string {
		return []string{"get", "--endpoint-url", ep, "--bucket", "bench", "--worker", fmt.Sprintf("%d/3", rank), "--run-id", "ns-run",
			"--duration", "4s", "-c", "6", "--objects", "60", "--size", "4KiB", "--out", dir + "/", "--rendezvous-timeout", "90s"}
	}
	var workers []*exec.Cmd
	var logs []*bufio.Scanner
	for rank := range 3 {
		cmd, log := h.start(rank+1, creds, binary, args(rank)...)
		workers, logs = append(workers, cmd), append(logs, log)
	}
	for logs[2].Scan() { // kill worker 2 as its main step starts
		if strings.Contains(logs[2].Text(), "main: step 1/1") {
			break
		}
	}
	_ = workers[2].Process.Signal(syscall.SIGKILL)
	said := make([]chan string, 2)
	for rank := range 2 {
		said[rank] = make(chan string, 1)
		go func() {
			var out strings.Builder
			for logs[rank].Scan() {
				out.WriteString(logs[rank].Text() + "\n")
			}
			said[rank] <- out.String()
		}()
		if err := workers[rank].Wait(); err != nil {
			t.Fatalf("worker %d: %v\n%s", rank, err, <-said[rank])
		}
		if log := <-said[rank]; !strings.Contains(log, "worker 2 is gone (it gave no sign of life for") {
			t.Errorf("worker %d does not say worker 2 died:\n%s", rank, log)
		}
	}
	if left := h.listBucket(t, creds, ep); len(left) != 0 {
		t.Errorf("objects of the run left in the bucket after the survivors' cleanup: %v", left)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "ns-run", "worker-*.json"))
	if len(files) != 2 {
		t.Fatalf("want the results of workers 0 and 1, got %v", files)
	}
	m := objbench(t, dir, nil, "merge", filepath.Join(dir, "ns-run"), "-o", "merged.json", "--allow-partial").mustSucceed(t)
	if first, _, _ := strings.Cut(m.stdout, "\n"); !strings.Contains(first, "PARTIAL RESULT 2/3") || !strings.Contains(first, "no result from worker(s) 2") {
		t.Errorf("merge does not say first that it is partial:\n%s", m.stdout)
	}
	for _, f := range files {
		if w := readResult(t, f); !w.CleanedUp || w.Worker == nil || len(w.Worker.Gone) != 1 || w.Worker.Gone[0] != 2 {
			t.Errorf("%s: cleaned up %v, worker %+v; want cleaned up, worker 2 gone", f, w.CleanedUp, w.Worker)
		}
	}
	merged := readResult(t, filepath.Join(dir, "merged.json"))
	var ops int64
	for _, f := range files {
		o, _, _, _ := mainGET(readResult(t, f))
		ops += o
	}
	if mo, mk, _, conc := mainGET(merged); mo != ops || mk != mo || conc != 4 || merged.Partial() != "2/3" {
		t.Errorf("merged %d GETs (%d ok) at conc %d, partial %q; workers 0 and 1 did %d at 4", mo, mk, conc, merged.Partial(), ops)
	}
	if put := merged.Steps[0].Streams[0].Totals[0]; put.OK != 40 {
		t.Errorf("prepare by workers 0 and 1: %d objects, want their 40 of the 60", put.OK)
	}
	if r := objbench(t, dir, nil, "merge", filepath.Join(dir, "ns-run"), "-o", "m2.json"); r.code != 1 || !strings.Contains(r.stderr, "--allow-partial") {
		t.Errorf("a partial merge: exit %d, want 1 naming --allow-partial\n%s", r.code, r.stderr)
	}
}

// listBucket is what MinIO at ep lists under the run's namespace, asked
// from host 1 (a GET run that reads what is there: it refuses to start,
// naming the prefix, when nothing is).
func (h *hosts) listBucket(t *testing.T, creds []string, ep string) []string {
	t.Helper()
	r := h.run(1, creds, t.TempDir(), binary, "get", "--endpoint-url", ep, "--bucket", "bench", "--no-prepare", "--prefix", "objbench/ns-run/",
		"--ops", "1", "-q", "-o", "list.json")
	if r.code != 0 && strings.Contains(r.stderr, `no objects under "objbench/ns-run/"`) {
		return nil
	}
	return []string{fmt.Sprintf("exit %d: %s%s", r.code, r.stdout, r.stderr)}
}
