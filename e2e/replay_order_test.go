package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/faultserver"
	"github.com/objbench/objbench/oplog"
	"github.com/objbench/objbench/result"
)

// accessLogLine is an S3 server access log line of op on key at second
// sec after t0 (sizes as a successful request logs them).
func accessLogLine(t0 time.Time, sec int, op, key string, size int64) string {
	sent, obj := "-", "-"
	switch op {
	case "REST.PUT.OBJECT", "REST.HEAD.OBJECT":
		obj = fmt.Sprint(size)
	case "REST.GET.OBJECT":
		sent, obj = fmt.Sprint(size), fmt.Sprint(size)
	}
	return strings.Join([]string{strings.Repeat("0f", 32), "prod", "[" + t0.Add(time.Duration(sec)*time.Second).Format("02/Jan/2006:15:04:05 -0700") + "]",
		"10.1.2.3", "arn:aws:iam::000000000000:user/tester", "REQ" + key, op, key, `"GET /prod/` + key + ` HTTP/1.1"`, "200", "-",
		sent, obj, "12", "7", `"-"`, `"test/1.0"`, "-", "aG9zdGlk", "SigV4", "TLS_AES_128_GCM_SHA256", "AuthHeader",
		"prod.s3.example.test", "TLSv1.3", "-", "-"}, " ")
}

// mainRecords is the main-step records of an op log, by start.
func mainRecords(t *testing.T, path string) []oplog.Record {
	t.Helper()
	var out []oplog.Record
	for _, r := range readOpLog(t, path) {
		if stage, _, _ := oplog.ParseStep(r.Step); stage == "main" {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start.Before(out[j].Start) })
	return out
}

// An access log's second holds a PUT and then the HEAD of its key, and
// the next one a GET and then the DELETE of that key, for ten keys, on a
// store whose requests take 20 to 120 ms (drawn): replayed with the
// second spread over it (the default) or as a burst (--burst), every op
// of a key starts only after the one before it in the log ended, and none
// fails. (Before, each second went out as a burst in no order per key:
// HEADs and GETs raced their PUT and DELETE and found nothing.) Spread,
// the i-th of a second's n requests is due at i/n of it.
func TestReplayKeepsTheOrderWithinASecond(t *testing.T) {
	srv := startFaults(t, faultserver.Config{Seed: 3, Delay: faultserver.Delay{Base: 20 * time.Millisecond, Jitter: 100 * time.Millisecond}})
	dir := t.TempDir()
	t0 := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	var lines []string
	for i := range 10 {
		k := fmt.Sprintf("k%d", i)
		lines = append(lines, accessLogLine(t0, 0, "REST.PUT.OBJECT", k, 1000), accessLogLine(t0, 0, "REST.HEAD.OBJECT", k, 1000))
	}
	for i := range 10 {
		k := fmt.Sprintf("k%d", i)
		lines = append(lines, accessLogLine(t0, 1, "REST.GET.OBJECT", k, 1000), accessLogLine(t0, 1, "REST.DELETE.OBJECT", k, 0))
	}
	if err := os.WriteFile(filepath.Join(dir, "access.log"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, burst := range []bool{false, true} {
		t.Run(fmt.Sprintf("burst=%v", burst), func(t *testing.T) {
			name := fmt.Sprintf("burst-%v", burst)
			args := []string{"replay", "access.log", "--endpoint-url", srv.Endpoint(), "--bucket", srv.Bucket(),
				"--op-log", name + ".jsonl", "-o", name + ".json"}
			if burst {
				args = append(args, "--burst")
			}
			r := objbench(t, dir, faultEnv, args...).mustSucceed(t)
			res := readResult(t, filepath.Join(dir, name+".json"))
			if errs := errorsOf(res); len(errs) != 0 {
				t.Errorf("errors %v, want none: the log's order per key was not kept\n%s", errs, r.stdout)
			}
			rp := res.Replay
			if rp == nil || rp.Issued != 40 || rp.Prepared != 0 || rp.Loop != "open" || rp.Burst != burst {
				t.Fatalf("replay record %+v: want 40 requests, nothing prepared, open loop, burst %v", rp, burst)
			}
			if burst && rp.Held == 0 {
				t.Errorf("as a burst, no request waited for the one before it on its key: %+v", rp)
			}
			recs := mainRecords(t, filepath.Join(dir, name+".jsonl"))
			if len(recs) != 40 {
				t.Fatalf("%d ops in the replay's op log, want 40", len(recs))
			}
			origin := recs[0].Intended
			for _, r := range recs {
				origin = minTime(origin, r.Intended)
			}
			byKey := map[string][]oplog.Record{}
			for _, r := range recs {
				k := r.Key[strings.LastIndex(r.Key, "/")+1:]
				byKey[k] = append(byKey[k], r)
			}
			want := []string{"PUT", "STAT", "GET", "DELETE"}
			for i := range 10 {
				k := fmt.Sprintf("k%d", i)
				ops := byKey[k]
				var got []string
				for j, r := range ops {
					got = append(got, r.Op.String())
					if j > 0 {
						prev := ops[j-1]
						if end := prev.Start.Add(prev.Latency); r.Start.Before(end) {
							t.Errorf("%s: %s started %v before the %s before it ended", k, r.Op, end.Sub(r.Start), prev.Op)
						}
					}
					// Due: spread, the i-th of the second's 20 at i/20 of
					// it; as a burst, at the second.
					n := 2*i + j%2
					due := time.Duration(j/2) * time.Second
					if !burst {
						due += time.Duration(n) * time.Second / 20
					}
					if at := r.Intended.Sub(origin); at != due {
						t.Errorf("%s %s due at %v, want %v", k, r.Op, at, due)
					}
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("%s: ops %v, want %v", k, got, want)
				}
			}
		})
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// objbench's own op log of a closed-loop mixed run on a store of known
// latency (20 ms a request) replays as the run went: closed loop on its 4
// workers, the same ops on the same keys, no error the run did not have,
// and (paced by the log, never ahead of it) at its rate. Before, the
// replay went open loop: it grew hundreds of workers, and GETs and STATs
// of keys just written or deleted failed as 404s.
func TestReplayOfAnOpLogReproducesTheRun(t *testing.T) {
	srv := startFaults(t, faultserver.Config{Delay: faultserver.Delay{Base: 20 * time.Millisecond}})
	dir := t.TempDir()
	conn := []string{"--endpoint-url", srv.Endpoint(), "--bucket", srv.Bucket()}
	objbench(t, dir, faultEnv, append([]string{"mixed", "-c", "4", "--ops", "400", "--objects", "40", "--size", "8KiB",
		"--op-log", "run.jsonl.zst", "-o", "run.json"}, conn...)...).mustSucceed(t)
	r := objbench(t, dir, faultEnv, append([]string{"replay", "run.jsonl.zst", "--op-log", "replay.jsonl.zst", "-o", "replay.json"}, conn...)...).mustSucceed(t)
	run, rep := readResult(t, filepath.Join(dir, "run.json")), readResult(t, filepath.Join(dir, "replay.json"))
	if errs := errorsOf(run); len(errs) != 0 {
		t.Fatalf("the run itself had errors %v: no clean log to replay", errs)
	}
	if errs := errorsOf(rep); len(errs) != 0 {
		t.Errorf("the replay had errors %v, the run none\n%s", errs, r.stdout)
	}
	if rp := rep.Replay; rp == nil || rp.Issued != 400 || rp.Loop != "closed" || rp.LogConcurrency != 4 || !strings.Contains(r.stderr, "closed loop: 4 workers") {
		t.Errorf("replay record %+v, stderr:\n%s\nwant 400 requests, closed loop on the log's 4 workers", rp, r.stderr)
	}
	for _, s := range rep.Steps {
		if s.Kind == result.KindMain && (len(s.Streams) != 1 || s.Streams[0].Concurrency != 4 || s.Streams[0].PeakWorkers > 4) {
			t.Errorf("the replay's main step ran %+v workers, want the log's 4", s.Streams)
		}
	}
	for _, op := range []string{"PUT", "GET", "STAT", "DELETE", "LIST"} {
		a, _, _ := mainOps(run, op)
		b, _, _ := mainOps(rep, op)
		if a != b {
			t.Errorf("%s: %d in the run, %d in the replay", op, a, b)
		}
	}
	orig, replayed := mainRecords(t, filepath.Join(dir, "run.jsonl.zst")), mainRecords(t, filepath.Join(dir, "replay.jsonl.zst"))
	ns := rep.Target.Namespace + "replay/"
	count := map[string]int{}
	for _, o := range orig {
		count[o.Op.String()+" "+o.Key]++
	}
	for _, o := range replayed {
		count[o.Op.String()+" "+strings.TrimPrefix(o.Key, ns)]--
	}
	for k, n := range count {
		if n != 0 {
			t.Errorf("%s: %d more in the run than in the replay", k, n)
		}
	}
	span := func(recs []oplog.Record) time.Duration { return recs[len(recs)-1].Start.Sub(recs[0].Start) }
	ratio := float64(span(orig)) / float64(span(replayed)) // the replay's rate over the run's
	t.Logf("the run's %d requests spanned %v, the replay's %v: %.1f%% of the run's rate", len(orig), span(orig), span(replayed), 100*ratio)
	// Paced by the log, the replay is never ahead of it; behind it only
	// by what this machine's stalls added, which every op's 20 ms at the
	// server keeps small: 77% at load 20 with 10 ms (bench/replay.sh
	// measures the rate; docs/replay.md has its figures).
	if ratio > 1.02 || ratio < 0.5 {
		t.Errorf("the replay ran at %.1f%% of the run's rate, want 50%% to 102%%", 100*ratio)
	}
}
