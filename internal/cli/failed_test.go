package cli_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/faultserver"
)

// Every PUT to a store that holds each request 1.5 s outlasts a 0.3 s
// step and its 0.3 s grace: all are canceled. Under -q the error still says
// what failed (the errors by class) and what to change, and without -q a
// note under the table says it too.
func TestCanceledOpsExplainedEvenQuiet(t *testing.T) {
	ctx := context.Background()
	srv, err := faultserver.Start(ctx, faultserver.Config{Delay: faultserver.Delay{Base: 1500 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(ctx) })
	t.Setenv("AWS_ACCESS_KEY_ID", "a") // the SDK's credential chain reads the process environment
	t.Setenv("AWS_SECRET_ACCESS_KEY", "b")
	args := []string{"put", "--endpoint-url", srv.Endpoint(), "--bucket", srv.Bucket(), "--size", "1KiB", "-c", "2",
		"--duration", "300ms", "--grace", "300ms", "--out", t.TempDir() + "/r.json"}
	code, stdout, stderr := execute(t, nil, append(args, "-q")...)
	want := "objbench: every op failed in main step 1: errors by class: canceled=2; the 2 canceled ops were still in flight " +
		"--grace 300ms after the step stopped issuing: ops this large need longer; raise --grace, or end the step by --ops instead of --duration"
	if code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("-q: exit %d, stderr lacks %q:\n%s\n%s", code, want, stderr, stdout)
	}
	code, stdout, _ = execute(t, nil, args...)
	if code != 1 || !strings.Contains(stdout, "errors main PUT conc 2: canceled=2") ||
		!strings.Contains(stdout, "canceled: 2 ops were still in flight when the grace period after their step stopped issuing ran out") {
		t.Errorf("exit %d, no errors by class and note under the table:\n%s", code, stdout)
	}
}
