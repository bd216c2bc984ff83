package e2e_test

import (
	"strings"
	"testing"

	"github.com/objbench/objbench/faultserver"
)

// A run that asks a store for what it lacks is warned in its first lines,
// before any load: the probe asks first. A plain run asks nothing.
func TestRunWarnsOfWhatTheStoreLacks(t *testing.T) {
	srv := startFaults(t, faultserver.Config{Bucket: "lacking", Lacks: faultserver.Lacks{
		Refuse: []string{"checksum"}, Ignore: []string{"conditional-write"}}})
	flags := []string{"--endpoint-url", srv.Endpoint(), "--bucket", "lacking", "--ops", "20", "--concurrency", "2", "--size", "1KiB"}
	dir := t.TempDir()
	r := objbench(t, dir, faultEnv, append([]string{"put", "--checksum", "crc32c", "--out", "c.json"}, flags...)...)
	want := "objbench: warning: the store lacks what this run asks for (objbench probe, before the run): checksum.crc32c.header: not supported by this store"
	first, _, _ := strings.Cut(r.stderr, "main: step")
	if !strings.Contains(first, want) {
		t.Errorf("no warning before the run's first step; stderr:\n%s", r.stderr)
	}
	if !strings.Contains(r.stdout, "not implemented by this target") {
		t.Errorf("the run should still count what the store did not do:\n%s", r.stdout)
	}
	r = objbench(t, dir, faultEnv, append([]string{"put", "--if-none-match", "*", "--out", "i.json"}, flags...)...)
	if !strings.Contains(r.stderr, "conditional.put.if-none-match: not supported by this store (If-None-Match: * ignored") {
		t.Errorf("an ignored condition is not warned of; stderr:\n%s", r.stderr)
	}
	r = objbench(t, dir, faultEnv, append([]string{"put", "--out", "p.json"}, flags...)...).mustSucceed(t)
	if strings.Contains(r.stderr, "warning") || strings.Contains(r.stderr, "probe") {
		t.Errorf("a plain run probed or warned:\n%s", r.stderr)
	}
}
