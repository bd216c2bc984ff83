package synth_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/objbench/objbench/oplog"
	"github.com/objbench/objbench/replay"
	"github.com/objbench/objbench/replay/synth"
	"github.com/objbench/objbench/workload"
)

// TestOpLogToWorkloadFile: an open-loop op log written by oplog, read
// back by replay, synthesized and written as a file objbench run takes.
func TestOpLogToWorkloadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ops.jsonl.zst")
	w, err := oplog.Create(path, oplog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	k := known{rate: 200, seconds: 60, exp: 1.3, dataKeys: 2000, writtenKeys: 300, rawShare: 0.1, mix: standardMix}
	i := 0
	k.generate(9, func(r *replay.Record) {
		i++
		w.Record(i%8, &oplog.Record{Start: r.Start, Intended: r.Start, Op: r.Op, Bucket: r.Bucket, Key: r.Key, Size: r.Size,
			Range: r.Range, Status: r.Status, Latency: r.Latency, Stream: "main"})
	})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rd, err := replay.Open([]string{path}, replay.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	p := synth.New(synth.Options{})
	for rd.Next() {
		p.Add(rd.Record())
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	res, err := p.Workload(synth.WorkloadOptions{Name: "from-oplog", Duration: 10 * time.Second, RateFactor: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Summary.OpenLoop || res.Summary.Records != int64(i) {
		t.Errorf("open loop %v, %d records of %d", res.Summary.OpenLoop, res.Summary.Records, i)
	}
	near(t, "exponent", res.Summary.Reads.Exponent, 1.3, 0.1)
	var total float64
	for _, s := range res.Spec.Stages[1].Streams {
		total += s.Rate.PerSec
		if s.Bounds.Duration != 10*time.Second {
			t.Errorf("stream %s runs %v, want the 10s asked", s.Name, s.Bounds.Duration)
		}
	}
	near(t, "rate at half speed", total, 100, 5)
	var buf bytes.Buffer
	if err := synth.WriteYAML(&buf, res); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "w.yaml")
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(out)
	if _, _, err := workload.Decode(out, data); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	roundTrip(t, res)
}
