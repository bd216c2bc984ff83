package cosbenchcsv

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/objbench/objbench/atomicfile"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/workload"
)

var historyHeader = []string{"Id", "Name", "Submitted-At", "Started-At", "Stopped-At", "Op-Info", "State", "Detailed State"}

// Write writes r as COSBench's archive does under dir: a row appended to
// dir/run-history.csv, and in dir/ID-NAME/ the workload CSV (ID-NAME.csv),
// the response-time histogram (ID-NAME-rt-histogram.csv) and one timeline
// per stage (s1-init.csv, ...). ID is the next of COSBench's w1, w2, ...
// in run-history.csv. It returns the run's directory. Each file is written
// whole or not at all; the run's directory is new (never overwritten).
func Write(dir string, r *result.Run) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	histPath := filepath.Join(dir, "run-history.csv")
	old, err := os.ReadFile(histPath)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	id := "w" + strconv.Itoa(nextID(old))
	name := workloadName(r)
	runDir := filepath.Join(dir, id+"-"+safeName(name))
	if err := os.Mkdir(runDir, 0o755); err != nil {
		return "", fmt.Errorf("%s: %w (run-history.csv and the run directories disagree)", runDir, err)
	}
	stages := stagesOf(r)
	files := map[string]func(io.Writer) error{
		id + "-" + safeName(name) + ".csv":              func(w io.Writer) error { return writeWorkload(w, stages) },
		id + "-" + safeName(name) + "-rt-histogram.csv": func(w io.Writer) error { return writeHistogram(w, stages) },
	}
	for _, s := range stages {
		files[s.id+".csv"] = func(w io.Writer) error { return writeStage(w, s) }
	}
	for file, fn := range files {
		if err := atomicfile.Write(filepath.Join(runDir, file), 0o644, fn); err != nil {
			return "", fmt.Errorf("%s: %w", file, err)
		}
	}
	return runDir, appendHistory(histPath, old, id, name, r)
}

// appendHistory adds the run's row to run-history.csv (rewritten whole).
func appendHistory(path string, old []byte, id, name string, r *result.Run) error {
	return atomicfile.Write(path, 0o644, func(w io.Writer) error {
		if len(bytes.TrimSpace(old)) == 0 {
			if err := historyRow(w, historyHeader); err != nil {
				return err
			}
		} else {
			if _, err := w.Write(old); err != nil {
				return err
			}
			if old[len(old)-1] != '\n' {
				if _, err := w.Write([]byte{'\n'}); err != nil {
					return err
				}
			}
		}
		state := workloadState(r)
		rec := []string{id, name, dateTime(r.Started), dateTime(r.Started), dateTime(r.Finished), strings.Join(opInfo(r), " "), state,
			"processing @ " + dateTime(r.Started), state + " @ " + dateTime(r.Finished)}
		return historyRow(w, rec)
	})
}

func historyRow(w io.Writer, rec []string) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(rec); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// nextID is one more than the largest wN in a run-history.csv.
func nextID(history []byte) int {
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(history))
	for sc.Scan() {
		id, _, _ := strings.Cut(sc.Text(), ",")
		if v, err := strconv.Atoi(strings.TrimPrefix(id, "w")); err == nil && strings.HasPrefix(id, "w") {
			n = max(n, v)
		}
	}
	return n + 1
}

func workloadName(r *result.Run) string {
	if sp := specOf(r); sp != nil && sp.Name != "" {
		return sp.Name
	}
	return "objbench"
}

// workloadState is the run's end in COSBench's words.
func workloadState(r *result.Run) string {
	switch {
	case r.Interrupted:
		return "cancelled"
	case r.Aborted != "":
		return "terminated"
	case len(r.FailedWorks()) > 0 || len(r.FailedMainSteps()) > 0:
		return "failed"
	}
	return "finished"
}

// opInfo lists the operation types of the workload (COSBench's Op-Info):
// init, prepare, read, write, cleanup, dispose... in order of appearance.
func opInfo(r *result.Run) []string {
	var out []string
	add := func(s string) {
		for _, o := range out {
			if o == s {
				return
			}
		}
		out = append(out, s)
	}
	sp := specOf(r)
	if sp == nil {
		return nil
	}
	for _, st := range sp.Stages {
		switch string(st.Kind) {
		case result.KindMain:
			for _, s := range st.Streams {
				for _, m := range s.Mix {
					op, _ := workload.CanonicalOp(m.Op)
					name, _ := opName(string(st.Kind), strings.ToUpper(op))
					add(name)
				}
			}
		case result.KindDelay:
		default:
			add(string(st.Kind))
		}
	}
	return out
}
