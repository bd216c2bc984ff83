package e2e_test

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
)

// checkTotalRow finds stage's rows in the rates table and checks that its
// TOTAL row has conc workers and the sum of the other rows' OPS/S.
func checkTotalRow(t *testing.T, out, stage string, conc int) {
	t.Helper()
	var sum, total float64
	found := false
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) < 5 || f[0] != stage {
			continue
		}
		if _, err := strconv.Atoi(f[2]); err != nil {
			continue // another table (TTFB, phases)
		}
		v, err := strconv.ParseFloat(f[3], 64)
		if err != nil {
			continue
		}
		if f[1] == "TOTAL" {
			found, total = true, v
			if f[2] != strconv.Itoa(conc) {
				t.Errorf("total row %q: want %d workers", l, conc)
			}
			break
		}
		sum += v
	}
	if !found || total < sum-1 || total > sum+1 {
		t.Errorf("%s: total row %v (found %v), rows sum to %.1f:\n%s", stage, total, found, sum, out)
	}
}

// readCSV reads a whole CSV file (rows of any length).
func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows
}

// TestCOSBenchCSVArchive: --cosbench-csv writes COSBench's archive: the
// run history grows by a row per run (w1, w2), and the run's directory
// holds the workload CSV, whose counts are the result's, a timeline per
// stage whose seconds add up to them, and the response-time histogram.
func TestCOSBenchCSVArchive(t *testing.T) {
	doc := cosDoc("s3", `
    <workstage name="init"><work type="init" workers="1" config="cprefix=csv;containers=r(1,2)" /></workstage>
    <workstage name="prepare"><work type="prepare" workers="2" config="cprefix=csv;containers=r(1,2);objects=r(1,10);sizes=c(2)KB" /></workstage>
    <workstage name="main">
      <work name="d1" workers="2" totalOps="300"><operation type="read" config="cprefix=csv;containers=c(1);objects=u(1,10)" /></work>
      <work name="d2" workers="2" totalOps="200"><operation type="read" ratio="50" config="cprefix=csv;containers=c(2);objects=u(1,10)" />
        <operation type="write" ratio="50" config="cprefix=csv;containers=c(2);objects=u(11,20);sizes=c(1)KB" /></work>
    </workstage>`)
	for _, s := range cosStores(t) {
		t.Run(s.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "archive")
			var res *result.Run
			for i := 0; i < 2; i++ {
				_, res = s.mustRun(t, "csvrun", doc, "--cosbench-csv", dir)
			}
			hist := readCSV(t, filepath.Join(dir, "run-history.csv"))
			if len(hist) != 3 || strings.Join(hist[0], ",") != "Id,Name,Submitted-At,Started-At,Stopped-At,Op-Info,State,Detailed State" ||
				hist[1][0] != "w1" || hist[2][0] != "w2" || hist[2][1] != "t" || hist[2][5] != "init prepare read write" || hist[2][6] != "finished" {
				t.Errorf("run-history.csv: %q", hist)
			}
			run := filepath.Join(dir, "w2-t")
			rows := readCSV(t, filepath.Join(run, "w2-t.csv"))
			if got := strings.Join(rows[0], ","); got != "Stage,Op-Name,Op-Type,Op-Count,Byte-Count,Avg-ResTime,Avg-ProcTime,60%-ResTime,80%-ResTime,"+
				"90%-ResTime,95%-ResTime,99%-ResTime,100%-ResTime,Throughput,Bandwidth,Succ-Ratio,Status,Detailed Status" {
				t.Errorf("workload CSV header %s", got)
			}
			var mainOK, mainBytes int64
			var names []string
			for _, row := range rows[1:] {
				names = append(names, row[0]+"/"+row[1]+"/"+row[2])
				if row[0] == "s3-main" {
					n, _ := strconv.ParseInt(row[3], 10, 64)
					b, _ := strconv.ParseInt(row[4], 10, 64)
					mainOK, mainBytes = mainOK+n, mainBytes+b
					if row[15] != "100%" || row[16] != "completed" {
						t.Errorf("row %q", row)
					}
				}
			}
			want := "init/N/A/N/A s2-prepare/prepare-write/prepare s3-main/read/read s3-main/write/write s3-main/read/read"
			if strings.Join(names, " ") != want {
				t.Errorf("rows %v, want %s", names, want)
			}
			_, okGet, getBytes := mainOps(res, "GET")
			_, okPut, putBytes := mainOps(res, "PUT")
			if mainOK != 500 || mainOK != okGet+okPut || mainBytes != getBytes+putBytes {
				t.Errorf("CSV: %d ops, %d bytes; result: %d+%d ops, %d+%d bytes", mainOK, mainBytes, okGet, okPut, getBytes, putBytes)
			}
			tl := readCSV(t, filepath.Join(run, "s3-main.csv"))
			if len(tl) < 3 || tl[0][0] != "Timestamp" || tl[0][1] != "Op-Count" || tl[1][1] != "read" || tl[1][2] != "write" || tl[1][3] != "read" {
				t.Fatalf("timeline head %q", tl[:min(len(tl), 2)])
			}
			var secOK int64
			for _, row := range tl[2:] {
				for _, v := range row[1:4] { // Op-Count of the three operations
					n, _ := strconv.ParseInt(v, 10, 64)
					secOK += n
				}
			}
			if secOK != mainOK {
				t.Errorf("the timeline's seconds hold %d ops, the workload CSV %d", secOK, mainOK)
			}
			h := readCSV(t, filepath.Join(run, "w2-t-rt-histogram.csv"))
			if len(h) != 50002 || strings.Join(h[0], ",") != "ResTime,s3-main-w1-d1-read,(%),s3-main-w2-d2-write,(%),s3-main-w2-d2-read,(%)" ||
				h[1][0] != "0~10" || h[50001][0] != "500000~+INF" || h[50001][2] != "100%" {
				t.Errorf("histogram head %q, %d rows, last %q", h[0], len(h), h[len(h)-1])
			}
			var histOK int64
			for _, row := range h[1:] {
				for _, i := range []int{1, 3, 5} {
					n, _ := strconv.ParseInt(row[i], 10, 64)
					histOK += n
				}
			}
			if histOK != mainOK {
				t.Errorf("the histogram holds %d ops, want %d", histOK, mainOK)
			}
			for _, f := range []string{"s1-init.csv", "s2-prepare.csv"} {
				if _, err := os.Stat(filepath.Join(run, f)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	// a directory that cannot be made stops the run before any work
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "c.xml"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	r := objbench(t, dir, nil, "run", "--out", filepath.Join(dir, "r.json"), "--cosbench-csv", filepath.Join(blocker, "sub"), "c.xml")
	if _, err := os.Stat(filepath.Join(dir, "r.json")); r.code != 2 || !strings.Contains(r.stderr, "--cosbench-csv") || err == nil {
		t.Errorf("exit %d (result written: %v):\n%s", r.code, err == nil, r.stderr)
	}
}

// TestDatasetPrepareOnceRunMany: a prepare workload writes into a named
// data set and keeps it (its cleanup and dispose are skipped); main-only
// workloads read it, verifying every byte, as often as asked, for XML and
// YAML; only dataset rm deletes it, and nothing else.
func TestDatasetPrepareOnceRunMany(t *testing.T) {
	prepare := cosDoc("s3", `
    <workstage name="init"><work type="init" workers="1" config="containers=r(1,2)" /></workstage>
    <workstage name="prepare"><work type="prepare" workers="2" config="containers=r(1,2);objects=r(1,20);sizes=u(1,3)KB" /></workstage>
    <workstage name="cleanup"><work type="cleanup" workers="1" config="containers=r(1,2);objects=r(1,20)" /></workstage>
    <workstage name="dispose"><work type="dispose" workers="1" config="containers=r(1,2)" /></workstage>`)
	main := cosDoc("s3", `
    <workstage name="main"><work name="main" workers="2" totalOps="100">
      <operation type="read" config="containers=u(1,2);objects=u(1,20);hashCheck=true" /></work></workstage>`)
	yamlPrep := "name: yp\nstages:\n  - kind: prepare\n    concurrency: 2\n    size: 2KiB\n    objects: {prefix: y/, count: 15}\n"
	yamlMain := "name: ym\nstages:\n  - kind: main\n    concurrency: 2\n    total_ops: 60\n    ops: {get: 100}\n    verify: true\n    objects: {prefix: y/, count: 15}\n"
	for _, s := range cosStores(t) {
		t.Run(s.name, func(t *testing.T) {
			keep := s.bucket(t, "mycontainers1")
			if err := keep.CreateBucket(context.Background()); err != nil {
				t.Fatal(err)
			}
			if _, err := keep.Put(context.Background(), "keep/me", strings.NewReader("precious"), 8, storage.PutOptions{}); err != nil {
				t.Fatal(err)
			}
			if r, _ := s.run(t, "other", prepare, "--dataset", "other"); r.code != 0 {
				t.Fatalf("another data set: exit %d:\n%s", r.code, r.stderr)
			}
			r, res := s.run(t, "prepare", prepare, "--dataset", "cos1")
			if r.code != 0 || res == nil || res.Target.Namespace != "objbench/data/cos1/" {
				t.Fatalf("prepare: exit %d:\n%s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, "data set cos1 kept under objbench/data/cos1/") {
				t.Errorf("stderr:\n%s", r.stderr)
			}
			want := func(n int) []int {
				var out []int
				for i := 1; i <= n; i++ {
					out = append(out, i)
				}
				return out
			}
			ours := func(bucket, ns string) map[string]int64 {
				out := map[string]int64{}
				for k, v := range s.objects(t, bucket) {
					if strings.HasPrefix(k, ns) {
						out[k] = v
					}
				}
				return out
			}
			for _, b := range []string{"mycontainers1", "mycontainers2"} {
				wantObjects(t, ours(b, "objbench/data/cos1/"), "objbench/data/cos1/", "myobjects", want(20), -1)
			}
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "main.xml"), []byte(main), 0o644); err != nil {
				t.Fatal(err)
			}
			if r := objbench(t, dir, s.env(), "run", "--endpoint-url", s.endpoint, "main.xml"); r.code != 2 || !strings.Contains(r.stderr, "none exist there") {
				t.Errorf("main-only without a data set: exit %d:\n%s", r.code, r.stderr)
			}
			for i := 0; i < 2; i++ { // run many
				r, res := s.run(t, "main", main, "--dataset", "cos1")
				if r.code != 0 || res == nil {
					t.Fatalf("main: exit %d:\n%s", r.code, r.stderr)
				}
				if ops, ok, bytes := mainOps(res, "GET"); ops != 100 || ok != 100 || bytes < 100*1000 {
					t.Errorf("main %d: %d GETs, %d verified ok, %d bytes", i, ops, ok, bytes)
				}
			}
			if r, _ := s.runFile(t, "yp.yaml", yamlPrep, "--dataset", "y1", "--bucket", "mycontainers2"); r.code != 0 {
				t.Fatalf("yaml prepare: exit %d:\n%s", r.code, r.stderr)
			}
			r, res = s.runFile(t, "ym.yaml", yamlMain, "--dataset", "y1", "--bucket", "mycontainers2")
			if res == nil {
				t.Fatalf("yaml main: exit %d:\n%s", r.code, r.stderr)
			}
			if ops, ok, _ := mainOps(res, "GET"); r.code != 0 || ops != 60 || ok != 60 {
				t.Errorf("yaml main: exit %d, %d GETs, %d ok:\n%s", r.code, ops, ok, r.stderr)
			}
			if got := ours("mycontainers2", "objbench/data/y1/"); len(got) != 15 {
				t.Errorf("yaml data set holds %d objects", len(got))
			}
			// rm deletes cos1 and nothing else
			file := filepath.Join(dir, "prepare.xml")
			if err := os.WriteFile(file, []byte(prepare), 0o644); err != nil {
				t.Fatal(err)
			}
			objbench(t, dir, s.env(), "dataset", "rm", "cos1", "--endpoint-url", s.endpoint, "--out", filepath.Join(dir, "rm.json"), "prepare.xml").mustSucceed(t)
			for _, b := range []string{"mycontainers1", "mycontainers2"} {
				if got := ours(b, "objbench/data/cos1/"); len(got) != 0 {
					t.Errorf("%s still holds %d objects of cos1", b, len(got))
				}
				if got := ours(b, "objbench/data/other/"); len(got) != 20 {
					t.Errorf("%s holds %d objects of the other data set, want 20", b, len(got))
				}
			}
			if got := s.objects(t, "mycontainers1"); got["keep/me"] != 8 {
				t.Errorf("keep/me is gone: %v", got)
			}
			if got := ours("mycontainers2", "objbench/data/y1/"); len(got) != 15 {
				t.Errorf("rm cos1 touched y1: %d objects left", len(got))
			}
		})
	}
}

// runFile is run with the workload written as name.
func (s cosStore) runFile(t *testing.T, name, doc string, args ...string) (run, *result.Run) {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, name)
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "r.json")
	r := objbench(t, dir, s.env(), append(append([]string{"run", "--out", out, "--endpoint-url", s.endpoint}, args...), file)...)
	if _, err := os.Stat(out); err != nil {
		return r, nil
	}
	return r, readResult(t, out)
}
