package shootout_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/s3server"
	"github.com/objbench/objbench/shootout"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/mem"
	"github.com/objbench/objbench/storage/s3"
)

// target is a bucket to shoot at, with a precious object outside the
// shoot-out's namespace that must survive it.
type target struct {
	shootout.Target
}

const precious = "keep/precious"

func embeddedTarget(t *testing.T) target {
	t.Helper()
	ctx := context.Background()
	srv, err := s3server.Start(ctx, s3server.Config{Listen: "127.0.0.1:0", Buckets: []string{"tools"}, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(context.Background()) })
	return openTarget(t, srv.Endpoint(), srv.AccessKey(), srv.SecretKey(), false)
}

func minioTarget(t *testing.T) target {
	t.Helper()
	m := testenv.StartMinIO(t)
	return openTarget(t, m.Endpoint, m.AccessKey, m.SecretKey, true)
}

func openTarget(t *testing.T, endpoint, ak, sk string, create bool) target {
	t.Helper()
	ctx := context.Background()
	st, err := s3.New(ctx, s3.Config{Endpoint: endpoint, Bucket: "tools", AccessKey: ak, SecretKey: sk,
		Region: "us-east-1", PathStyle: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if create {
		if err := st.CreateBucket(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.Put(ctx, precious, strings.NewReader("precious"), 8, storage.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	return target{shootout.Target{Endpoint: endpoint, Bucket: "tools", Region: "us-east-1", AccessKey: ak, SecretKey: sk, Store: st}}
}

// config is a small shoot-out at tgt whose objbench is this test binary.
func config(t *testing.T, tgt target, tools []*shootout.Profile, files string, threads ...int) shootout.Config {
	t.Helper()
	sets, err := shootout.ParseFileSets(files)
	if err != nil {
		t.Fatal(err)
	}
	return shootout.Config{Target: tgt.Target, Tools: tools, FileSets: sets, Threads: threads, WorkDir: t.TempDir(),
		Env: append(os.Environ(), asObjbench+"=1"), Objbench: os.Args[0], RunTimeout: 2 * time.Minute}
}

// afterwards checks what a user would: only the precious object is left,
// unchanged.
func (tgt target) afterwards(t *testing.T) {
	t.Helper()
	var keys []string
	if err := tgt.Store.List(context.Background(), "", func(o storage.ObjectInfo) error {
		keys = append(keys, o.Key)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(keys, []string{precious}) {
		t.Errorf("bucket holds %v afterwards, want only %s", keys, precious)
	}
	var b bytes.Buffer
	if _, err := tgt.Store.Get(context.Background(), precious, storage.GetOptions{}, &b); err != nil || b.String() != "precious" {
		t.Errorf("%s: %q, %v", precious, b.String(), err)
	}
}

// requireTools says whether a missing tool fails the test (scripts/test.sh
// installs them and sets it).
func requireTools() bool { return os.Getenv("OBJBENCH_REQUIRE_TOOLS") != "" }

func TestEveryToolUploadsEverything(t *testing.T) {
	for _, where := range []struct {
		name string
		open func(*testing.T) target
	}{{"embedded", embeddedTarget}, {"minio", minioTarget}} {
		t.Run(where.name, func(t *testing.T) {
			t.Parallel()
			tgt := where.open(t)
			var tools []*shootout.Profile
			for _, name := range shootout.BuiltinNames() {
				tools = append(tools, shootout.Builtin(name))
			}
			c := config(t, tgt, tools, "3x1MiB,1x6MiB", 1, 2)
			var events []shootout.Event
			c.OnEvent = func(e shootout.Event) { events = append(events, e) }
			res, err := shootout.Run(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			ran := map[string]bool{}
			for _, tool := range res.Tools {
				switch {
				case tool.Skipped == "":
					ran[tool.Name] = true
					if tool.Version == "" {
						t.Errorf("%s: no version recorded", tool.Name)
					}
				case !requireTools():
					t.Logf("not measured: %s", tool.Skipped)
				default:
					t.Errorf("OBJBENCH_REQUIRE_TOOLS is set but %s", tool.Skipped)
				}
			}
			if !ran["objbench"] {
				t.Fatal("the objbench profile did not run")
			}
			checkCells(t, res, ran)
			checkOutputs(t, res)
			if runs := countKind(events, shootout.EventRunDone); runs != countRuns(res) {
				t.Errorf("%d run events for %d runs", runs, countRuns(res))
			}
			tgt.afterwards(t)
		})
	}
}

// checkCells: every tool that ran has a verified cell per file set and
// thread count (s3cmd: 1 thread only) that moved the whole dataset.
func checkCells(t *testing.T, res *shootout.Result, ran map[string]bool) {
	t.Helper()
	want := map[string]int{}
	for name := range ran {
		want[name] = 4 // 2 file sets x 2 thread counts
		if name == "s3cmd" {
			want[name] = 2
		}
	}
	got := map[string]int{}
	for _, c := range res.Cells {
		got[c.Tool]++
		if c.Tool == "s3cmd" && c.Threads != 1 {
			t.Errorf("s3cmd ran at %d threads", c.Threads)
		}
		if !c.OK || len(c.Runs) != 1 {
			t.Errorf("%s %d threads %dx%d: ok %v, runs %+v", c.Tool, c.Threads, c.Files, c.FileSize, c.OK, c.Runs)
			continue
		}
		r := c.Runs[0]
		if r.Objects != int64(c.Files) || r.Bytes != c.TotalBytes || c.TotalBytes != int64(c.Files)*c.FileSize {
			t.Errorf("%s: listed %d objects, %d bytes; dataset %d files, %d bytes", c.Tool, r.Objects, r.Bytes, c.Files, c.TotalBytes)
		}
		if r.DurationS <= 0 || r.CPUS() <= 0 || c.Duration.Median != r.DurationS {
			t.Errorf("%s: duration %v, CPU %v, median %v", c.Tool, r.DurationS, r.CPUS(), c.Duration.Median)
		}
	}
	for name, n := range want {
		if got[name] != n {
			t.Errorf("%s: %d cells, want %d", name, got[name], n)
		}
	}
}

// checkOutputs: the table has the studies' columns and a row per cell; the
// CSV and JSON parse back to the same cells.
func checkOutputs(t *testing.T, res *shootout.Result) {
	t.Helper()
	var table, csvOut, jsonOut bytes.Buffer
	if err := res.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	header := "| Client   | Threads | Files | FileSize (MB) | TotalTransferred (MB) | Duration (s) | Speed (MB/s) | CPU s |"
	if !strings.Contains(table.String(), header) {
		t.Errorf("table lacks the header %q:\n%s", header, table.String())
	}
	if rows := strings.Count(table.String(), "\n| "); rows != len(res.Cells)+1 {
		t.Errorf("table has %d rows under its header, want %d:\n%s", rows-1, len(res.Cells), table.String())
	}
	if err := res.WriteCSV(&csvOut); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&csvOut).ReadAll()
	if err != nil || len(recs) != len(res.Cells)+1 || recs[0][0] != "client" {
		t.Errorf("CSV: %d records, %v", len(recs), err)
	}
	if err := res.WriteJSON(&jsonOut); err != nil {
		t.Fatal(err)
	}
	var back shootout.Result
	if err := json.Unmarshal(jsonOut.Bytes(), &back); err != nil || back.Schema != shootout.Schema || len(back.Cells) != len(res.Cells) {
		t.Errorf("JSON: %v, schema %q, %d cells", err, back.Schema, len(back.Cells))
	}
}

func countKind(events []shootout.Event, k shootout.EventKind) int {
	n := 0
	for _, e := range events {
		if e.Kind == k {
			n++
		}
	}
	return n
}

func countRuns(res *shootout.Result) int {
	n := 0
	for _, c := range res.Cells {
		n += len(c.Runs)
	}
	return n
}

func TestCustomTemplateRepeatedAndMedian(t *testing.T) {
	tgt := embeddedTarget(t)
	p, err := shootout.ParseTemplate("mine=" + os.Args[0] + " transfer {src} {dst} --endpoint-url {endpoint} --workers {threads} -q")
	if err != nil {
		t.Fatal(err)
	}
	c := config(t, tgt, []*shootout.Profile{p}, "4x256KiB", 2)
	c.Repeat = 3
	res, err := shootout.Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cells) != 1 || !res.Cells[0].OK || len(res.Cells[0].Runs) != 3 {
		t.Fatalf("cells: %+v", res.Cells)
	}
	cell := res.Cells[0]
	var durs []float64
	for _, r := range cell.Runs {
		durs = append(durs, r.DurationS)
		if !slices.Contains(r.Command, "2") || !strings.HasPrefix(r.Command[3], "s3://tools/objbench-tools/") {
			t.Errorf("command %v: placeholders not filled", r.Command)
		}
	}
	slices.Sort(durs)
	if cell.Duration != (shootout.Stat{Median: durs[1], Min: durs[0], Max: durs[2]}) {
		t.Errorf("duration %+v from runs %v", cell.Duration, durs)
	}
	tgt.afterwards(t)
}

func TestMissingToolIsSkippedWithHowToInstall(t *testing.T) {
	tgt := embeddedTarget(t)
	p, err := shootout.ParseTemplate("ghost=objbench-no-such-tool cp {src} {dst}")
	if err != nil {
		t.Fatal(err)
	}
	c := config(t, tgt, []*shootout.Profile{p}, "1x1KiB", 1)
	var skips []string
	c.OnEvent = func(e shootout.Event) {
		if e.Kind == shootout.EventSkip {
			skips = append(skips, e.Message)
		}
	}
	res, err := shootout.Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if len(skips) != 1 || !strings.Contains(skips[0], "objbench-no-such-tool not found on PATH") || len(res.Cells) != 0 {
		t.Fatalf("skips %q, cells %d", skips, len(res.Cells))
	}
	var table bytes.Buffer
	_ = res.WriteTable(&table)
	if !strings.Contains(table.String(), "skipped ghost is not installed") {
		t.Errorf("the table does not say ghost was skipped:\n%s", table.String())
	}
}

// A tool that exits 0 without uploading fails verification; one that fails
// has its stderr kept, without the credentials it was given.
func TestFailuresAreCaughtAndSecretsScrubbed(t *testing.T) {
	tgt := embeddedTarget(t)
	script := filepath.Join(t.TempDir(), "leaky.sh")
	body := "#!/bin/sh\necho \"leaking $AWS_SECRET_ACCESS_KEY and $AWS_ACCESS_KEY_ID\" >&2\nexit 3\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	idle, _ := shootout.ParseTemplate("idle=true {src} {dst}")
	leaky, _ := shootout.ParseTemplate("leaky=" + script + " {src} {dst}")
	res, err := shootout.Run(context.Background(), config(t, tgt, []*shootout.Profile{idle, leaky}, "2x64KiB", 1))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cells) != 2 || res.Cells[0].OK || res.Cells[1].OK {
		t.Fatalf("cells %+v", res.Cells)
	}
	if e := res.Cells[0].Runs[0].Error; !strings.Contains(e, "holds 0 objects") {
		t.Errorf("idle tool: error %q, want a verification failure", e)
	}
	run := res.Cells[1].Runs[0]
	if run.ExitCode != 3 || !strings.Contains(run.Stderr, "leaking *** and ***") {
		t.Errorf("leaky tool: exit %d, stderr %q", run.ExitCode, run.Stderr)
	}
	var all bytes.Buffer
	_ = res.WriteTable(&all)
	_ = res.WriteCSV(&all)
	_ = res.WriteJSON(&all)
	for _, secret := range []string{tgt.SecretKey, tgt.AccessKey} {
		if strings.Contains(all.String(), secret) {
			t.Errorf("a credential appears in the output")
		}
	}
	if !strings.Contains(all.String(), "FAILED leaky") {
		t.Errorf("the table does not report the failure:\n%s", all.String())
	}
}

// Against a store whose listing ignores the prefix, a tool run's cleanup
// deletes nothing: not the keys outside its prefix, nor, since the listing
// cannot be trusted, its own.
func TestDeletePrefixTrustsNoListingThatIgnoresItsPrefix(t *testing.T) {
	ctx := context.Background()
	st := mem.New()
	for _, k := range []string{"theirs/a", "theirs/b", shootout.Namespace + "run1/x"} {
		if _, err := st.Put(ctx, k, strings.NewReader("v"), 1, storage.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	err := shootout.DeletePrefix(ctx, testenv.PrefixIgnoring{Store: st}, shootout.Namespace+"run1/")
	if !errors.Is(err, storage.ErrListingFault) {
		t.Errorf("deletePrefix: %v, want the listing fault named", err)
	}
	var n int
	_ = st.List(ctx, "", func(storage.ObjectInfo) error { n++; return nil })
	if n != 3 {
		t.Errorf("%d of 3 objects left: a faulty listing deleted some", n)
	}
}

// TestWeakScalingGivesEachThreadItsOwnCopy: at t threads every run
// uploads t copies of the file set (the seed's 32 -> 64 -> 128 files), each
// verified by count and bytes.
func TestWeakScalingGivesEachThreadItsOwnCopy(t *testing.T) {
	tgt := embeddedTarget(t)
	c := config(t, tgt, []*shootout.Profile{shootout.Builtin("objbench")}, "3x64KiB", 1, 2, 4)
	c.Weak = true
	res, err := shootout.Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if res.Scaling != "weak" || len(res.Cells) != 3 {
		t.Fatalf("scaling %q, %d cells", res.Scaling, len(res.Cells))
	}
	for _, cell := range res.Cells {
		want := int64(3 * cell.Threads)
		if !cell.OK || int64(cell.Files) != want || cell.TotalBytes != want*64<<10 || cell.Runs[0].Objects != want || !cell.Runs[0].Verified {
			t.Errorf("%d threads: %d files, %d bytes, run %+v; want %d files", cell.Threads, cell.Files, cell.TotalBytes, cell.Runs[0], want)
		}
	}
	var b bytes.Buffer
	if err := res.WriteTable(&b); err != nil || !strings.Contains(b.String(), "Weak scaling") {
		t.Errorf("table: %v\n%s", err, b.String())
	}
	tgt.afterwards(t)
}
