package e2e_test

import (
	"context"
	"encoding/csv"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/faultserver"
)

// stepLine is what a step's line says its window holds.
type stepLine struct {
	stage       string
	window, ops float64
	bytes       float64
}

var stepLineRE = regexp.MustCompile(`^(\w+) \(conc \d+\): \d+ ops in [\d.]+ s, stopped by [\w ,-]+; rates over ([\d.]+) s holding (\d+) ops and ([\d.]+) (B|KiB|MiB|GiB)`)

func stepLines(t *testing.T, out string) []stepLine {
	t.Helper()
	units := map[string]float64{"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
	var lines []stepLine
	for _, l := range strings.Split(out, "\n") {
		m := stepLineRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		w, _ := strconv.ParseFloat(m[2], 64)
		n, _ := strconv.ParseFloat(m[3], 64)
		b, _ := strconv.ParseFloat(m[4], 64)
		lines = append(lines, stepLine{stage: m[1], window: w, ops: n, bytes: b * units[m[5]]})
	}
	return lines
}

// tableRates reads OPS/S and THROUGHPUT (MiB/s) of the first table row of
// stage.
func tableRates(t *testing.T, out, stage string) (ops, mib float64) {
	t.Helper()
	units := map[string]float64{"B/s": 1.0 / (1 << 20), "KiB/s": 1.0 / 1024, "MiB/s": 1, "GiB/s": 1024}
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) < 6 || f[0] != stage || f[4] == "" {
			continue
		}
		if _, err := strconv.Atoi(f[2]); err != nil {
			continue // another table (TTFB) or the header
		}
		ops, err1 := strconv.ParseFloat(f[3], 64)
		v, err2 := strconv.ParseFloat(f[4], 64)
		if err1 != nil || err2 != nil {
			continue
		}
		return ops, v * units[f[5]]
	}
	t.Fatalf("no %s row in:\n%s", stage, out)
	return 0, 0
}

func within(got, want, rel, abs float64) bool {
	return math.Abs(got-want) <= math.Max(rel*math.Abs(want), abs)
}

// Every number right at every step length: against a server with a known
// service time, at steps of 0.3, 1.5, 2.5 and 10 s, closed loop and open
// loop, the table's OPS/S and THROUGHPUT of prepare, main and cleanup are
// the ops and bytes the step line says its window holds over the window it
// states (within 1%, the table's rounding), and the CSV and the JSON
// summary give the same figures.
func TestRatesMatchTheStepLineAtEveryStepLength(t *testing.T) {
	ctx := context.Background()
	srv, err := faultserver.Start(ctx, faultserver.Config{Delay: faultserver.Delay{Base: 2 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(context.Background()) })
	env := []string{"AWS_ACCESS_KEY_ID=objbench", "AWS_SECRET_ACCESS_KEY=objbench-secret", "AWS_REGION=us-east-1"}
	for _, mode := range []struct {
		name string
		args []string
	}{{"closed", nil}, {"rate", []string{"--rate", "400/s"}}} {
		for _, d := range []string{"300ms", "1500ms", "2500ms", "10s"} {
			t.Run(mode.name+"/"+d, func(t *testing.T) {
				dir := t.TempDir()
				args := append([]string{"get", "--endpoint-url", srv.Endpoint(), "--bucket", srv.Bucket(), "--size", "16KiB",
					"--objects", "64", "-c", "4", "--duration", d, "-o", "r.json", "--csv", "r.csv"}, mode.args...)
				r := objbench(t, dir, env, args...).mustSucceed(t)
				lines := stepLines(t, r.stdout)
				if len(lines) != 3 {
					t.Fatalf("want the step lines of prepare, main and cleanup, got %+v in:\n%s", lines, r.stdout)
				}
				for _, l := range lines {
					ops, mib := tableRates(t, r.stdout, l.stage)
					if l.window <= 0 || !within(ops, l.ops/l.window, 0.01, 0.05) || !within(mib, l.bytes/l.window/(1<<20), 0.01, 0.05) {
						t.Errorf("%s: table says %.1f ops/s, %.2f MiB/s; its line says %.0f ops, %.0f bytes in %.3f s (%.1f ops/s, %.2f MiB/s)",
							l.stage, ops, mib, l.ops, l.bytes, l.window, l.ops/l.window, l.bytes/l.window/(1<<20))
					}
				}
				checkExports(t, dir, r.stdout)
			})
		}
	}
}

// checkExports: the CSV, the JSON summary, the HTML page and compare give
// the table's rates.
func checkExports(t *testing.T, dir, table string) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "r.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("csv: %v, %d records", err, len(recs))
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	summary := objbench(t, dir, nil, "report", "--json", "r.json").mustSucceed(t).stdout
	page := objbench(t, dir, nil, "report", "r.json", "--html", "r.html").mustSucceed(t)
	b, err := os.ReadFile(filepath.Join(dir, "r.html"))
	if err != nil || !strings.Contains(html.UnescapeString(string(b)), page.stdout) {
		t.Errorf("the HTML page does not hold the table (%v)", err)
	}
	cmp := objbench(t, dir, nil, "compare", "--all-steps", "r.json", "r.json").mustSucceed(t).stdout
	for _, rec := range recs[1:] {
		stage := rec[col["stage"]]
		ops, mib := tableRates(t, table, stage)
		csvOps, _ := strconv.ParseFloat(rec[col["ops_per_s"]], 64)
		csvMiB, _ := strconv.ParseFloat(rec[col["mib_per_s"]], 64)
		if !within(csvOps, ops, 0.005, 0.05) || !within(csvMiB, mib, 0.005, 0.05) {
			t.Errorf("%s: csv %.2f ops/s %.3f MiB/s, table %.1f ops/s %.2f MiB/s", stage, csvOps, csvMiB, ops, mib)
		}
		if want := `"ops_per_s": ` + rec[col["ops_per_s"]]; !strings.Contains(summary, want) {
			t.Errorf("%s: the JSON summary lacks %s", stage, want)
		}
		if cmpOps := compareRate(cmp, stage); !within(cmpOps, ops, 0.005, 0.5) {
			t.Errorf("compare says %.1f ops/s for %s, the table %.1f", cmpOps, stage, ops)
		}
	}
}

// compareRate reads the base run's OPS/S of stage from compare's table
// (STAGE OP CONC RUN OPS/S ...).
func compareRate(out, stage string) float64 {
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 4 && f[0] == stage {
			v, _ := strconv.ParseFloat(f[4], 64)
			return v
		}
	}
	return -1
}
