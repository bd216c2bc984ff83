package workload_test

import (
	"strings"
	"testing"

	"github.com/objbench/objbench/workload"
)

func TestPerTargetCounts(t *testing.T) {
	sp, _, err := workload.Decode("w.yaml", []byte(`stages:
  - name: tiny
    kind: main
    total_ops: 500000
    per_target: {s3: {total_ops: 500}, "file:///mnt/ebs": {total_ops: 1000, duration: 1m}}
    ops: {write: 100}
    objects: {prefix: t/}
    size: 4KB
`))
	if err != nil {
		t.Fatal(err)
	}
	ops := func(sp workload.Spec) workload.Bounds { return sp.Stages[0].Streams[0].Bounds }
	for _, c := range []struct {
		url, kind string
		want      workload.Bounds
	}{
		{"file:///mnt/nvme", "fs", workload.Bounds{Ops: 500000}},
		{"file:///mnt/ebs", "fs", workload.Bounds{Ops: 1000, Duration: 60e9}},
		{"s3://bench", "s3", workload.Bounds{Ops: 500}},
		{"", "s3", workload.Bounds{Ops: 500}},
	} {
		if got := ops(sp.ForTarget(c.url, c.kind)); got != c.want {
			t.Errorf("%s (%s): %+v, want %+v", c.url, c.kind, got, c.want)
		}
	}
	if got := ops(sp); got.Ops != 500000 {
		t.Errorf("ForTarget changed the spec it was called on: %+v", got)
	}
	if got := sp.Scale(0.01).ForTarget("s3://b", "s3"); ops(got).Ops != 5 {
		t.Errorf("scaled per-target count: %+v", ops(got))
	}
	_, _, err = workload.Decode("bad.yaml", []byte(`stages:
  - kind: main
    total_ops: 10
    per_target: {nfs: {total_ops: 5}, s3: {ops: 3}, fs: {}}
    ops: {write: 100}
`))
	for _, want := range []string{`"nfs" is no target`, `unknown field "ops"`, "give total_ops, total_bytes or duration"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("bad per_target: want %q in %v", want, err)
		}
	}
}

func TestWithFsyncOverridesTheFile(t *testing.T) {
	sp, _, err := workload.Decode("w.yaml", []byte(`stages:
  - {kind: prepare, objects: {prefix: p/, count: 10}, size: 4KB, fsync: per-file}
  - {kind: main, total_ops: 10, ops: {write: 100}, objects: {prefix: m/}, size: 4KB}
  - {kind: cleanup}
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []workload.FsyncMode{workload.FsyncAtEnd, workload.FsyncNone, workload.FsyncPerFile} {
		got := sp.WithFsync(m)
		for _, i := range []int{0, 1} {
			if s := got.Stages[i].Streams[0]; workload.FsyncOf(s) != m {
				t.Errorf("stage %d with %v: %v", i, m, workload.FsyncOf(s))
			}
		}
	}
	if workload.FsyncOf(sp.Stages[0].Streams[0]) != workload.FsyncPerFile {
		t.Error("WithFsync changed the spec it was called on")
	}
}
