package loadgen_test

import (
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/workload"
)

// Three workers prepare one git corpus, each its share, handed out one
// item at a time (never listed into memory): every blob is written once,
// by one worker, and every worker's GETs also read the others' blobs, all
// found.
func TestWorkersPrepareACorpusOnce(t *testing.T) {
	const n, blobs = 3, 31
	repo := testenv.GitBlobs(t, blobs, 100)
	l := newLedger()
	sp := spec(workload.Stream{Name: "c", Concurrency: []int{6}, Bounds: workload.Bounds{Ops: 300, Duration: 20 * time.Second},
		Mix: []workload.OpWeight{{Op: "get", Weight: 1}}, Objects: workload.KeySpace{Prefix: "c/", Source: "git:" + repo}})
	outs, errs := runWorkers(t, l, sp, n)
	for w := range n {
		if errs[w] != nil {
			t.Fatalf("worker %d: %v", w, errs[w])
		}
		if g := total(t, outs[w].Steps[1], "GET"); g.OK != g.Ops || g.Ops != 100 {
			t.Errorf("worker %d: %d GETs, %d ok; want its 100, all ok", w, g.Ops, g.OK)
		}
	}
	written := 0
	for k, by := range l.writes {
		if !strings.HasPrefix(k, ns+"c/") {
			continue
		}
		written++
		if len(by) != 1 || len(k) != len(ns+"c/")+40 {
			t.Errorf("%s written by workers %v, want one blob id written once", k, by)
		}
	}
	foreign := 0
	for k, readers := range l.reads {
		for _, r := range readers {
			if l.writes[k][0] != r {
				foreign++
			}
		}
	}
	if written != blobs || foreign == 0 {
		t.Errorf("%d blobs written, want %d; %d reads of another worker's blob", written, blobs, foreign)
	}
}
