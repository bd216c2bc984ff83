package cosbenchcsv

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/objbench/objbench/result"
)

// column is one operation of one work in a stage's timeline.
type column struct {
	name string
	step int                       // which of the stage's steps it ran in
	secs map[int64]result.OpSecond // by second of that step
}

// writeStage writes a stage's timeline CSV (CSVStageExporter): a row per
// snapshot, here per second (objbench records every second, where
// COSBench snapshots every interval), each of the seven metrics for every
// operation of every work, then the snapshot's versions. A stage without
// operations gets an empty file, as COSBench's does. The steps of a
// stage follow one another, each with its own columns.
func writeStage(w io.Writer, s stage) error {
	cols := timeline(s)
	if len(cols) == 0 {
		return nil
	}
	cw := csv.NewWriter(w)
	metrics := []string{"Op-Count", "Byte-Count", "Avg-ResTime", "Avg-ProcTime", "Throughput", "Bandwidth", "Succ-Ratio"}
	head := []string{"Timestamp"}
	for _, m := range metrics {
		head = append(head, m)
		head = append(head, make([]string, len(cols)-1)...)
	}
	head = append(head, "Version-Info", "", "")
	sub := []string{""}
	for range metrics {
		for _, c := range cols {
			sub = append(sub, c.name)
		}
	}
	if err := cw.WriteAll([][]string{head, append(sub, "Min-Version", "Version", "Max-Version")}); err != nil {
		return err
	}
	version := 0
	for k, st := range s.steps {
		first, last := int64(1<<62), int64(-1)
		for _, c := range cols {
			for t := range c.secs {
				if c.step == k {
					first, last = min(first, t), max(last, t)
				}
			}
		}
		for t := first; t <= last; t++ {
			rec, err := stageRow(st, k, cols, t)
			if err != nil {
				return err
			}
			version++
			v := strconv.Itoa(version)
			if err := cw.Write(append(rec, v, v, v)); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// timeline gathers the operations of the stage's steps with the seconds
// each ran in.
func timeline(s stage) (cols []column) {
	for k, st := range s.steps {
		for _, sr := range st.Streams {
			index := map[string]int{}
			for _, t := range sr.Totals { // the table's order of ops
				name, _ := opName(st.Kind, t.Op)
				index[t.Op] = len(cols)
				cols = append(cols, column{name: name, step: k, secs: map[int64]result.OpSecond{}})
			}
			for _, sec := range sr.Seconds {
				for _, o := range sec.Ops {
					if i, ok := index[o.Op]; ok {
						cols[i].secs[sec.T] = o
					}
				}
			}
		}
	}
	return cols
}

// stageRow is second t of step k's snapshot: its end as the time of
// day, then each metric of each column (those of the other steps empty).
func stageRow(st *result.Step, k int, cols []column, t int64) ([]string, error) {
	rec := []string{st.Start.Add(time.Duration(t+1) * time.Second).Local().Format(timeLayout)}
	vals := make([][]string, 7)
	for _, c := range cols {
		o, ok := c.secs[t]
		if c.step != k {
			o, ok = result.OpSecond{}, false
		}
		ok64 := o.OK()
		res, proc, err := secondMeans(o)
		if err != nil {
			return nil, fmt.Errorf("%s second %d: %w", st.Stage, t, err)
		}
		ratioVal := 0.0
		if ok && o.Ops > 0 {
			ratioVal = float64(ok64) / float64(o.Ops)
		}
		vals[0] = append(vals[0], strconv.FormatInt(ok64, 10))
		vals[1] = append(vals[1], strconv.FormatInt(o.Bytes, 10))
		vals[2] = append(vals[2], orNA(res, num))
		vals[3] = append(vals[3], orNA(proc, num))
		vals[4] = append(vals[4], num(float64(ok64)))
		vals[5] = append(vals[5], num(float64(o.Bytes)))
		vals[6] = append(vals[6], orNA(ratioVal, ratio))
	}
	for _, v := range vals {
		rec = append(rec, v...)
	}
	return rec, nil
}

// secondMeans are a second's average response and processing times (ms).
func secondMeans(o result.OpSecond) (res, proc float64, err error) {
	if o.Latency == "" {
		return 0, 0, nil
	}
	h, err := result.DecodeHistogram(o.Latency)
	if err != nil {
		return 0, 0, err
	}
	res, proc = h.Mean()/1000, h.Mean()/1000
	if o.TTFB != "" {
		t, err := result.DecodeHistogram(o.TTFB)
		if err != nil {
			return 0, 0, err
		}
		if t.TotalCount() > 0 {
			proc = t.Mean() / 1000
		}
	}
	return res, proc, nil
}
