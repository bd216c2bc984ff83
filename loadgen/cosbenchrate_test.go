package loadgen_test

import (
	"context"
	"io"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/oplog"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/mem"
	"github.com/objbench/objbench/workload"
)

// opLog keeps every op of a run, as the op log writes it.
type opLog struct {
	mu   sync.Mutex
	recs []oplog.Record
}

func (l *opLog) Record(worker int, rec *oplog.Record) {
	l.mu.Lock()
	r := *rec
	r.Worker = worker
	l.recs = append(l.recs, r)
	l.mu.Unlock()
}

// unevenStore answers GETs of keys ending in 1 slowly, so workers' windows
// differ.
type unevenStore struct{ storage.Store }

func (s unevenStore) Get(ctx context.Context, key string, o storage.GetOptions, w io.Writer) (int64, error) {
	d := time.Millisecond
	if strings.HasSuffix(key, "1") {
		d = 20 * time.Millisecond // the store's latency, not a synchronisation
	}
	time.Sleep(d)
	return s.Store.Get(ctx, key, o, w)
}

// TestCOSBenchRatesAreEachWorkersOwn: a stream's COSBench rates are each
// worker's successful ops (bytes) over its own window, from the start of
// its first op to the end of its last, summed over the workers
// (dev/cosbench-driver/src/com/intel/cosbench/driver/agent/WorkAgent.java,
// doSummary: window = lrsample - frsample; dev/cosbench-core/src/com/intel/
// cosbench/bench/Metrics.java, convert: sampleCount / window; Aggregator.java,
// getThroughput: the sum over workers), checked against the op log's
// starts and latencies, worker by worker, for prepare and main.
func TestCOSBenchRatesAreEachWorkersOwn(t *testing.T) {
	log := &opLog{}
	sp := spec(workload.Stream{Name: "g", Mix: []workload.OpWeight{{Op: "get", Weight: 1}}, Concurrency: []int{3},
		Bounds: workload.Bounds{Ops: 60, PerWorker: true}, Objects: workload.KeySpace{Prefix: "g/", Count: 40}, Size: 1000})
	cfg := config(t, unevenStore{mem.New()}, sp)
	cfg.OpLog = log
	out, err := loadgen.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	type span struct {
		first, last time.Time
		ok          map[string]int64
		bytes       map[string]int64
	}
	spans := map[[2]string]map[int]*span{} // step, op -> worker -> span
	for _, r := range log.recs {
		k := [2]string{r.Step, r.Op.String()}
		if spans[k] == nil {
			spans[k] = map[int]*span{}
		}
		s := spans[k][r.Worker]
		if s == nil {
			s = &span{first: r.Start, ok: map[string]int64{}, bytes: map[string]int64{}}
			spans[k][r.Worker] = s
		}
		if end := r.Start.Add(r.Latency); end.After(s.last) {
			s.last = end
		}
		if r.Class == "" {
			s.ok[r.Op.String()]++
			s.bytes[r.Op.String()] += r.Size
		}
	}
	for _, step := range out.Steps[:2] {
		st := step.Streams[0]
		tot := st.Totals[0]
		var ops, bytes float64
		for _, s := range spans[[2]string{step.Stage, tot.Op}] {
			w := s.last.Sub(s.first).Seconds()
			ops += float64(s.ok[tot.Op]) / w
			bytes += float64(s.bytes[tot.Op]) / w
		}
		got, ok := st.COSBenchRateOf(tot.Op)
		if !ok || math.Abs(got.OpsPerSec-ops) > 1e-9*ops || math.Abs(got.BytesPerSec-bytes) > 1e-9*bytes {
			t.Errorf("%s %s: COSBench rates %+v, want %.3f op/s and %.1f B/s from the op log", step.Stage, tot.Op, got, ops, bytes)
		}
		t.Logf("%s %s: %.1f op/s by COSBench's formula, %.1f by objbench's common window", step.Stage, tot.Op, got.OpsPerSec, tot.OpsPerSec)
	}
}
