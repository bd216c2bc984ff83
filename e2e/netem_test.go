package e2e_test

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/report"
	"github.com/objbench/objbench/result"
)

// TestNetemThroughANamespace follows `objbench netem --netns`'s recipe as
// a user would (its printed commands, run as printed): a store in one
// namespace, objbench in another, the link between them impaired. A PUT
// step first without, then with the impairment, must show it in its
// latency and in the wait phase (to the first response byte): 30 ms of
// delay where the kernel has netem, else (sch_netem missing, as on some
// minimal kernels) a 2 Mbit/s cap, which 64 KiB bodies feel as ~260 ms.
func TestNetemThroughANamespace(t *testing.T) {
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		if os.Getenv("OBJBENCH_REQUIRE_NETNS") != "" {
			t.Fatal("the netem test needs Linux and root (network namespaces, tc)")
		}
		t.Skip("netem through a namespace needs Linux and root: skipping")
	}
	for _, tool := range []string{"ip", "tc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s command (iproute2): skipping", tool)
		}
	}
	dir := t.TempDir()
	name := fmt.Sprintf("obn%d", os.Getpid()%100000)
	subnet := fmt.Sprintf("10.98.%d", os.Getpid()%250)
	recipe := func(cond ...string) (setup [][]string, impair []string) {
		r := objbench(t, dir, nil, append([]string{"netem", "--netns", name, "--subnet", subnet}, cond...)...).mustSucceed(t)
		for line := range strings.Lines(r.stdout) {
			line = strings.TrimSpace(line)
			switch {
			case strings.HasPrefix(line, "# The store"):
				return setup, impair
			case strings.Contains(line, " tc qdisc "):
				impair = strings.Fields(line)
			case strings.HasPrefix(line, "ip "):
				setup = append(setup, strings.Fields(line))
			}
		}
		t.Fatalf("no recipe in:\n%s", r.stdout)
		return nil, nil
	}
	t.Cleanup(func() {
		_ = exec.Command("ip", "netns", "del", name+"-cli").Run()
		_ = exec.Command("ip", "netns", "del", name+"-srv").Run()
	})
	sh := func(cmd []string) ([]byte, error) { return exec.Command(cmd[0], cmd[1:]...).CombinedOutput() }
	setup, delay := recipe("--delay", "30ms")
	for _, cmd := range setup {
		if out, err := sh(cmd); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(cmd, " "), err, out)
		}
	}
	creds := []string{"AWS_ACCESS_KEY_ID=ak", "AWS_SECRET_ACCESS_KEY=sk", "AWS_REGION=us-east-1"}
	srv := exec.Command("ip", "netns", "exec", name+"-srv", binary, "server", "--listen", subnet+".1:9000", "--bucket", "bench",
		"--access-key", "ak", "--secret-key", "sk")
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Process.Kill(); _ = srv.Wait() })
	ep := "http://" + subnet + ".1:9000"
	put := func(out string, size string) *result.Run {
		t.Helper()
		args := []string{"netns", "exec", name + "-cli", binary, "put", "--endpoint-url", ep, "--bucket", "bench",
			"--size", size, "--ops", "20", "-c", "1", "-q", "--out", out}
		r := objbenchCmd(t, dir, creds, time.Minute, "ip", args...)
		if r.code != 0 {
			t.Fatalf("put in the client's namespace: exit %d\n%s", r.code, r.stderr)
		}
		return readResult(t, dir+"/"+out)
	}
	deadline := time.Now().Add(30 * time.Second)
	for { // the server is up when the client's namespace reaches it
		r := objbenchCmd(t, dir, creds, time.Minute, "ip", "netns", "exec", name+"-cli", binary, "put", "--endpoint-url", ep,
			"--bucket", "bench", "--ops", "1", "-q", "--out", "probe.json")
		if r.code == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server in %s-srv is not reachable from %s-cli: %s", name, name, r.stderr)
		}
		time.Sleep(100 * time.Millisecond) // polling a server coming up, bounded by the deadline
	}
	size, want, impair := "4KiB", 30*time.Millisecond, delay
	if !kernelHasNetem(t, name) {
		t.Log("this kernel has no netem qdisc (sch_netem): checking the namespace recipe with a rate cap instead")
		_, impair = recipe("--rate", "2Mbit")
		size, want = "64KiB", 200*time.Millisecond // 64 KiB at 2 Mbit/s: 262 ms
	}
	before := put("before.json", size)
	if out, err := sh(impair); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(impair, " "), err, out)
	}
	after := put("after.json", size)
	lat := func(r *result.Run) (p50, wait time.Duration) {
		for _, st := range r.Steps {
			if st.Kind == result.KindMain {
				p50 = time.Duration(st.Streams[0].Totals[0].Latency.P50) * time.Microsecond
			}
		}
		rows, err := report.PhaseRows(r)
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range rows {
			if strings.HasPrefix(row.Stage, "main") {
				wait = time.Duration(row.P50[5]) * time.Microsecond // result.PhaseNames[5] is wait
			}
		}
		return p50, wait
	}
	b50, bwait := lat(before)
	a50, await := lat(after)
	t.Logf("%s: PUT p50 %v -> %v, wait p50 %v -> %v", strings.Join(impair, " "), b50, a50, bwait, await)
	if result.PhaseNames[5] != "wait" || a50 < want || await < want*8/10 || a50 < b50+want*8/10 {
		t.Errorf("the impairment (%s) does not show: PUT p50 %v -> %v, wait p50 %v -> %v; want %v more",
			strings.Join(impair, " "), b50, a50, bwait, await, want)
	}
}

// kernelHasNetem tries a netem qdisc in a namespace of its own.
func kernelHasNetem(t *testing.T, name string) bool {
	ns := name + "-probe"
	if out, err := exec.Command("ip", "netns", "add", ns).CombinedOutput(); err != nil {
		t.Fatalf("ip netns add %s: %v\n%s", ns, err, out)
	}
	defer func() { _ = exec.Command("ip", "netns", "del", ns).Run() }()
	return exec.Command("ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", "lo", "root", "netem", "delay", "1ms").Run() == nil
}
