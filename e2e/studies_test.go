package e2e_test

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/report/studies"
	"github.com/objbench/objbench/result"
)

// TestStudiesAtSmallScale reruns bench/studies.sh's five studies, scaled
// down, against a real MinIO (and file targets in temporary directories),
// builds each study's own table from the result files (package
// report/studies), and checks that every column is there and every
// figure is the one objbench's own output states: the step lines, the
// transfer table and the rates table.
func TestStudiesAtSmallScale(t *testing.T) {
	m, st, flags, env := minioEnv(t)
	dir := t.TempDir()
	ob := func(args ...string) run { return objbench(t, dir, env, args...) }
	read := func(names ...string) []*result.Run {
		var out []*result.Run
		for _, n := range names {
			out = append(out, readResult(t, filepath.Join(dir, n)))
		}
		return out
	}

	t.Run("000-transfers-watched-with-dstat", func(t *testing.T) {
		var files []string
		for i, c := range [][2]string{{"gen:24MiB", "s3://bench/file/file1g"}, {"gen:48MiB", "s3://bench/file/file10g"},
			{"gen:300x16KiB", "s3://bench/small/"}, {"s3://bench/file/file10g", "null:"}} {
			f := fmt.Sprintf("t%d.json", i)
			ob(append([]string{"transfer", c[0], c[1], "-q", "-o", f, "--part-size", "8MiB"}, flags[:2]...)...).mustSucceed(t)
			files = append(files, f)
		}
		tab, err := studies.Transfers(read(files...))
		if err != nil {
			t.Fatal(err)
		}
		complete(t, tab, 4)
		for i, f := range files {
			r := ob("report", f).mustSucceed(t)
			line := studySteps(t, r.stdout)[0]
			wall := transferRow(t, r.stdout)
			if got := tab.Column("TIME (s)")[i]; got != line.secs || got+" s" != wall[0] {
				t.Errorf("%s: TIME %s, the step line says %s s and the transfer table %s", f, got, line.secs, wall[0])
			}
			if got := tab.Column("MiB/s")[i]; got != wall[4] {
				t.Errorf("%s: MiB/s %s, the transfer table says %s", f, got, wall[4])
			}
			if got := tab.Column("FILES")[i]; got != wall[1] {
				t.Errorf("%s: FILES %s, the transfer table says %s objects", f, got, wall[1])
			}
		}
	})

	t.Run("001-tools-weak-scaling", func(t *testing.T) {
		r := ob(append([]string{"tools", "--tools", "objbench", "--files", "2x256KiB", "--threads", "1,2,4", "--scaling", "weak", "-q"}, flags...)...).mustSucceed(t)
		for _, want := range []string{"| Client   | Threads | Files | FileSize (MB) | TotalTransferred (MB) | Duration (s) | Speed (MB/s) | CPU s |",
			"| objbench |       1 |     2 |", "| objbench |       2 |     4 |", "| objbench |       4 |     8 |", "Weak scaling"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("the shoot-out table lacks %q:\n%s", want, r.stdout)
			}
		}
	})

	t.Run("002-storage-systems-without-and-with-fsync", func(t *testing.T) {
		a, b := t.TempDir(), t.TempDir()
		path, _ := filepath.Abs("../examples/storage-systems.yaml")
		before := len(listAll(t, st))
		var names []string
		for _, mode := range []string{"none", "at-end"} {
			r := ob("run", path, "--scale", "0.002", "--target", "file://"+a, "--target", "file://"+b,
				"--target", "s3://bench", "--endpoint-url", m.Endpoint, "--fsync", mode, "-q", "--out", "ss-"+mode+".json").mustSucceed(t)
			_, targets, ok := strings.Cut(r.stdout, "Targets compared (3 of 3 ran)\n")
			if !ok {
				t.Fatalf("no comparison of the three targets:\n%s", r.stdout)
			}
			mine := []string{}
			for i := range 3 {
				mine = append(mine, fmt.Sprintf("ss-%s-%d.json", mode, i+1))
			}
			names = append(names, mine...)
			tab, err := studies.StorageSystems(read(mine...))
			if err != nil {
				t.Fatal(err)
			}
			// 500,000 tiny and 1,000 large writes to a file system, 500 and
			// 100 to S3, scaled by 0.002 (rounded up).
			complete(t, tab, 6)
			for _, row := range tab.Rows {
				want := map[string]string{"tiny": "1000", "large": "2"}[row[2]]
				if strings.HasPrefix(row[0], "s3://") {
					want = "1"
				}
				cells := rowOf(unshort(targets), row[2], "PUT", row[3], row[0])
				switch {
				case row[1] != mode:
					t.Errorf("%v: fsync %s, the run had --fsync %s", row, row[1], mode)
				case row[4] != want:
					t.Errorf("%v: %s files, want %s", row, row[4], want)
				case cells == nil:
					t.Errorf("no targets row for %v in:\n%s", row, targets)
				// targets: CONC OPS BYTES(2 words) TIME WINDOW KB/s OPS/S P50 P99 ERR
				case len(cells) < 10 || !same(row[4], cells[1]) || !same(row[5], cells[4]) || !same(unshort(row[6]), cells[6]) ||
					!same(unshort(row[7]), cells[7]) || !same(row[8], cells[9]):
					t.Errorf("%v: FILES, TIME, KB/s, OPS/S or P99 disagree with the targets table's %v", row, cells)
				}
			}
		}
		for _, n := range names {
			if res := readResult(t, filepath.Join(dir, n)); res.Target.Kind == "fs" && strings.Contains(n, "at-end") && res.Steps[0].Synced <= 0 {
				t.Errorf("%s: --fsync at-end with the file did not sync", n)
			}
		}
		if after := len(listAll(t, st)); after != before {
			t.Errorf("MinIO holds %d objects after the runs, %d before", after, before)
		}
	})

	t.Run("003-mailbench-on-a-git-corpus", func(t *testing.T) {
		var emails []string
		for i := range 40 {
			emails = append(emails, fmt.Sprintf("From: user%d@example.invalid\nSubject: %d\n\n%s\n", i, i, strings.Repeat("text ", 10*i)))
		}
		repo := testenv.GitRepo(t, emails)
		r := ob(append([]string{"transfer", "--from-git", repo, "--max-objects", "30", "s3://bench/mail/", "-q"}, flags[:2]...)...).mustSucceed(t)
		if !strings.Contains(r.stdout, "verified: 30 objects") || !strings.Contains(r.stdout, "manifest: s3://bench/mail.objbench-manifest/") {
			t.Errorf("corpus upload:\n%s", r.stdout)
		}
		outs := map[string]string{}
		for _, op := range []string{"get", "stat"} {
			outs[op] = ob(append([]string{op, "--no-prepare", "--prefix", "mail/", "--ops", "200", "-c", "1,4", "-q", "--out", "m" + op + ".json"}, flags...)...).mustSucceed(t).stdout
		}
		outs["delete"] = ob(append([]string{"delete", "--from-git", repo, "-c", "1,4", "-q", "--out", "mdelete.json"}, flags...)...).mustSucceed(t).stdout
		tab, err := studies.Mailbench(read("mget.json", "mstat.json", "mdelete.json"))
		if err != nil {
			t.Fatal(err)
		}
		complete(t, tab, 2)
		for i, conc := range tab.Column("WORKERS") {
			for _, op := range []string{"GET", "STAT", "DELETE"} {
				cells := rowOf(unshort(outs[strings.ToLower(op)]), "main", op, conc)
				if cells == nil {
					t.Fatalf("no main %s row at conc %s in:\n%s", op, conc, outs[strings.ToLower(op)])
				}
				// rates: OPS/S THROUGHPUT(2 words) AVG P25 P50 P75 P90 P99 ...
				if rate, p99 := tab.Column(op + " msgs/s")[i], tab.Column(op + " p99")[i]; len(cells) < 9 || !same(unshort(rate), cells[0]) || !same(p99, cells[8]) {
					t.Errorf("%s at %s workers: %s msgs/s, p99 %s; the run's table says %v", op, conc, rate, p99, cells)
				}
			}
		}
		if r := ob(append([]string{"clean", "s3://bench/mail/"}, flags[:2]...)...).mustSucceed(t); !strings.Contains(r.stdout, "30 objects") {
			t.Errorf("clean:\n%s", r.stdout)
		}
		for _, k := range listAll(t, st) {
			if strings.HasPrefix(k, "mail") {
				t.Errorf("%s left after clean", k)
			}
		}
	})

	t.Run("004-cosbench-on-four-drivers", func(t *testing.T) {
		path, _ := filepath.Abs("../examples/cosbench-80-20.yaml")
		runs := make(chan run, 4)
		for rank := range 4 {
			go func() {
				runs <- ob(append([]string{"run", path, "--scale", "0.05", "--worker", fmt.Sprintf("%d/4", rank), "--run-id", "cos", "-q", "--out", "cos/"}, flags...)...)
			}()
		}
		for range 4 {
			if r := <-runs; r.code != 0 {
				t.Fatalf("a worker: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
		}
		ob("merge", "cos/cos/", "-o", "cos.json").mustSucceed(t)
		merged := readResult(t, filepath.Join(dir, "cos.json"))
		tab, err := studies.COSBench(merged)
		if err != nil {
			t.Fatal(err)
		}
		complete(t, tab, 4)
		rep := ob("report", "cos.json").mustSucceed(t).stdout
		ops := map[string]int64{}
		for i, stage := range tab.Column("Stage") {
			kind, stream, _ := strings.Cut(stage, "/")
			op := map[string]string{"read": "GET", "write": "PUT", "list": "LIST", "delete": "DELETE"}[tab.Column("Op-Type")[i]]
			n, _ := strconv.ParseInt(tab.Column("Op-Count")[i], 10, 64)
			ops[kind] += n
			if succ := tab.Column("Succ-Ratio")[i]; succ != "100.00%" {
				t.Errorf("%s %s: Succ-Ratio %s (every worker's reads verify what any worker wrote)", stage, op, succ)
			}
			fields := []string{kind, op}
			if stream != "" {
				fields = []string{kind, stream, op}
			}
			cells := rowOf(unshort(rep), fields...)
			if cells == nil {
				t.Fatalf("no %v row in:\n%s", fields, rep)
			}
			if tp := unshort(strings.TrimSuffix(tab.Column("Throughput")[i], " op/s")); !same(tp, cells[1]) {
				t.Errorf("%s %s: Throughput %s, the merged table says %s ops/s", stage, op, tp, cells[1])
			}
		}
		for _, l := range studySteps(t, rep) {
			if l.stage == "main" && strconv.FormatInt(ops["main"], 10) != l.ops {
				t.Errorf("main: the table's Op-Counts add to %d, the step line says %s ops", ops["main"], l.ops)
			}
		}
	})
}

// complete checks that tab has at least rows rows and a cell in every
// column of each.
func complete(t *testing.T, tab studies.Table, rows int) {
	t.Helper()
	if len(tab.Rows) < rows {
		t.Errorf("%s: %d rows, want %d or more", tab.Title, len(tab.Rows), rows)
	}
	for _, r := range tab.Rows {
		if len(r) != len(tab.Columns) {
			t.Errorf("%s: row %v for columns %v", tab.Title, r, tab.Columns)
			continue
		}
		for i, c := range r {
			if c == "" {
				t.Errorf("%s: row %v has no %s", tab.Title, r, tab.Columns[i])
			}
		}
	}
}

type studyStep struct{ stage, ops, secs string }

var studyStepRE = regexp.MustCompile(`(?m)^(\S+) \(conc \d+\): (\d+) ops in ([\d.]+) s`)

// studySteps parses the step lines of a table: "main (conc 8): N ops in T s".
func studySteps(t *testing.T, out string) []studyStep {
	t.Helper()
	var ls []studyStep
	for _, m := range studyStepRE.FindAllStringSubmatch(out, -1) {
		ls = append(ls, studyStep{m[1], m[2], m[3]})
	}
	if len(ls) == 0 {
		t.Fatalf("no step line in:\n%s", out)
	}
	return ls
}

// transferRow is the first row of the transfer table: WALL (with its
// unit) OBJECTS BYTES (with its unit) MiB/s ...
func transferRow(t *testing.T, out string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(out, "RETRIES")
	if !ok {
		t.Fatalf("no transfer table in:\n%s", out)
	}
	f := strings.Fields(strings.SplitN(strings.TrimLeft(rest, "\n "), "\n", 2)[0])
	if len(f) < 6 {
		t.Fatalf("transfer row %q", f)
	}
	return []string{f[0] + " " + f[1], f[2], f[3] + " " + f[4], "", f[5]}
}

// rowOf finds the first table line holding fields as whole words, in
// order, and returns the words after the last of them.
func rowOf(table string, fields ...string) []string {
	for line := range strings.Lines(table) {
		words := strings.Fields(line)
		i, j := 0, 0
		for ; j < len(words) && i < len(fields); j++ {
			if words[j] == fields[i] || (strings.Contains(fields[i], " ") && strings.HasPrefix(strings.Join(words[j:], " "), fields[i])) {
				j += strings.Count(fields[i], " ")
				i++
			}
		}
		if i == len(fields) {
			return words[j:]
		}
	}
	return nil
}

// shortRE is a row's "too short to rate" in a targets table (KB/s and
// OPS/S) or a rates table (OPS/S and THROUGHPUT, with the op count).
var shortRE = regexp.MustCompile(`too short(\s+)to rate(?: \(\d+ ops\))?|too short|to rate`)

// unshort makes each "too short to rate" one word per column, so a table's
// row splits into its columns: "too-short to-rate" where it takes two
// (a rates table's THROUGHPUT takes two words of its own: "to-rate -").
func unshort(s string) string {
	return shortRE.ReplaceAllStringFunc(s, func(m string) string {
		switch {
		case m == "too short" || m == "to rate":
			return strings.ReplaceAll(m, " ", "-")
		case strings.HasSuffix(m, " ops)"):
			return "too-short" + shortRE.FindStringSubmatch(m)[1] + "to-rate -"
		}
		return "too-short" + shortRE.FindStringSubmatch(m)[1] + "to-rate"
	})
}

// same says whether two printed figures are the same number to the
// precision of the coarser one.
func same(a, b string) bool {
	x, errA := strconv.ParseFloat(a, 64)
	y, errB := strconv.ParseFloat(b, 64)
	if errA != nil || errB != nil {
		return a == b
	}
	tol := max(decimals(a), decimals(b))
	return abs(x-y) <= tol*0.5+1e-9 || abs(x-y) <= 0.005*max(abs(x), abs(y))
}

// decimals is the unit of a figure's last printed digit: 0.01 for "1.23".
func decimals(s string) float64 {
	_, frac, ok := strings.Cut(s, ".")
	if !ok {
		return 1
	}
	u := 1.0
	for range frac {
		u /= 10
	}
	return u
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
