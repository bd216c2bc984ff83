package loadgen_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage/mem"
	"github.com/objbench/objbench/workload"
)

// OnSecond sees each finished second of the main step while it runs, once
// each and in order, with the same ops the result then records, and the
// seconds that end with the step.
func TestOnSecondSeesSecondsAsTheyFinish(t *testing.T) {
	sp := spec(workload.Stream{Name: "g", Mix: []workload.OpWeight{{Op: "get", Weight: 1}}, Concurrency: []int{2},
		Bounds: workload.Bounds{Duration: 3500 * time.Millisecond}, Objects: workload.KeySpace{Prefix: "g/", Count: 10}, Size: 1024})
	cfg := config(t, mem.New(), sp)
	var mu sync.Mutex
	seen := map[string][]result.Second{}
	inMain := false
	cfg.OnStep = func(st workload.Stage, _ int) { // keep only the main step's seconds
		mu.Lock()
		defer mu.Unlock()
		inMain = st.Kind == result.KindMain
	}
	cfg.OnSecond = func(stream string, s result.Second) {
		mu.Lock()
		defer mu.Unlock()
		if inMain {
			seen[stream] = append(seen[stream], s)
		}
	}
	out, err := loadgen.Run(context.Background(), cfg)
	mu.Lock()
	defer mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	got := seen["g"]
	if len(got) < 2 {
		t.Fatalf("OnSecond saw %d seconds of a 3.5 s step, want at least 2", len(got))
	}
	final := out.Steps[1].Streams[0].Seconds
	if len(got) != len(final) {
		t.Fatalf("OnSecond saw %d seconds, the result records %d: want every second, the last ones too", len(got), len(final))
	}
	for i, s := range got {
		if s.T != int64(i) {
			t.Fatalf("second %d reported as T=%d: want each second once, in order", i, s.T)
		}
		if len(s.Ops) != 1 || s.Ops[0].Ops != final[i].Ops[0].Ops || s.Ops[0].Latency != final[i].Ops[0].Latency {
			t.Errorf("second %d: live %+v, recorded %+v", i, s.Ops, final[i].Ops)
		}
	}
}
