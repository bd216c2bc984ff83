package studies

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/objbench/objbench/report"
	"github.com/objbench/objbench/result"
)

// StorageSystems is seed 002's table: for each target and fsync mode, each
// main step's object size (KB, MB: powers of 1000, as the seed writes
// them), files written, wall time and KB/s (1 KB = 1000 B) over the
// step's window, ops/s and p99.
func StorageSystems(runs []*result.Run) (Table, error) {
	t := Table{Title: "seed 002: tiny against large writes, by storage system, without and with fsync",
		Columns: []string{"STORAGE", "FSYNC", "STEP", "SIZE", "FILES", "TIME (s)", "KB/s", "OPS/S", "P99 (ms)"},
		Notes:   []string{"TIME is the step's wall time (the final sync included with fsync at-end); KB/s (1 KB = 1000 B) and OPS/S over its window, as objbench's own tables state them"}}
	short := false
	for _, r := range runs {
		mode := fsyncOf(r)
		for i := range r.Steps {
			st := &r.Steps[i]
			if st.Kind != result.KindMain {
				continue
			}
			for _, s := range st.Streams {
				for _, op := range s.Totals {
					if op.Op != "PUT" || op.OK == 0 {
						continue
					}
					kbs, ops := strconv.FormatFloat(op.BytesPerSec/1000, 'f', 0, 64), strconv.FormatFloat(op.OpsPerSec, 'f', 1, 64)
					if report.TooShortToRate(op) {
						kbs, ops, short = "too short", "to rate", true
					}
					t.Rows = append(t.Rows, []string{r.Target.Label(), mode, st.Stage, decimal(float64(op.Bytes) / float64(op.OK)),
						strconv.FormatInt(op.OK, 10), fmt.Sprintf("%.3f", st.Elapsed.Seconds()), kbs, ops, ms(op.Latency.P99)})
				}
			}
		}
	}
	if len(t.Rows) == 0 {
		return t, fmt.Errorf("no main-stage PUT in these result files")
	}
	if short {
		t.Notes = append(t.Notes, report.TooShortNote)
	}
	return t, nil
}

// fsyncOf reads the fsync mode of a run's first main stream from its
// workload (none, per-file, at-end).
func fsyncOf(r *result.Run) string {
	var sp struct {
		Stages []struct {
			Kind    string `json:"kind"`
			Streams []struct {
				Fsync     bool `json:"fsync"`
				SyncAtEnd bool `json:"sync_at_end"`
			} `json:"streams"`
		} `json:"stages"`
	}
	if json.Unmarshal(r.Spec, &sp) != nil {
		return "?"
	}
	for _, st := range sp.Stages {
		if st.Kind == result.KindMain && len(st.Streams) > 0 {
			switch s := st.Streams[0]; {
			case s.SyncAtEnd:
				return "at-end"
			case s.Fsync:
				return "per-file"
			}
			return "none"
		}
	}
	return "?"
}

// decimal formats a size in powers of 1000: "4 KB", "10 MB".
func decimal(v float64) string {
	for _, u := range []string{"B", "KB", "MB", "GB"} {
		if v < 1000 || u == "GB" {
			return strconv.FormatFloat(v, 'g', 3, 64) + " " + u
		}
		v /= 1000
	}
	return "-"
}

// ms formats microseconds as milliseconds, three significant digits.
func ms(us int64) string {
	if us <= 0 {
		return "-"
	}
	return strconv.FormatFloat(float64(us)/1000, 'g', 3, 64)
}
