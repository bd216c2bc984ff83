package synth_test

import (
	"bytes"
	"encoding/json"
	"github.com/objbench/objbench/oplog"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/replay"
	"github.com/objbench/objbench/replay/synth"
	"github.com/objbench/objbench/units"
	"github.com/objbench/objbench/workload"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// known is a workload whose parameters the test knows: Poisson arrivals
// at rate per second, reads of data keys by zipf(exp) over dataKeys,
// writes of writtenKeys uniformly, a share of GETs re-reading keys
// written earlier, GET sizes from three groups and PUTs of one size.
type known struct {
	rate        float64
	seconds     float64
	exp         float64 // 0: uniform reads
	dataKeys    int
	writtenKeys int
	rawShare    float64 // of GETs
	mix         map[metrics.Op]float64
}

var dataSizes = []struct {
	share  float64
	lo, hi int64
}{{0.3, 4096, 4096}, {0.5, 64 << 10, 128<<10 - 1}, {0.2, 1 << 20, 1 << 20}}

func (k known) generate(seed uint64, add func(*replay.Record)) {
	rng := rand.New(rand.NewPCG(seed, 7))
	var zipf *rand.Zipf
	if k.exp > 1 {
		zipf = rand.NewZipf(rng, k.exp, 1, uint64(k.dataKeys-1))
	}
	cum := powerCDF(k.dataKeys, k.exp)
	dataKey := func() int {
		if zipf != nil {
			return int(zipf.Uint64())
		}
		u := rng.Float64()
		lo, hi := 0, len(cum)-1
		for lo < hi {
			if mid := (lo + hi) / 2; cum[mid] < u {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		return lo
	}
	var written []int
	t := t0
	end := t0.Add(time.Duration(k.seconds * float64(time.Second)))
	for {
		t = t.Add(time.Duration(rng.ExpFloat64() / k.rate * float64(time.Second)))
		if t.After(end) {
			return
		}
		r := replay.Record{Record: oplog.Record{Start: t, Bucket: "prod", Status: 200, Latency: 5 * time.Millisecond, Worker: -1}}
		r.Op = pick(rng, k.mix)
		switch r.Op {
		case metrics.OpGet, metrics.OpStat, metrics.OpRangeGet:
			i := dataKey()
			r.Key, r.Size = "objects/"+strconv.Itoa(i), sizeOf(i)
			if r.Op == metrics.OpGet && len(written) > 0 && rng.Float64() < k.rawShare {
				r.Key, r.Size = "uploads/"+strconv.Itoa(written[rng.IntN(len(written))]), 256<<10
			}
			if r.Op == metrics.OpRangeGet {
				r.Range.Offset, r.Range.Length = 0, 16<<10
			}
		case metrics.OpPut:
			i := rng.IntN(k.writtenKeys)
			r.Key, r.Size = "uploads/"+strconv.Itoa(i), 256<<10
			written = append(written, i)
		case metrics.OpDelete:
			r.Key = "uploads/" + strconv.Itoa(rng.IntN(k.writtenKeys))
		}
		add(&r)
	}
}

// sizeOf gives data key i its size, by the groups of dataSizes.
func sizeOf(i int) int64 {
	u := float64(uint64(i)*0x9e3779b97f4a7c15>>11) / (1 << 53)
	for _, g := range dataSizes {
		if u < g.share {
			return g.lo + int64(u/g.share*float64(g.hi-g.lo))
		}
		u -= g.share
	}
	return dataSizes[0].lo
}

func powerCDF(n int, s float64) []float64 {
	cum := make([]float64, n)
	var t float64
	for i := range n {
		t += math.Pow(float64(i+1), -s)
		cum[i] = t
	}
	for i := range cum {
		cum[i] /= t
	}
	return cum
}

func pick(rng *rand.Rand, mix map[metrics.Op]float64) metrics.Op {
	u := rng.Float64()
	for op := metrics.Op(0); op < metrics.NumOps; op++ {
		if u < mix[op] {
			return op
		}
		u -= mix[op]
	}
	return metrics.OpGet
}

var standardMix = map[metrics.Op]float64{metrics.OpGet: 0.6, metrics.OpStat: 0.1, metrics.OpRangeGet: 0.05, metrics.OpPut: 0.2, metrics.OpDelete: 0.05}

func synthesize(t *testing.T, k known, o synth.Options) synth.Result {
	res, _ := synthesizeTally(t, k, o)
	return res
}

// synthesizeTally also returns the shares of dataSizes' groups among the
// reads of data keys the trace made.
func synthesizeTally(t *testing.T, k known, o synth.Options) (synth.Result, []float64) {
	t.Helper()
	p := synth.New(o)
	share := make([]float64, len(dataSizes))
	var reads float64
	k.generate(1, func(r *replay.Record) {
		if strings.HasPrefix(r.Key, "objects/") {
			reads++
			for i, g := range dataSizes {
				if r.Size >= g.lo && r.Size <= g.hi {
					share[i]++
				}
			}
		}
		p.Add(r)
	})
	for i := range share {
		share[i] /= reads
	}
	res, err := p.Workload(synth.WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return res, share
}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.4g, want %.4g ± %.3g", what, got, want, tol)
	}
}

func TestSynthesisGetsTheKnownWorkloadBack(t *testing.T) {
	k := known{rate: 500, seconds: 120, exp: 1.2, dataKeys: 5000, writtenKeys: 1000, rawShare: 0.25, mix: standardMix}
	res, sizeShares := synthesizeTally(t, k, synth.Options{})
	s := res.Summary
	for op, share := range k.mix {
		near(t, op.String()+" share", float64(s.Ops[op])/float64(s.Records), share, 0.01)
	}
	near(t, "mean rate", s.Rate.Mean, k.rate, 0.03*k.rate)
	near(t, "per-second dispersion", s.Rate.Dispersion, 1, 0.3)
	near(t, "read popularity exponent", s.Reads.Exponent, k.exp, 0.05)
	if s.Reads.Uniform || !s.Writes.Uniform {
		t.Errorf("reads uniform %v (want false), writes uniform %v (want true)", s.Reads.Uniform, s.Writes.Uniform)
	}
	// GETs re-read written keys at rawShare; all reads: GET+STAT+RANGE-GET.
	near(t, "read-after-write share", s.RAWShare, k.rawShare*0.6/0.75, 0.02)
	if s.Keys < int64(k.writtenKeys) || s.Keys > int64(k.dataKeys+k.writtenKeys) || s.SampledOneIn != 1 {
		t.Errorf("working set %d keys (sampled 1 in %d), want between %d and %d, exact", s.Keys, s.SampledOneIn, k.writtenKeys, k.dataKeys+k.writtenKeys)
	}

	main, raw := res.Spec.Stages[1].Streams[0], res.Spec.Stages[1].Streams[1]
	if main.Rate == nil || raw.Rate == nil || main.Rate.Arrival != workload.ArrivalPoisson {
		t.Fatalf("main stage streams are not open loop at poisson arrivals: %+v, %+v", main.Rate, raw.Rate)
	}
	near(t, "rate of both streams", main.Rate.PerSec+raw.Rate.PerSec, k.rate, 0.03*k.rate)
	if idx := main.Objects.Index; idx.Kind != workload.SelZipf || math.Abs(idx.Exp-k.exp) > 0.05 {
		t.Errorf("data key selector %s, want zipf with exponent %.2f ± 0.05", idx, k.exp)
	}
	checkSizes(t, main.Sizes(), sizeShares)
	weights := map[string]int{}
	for _, m := range main.Mix {
		weights[m.Op] = m.Weight
		if m.Op == workload.OpPut && (m.SizeDist == nil || m.SizeDist.String() != "c(262144)") {
			t.Errorf("PUT size %v, want c(262144)", m.SizeDist)
		}
	}
	if main.RangeSize != 16<<10 {
		t.Errorf("range size %d, want %d", main.RangeSize, 16<<10)
	}
	// The main stream carries the reads not of written keys: GET's share
	// without the re-reads, the others whole.
	mainShare := main.Rate.PerSec / (main.Rate.PerSec + raw.Rate.PerSec)
	near(t, "PUT share of all", float64(weights[workload.OpPut])/100*mainShare, 0.2, 0.015)
	near(t, "STAT share of all", float64(weights[workload.OpStat])/100*mainShare, 0.1, 0.015)
	roundTrip(t, res)
}

// checkSizes: the data size histogram holds the three groups in the
// shares the trace's reads had.
func checkSizes(t *testing.T, sel workload.Selector, want []float64) {
	t.Helper()
	if sel.Kind != workload.SelHistogram {
		t.Fatalf("data sizes %s, want a histogram", sel)
	}
	var total float64
	share := make([]float64, len(dataSizes))
	for _, b := range sel.Bins {
		total += float64(b.Weight)
		for i, g := range dataSizes {
			if b.Lo >= g.lo && b.Hi <= g.hi {
				share[i] += float64(b.Weight)
			}
		}
	}
	for i, g := range dataSizes {
		near(t, "share of sizes "+units.FormatSize(g.lo)+".."+units.FormatSize(g.hi), share[i]/total, want[i], 0.005)
	}
}

// roundTrip writes the workload file, reads it back with the workload
// package and wants it valid, equal to what was built and explainable.
func roundTrip(t *testing.T, res synth.Result) {
	t.Helper()
	var buf bytes.Buffer
	if err := synth.WriteYAML(&buf, res); err != nil {
		t.Fatal(err)
	}
	sp, warns, err := workload.Decode("synth.yaml", buf.Bytes())
	if err != nil || len(warns) > 0 {
		t.Fatalf("the synthesized file does not decode cleanly: %v %v\n%s", err, warns, buf.String())
	}
	sp.Source = nil
	want, _ := json.Marshal(res.Spec)
	got, _ := json.Marshal(sp)
	if string(got) != string(want) {
		t.Errorf("decoded spec differs from the built one\n got %s\nwant %s\n%s", got, want, buf.String())
	}
	var plan strings.Builder
	if err := workload.WritePlan(&plan, sp); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "# Synthesized by objbench from ") {
		t.Errorf("file does not start with its notes:\n%s", buf.String())
	}
}

func TestSynthesisOfWeakAndNoSkew(t *testing.T) {
	reads := map[metrics.Op]float64{metrics.OpGet: 0.9, metrics.OpPut: 0.1}
	t.Run("zipf 0.8 as a histogram", func(t *testing.T) {
		k := known{rate: 400, seconds: 200, exp: 0.8, dataKeys: 4000, writtenKeys: 100, mix: reads}
		res := synthesize(t, k, synth.Options{})
		near(t, "exponent", res.Summary.Reads.Exponent, 0.8, 0.05)
		idx := *res.Spec.Stages[1].Streams[0].Objects.Index
		if idx.Kind != workload.SelHistogram {
			t.Fatalf("selector %s, want a histogram for an exponent at or below 1", idx)
		}
		// Draws from the file's selector fit back to the exponent.
		rng := rand.New(rand.NewPCG(3, 4))
		draw := idx.Sampler(rng, nil)
		p := synth.New(synth.Options{})
		for i := range 200000 {
			p.Add(&replay.Record{Record: oplog.Record{Start: t0.Add(time.Duration(i) * time.Millisecond), Op: metrics.OpGet, Key: strconv.FormatInt(draw(), 10), Worker: -1}})
		}
		near(t, "exponent of the file's draws", p.Summary().Reads.Exponent, 0.8, 0.1)
		roundTrip(t, res)
	})
	t.Run("uniform", func(t *testing.T) {
		k := known{rate: 400, seconds: 200, exp: 0, dataKeys: 1500, writtenKeys: 100, mix: reads}
		res := synthesize(t, k, synth.Options{})
		idx := res.Spec.Stages[1].Streams[0].Objects.Index
		if !res.Summary.Reads.Uniform || idx.Kind != workload.SelUniform || idx.Max != 1500 {
			t.Errorf("selector %s (%+v), want u(1,1500)", idx, res.Summary.Reads)
		}
		roundTrip(t, res)
	})
}

func TestSynthesisSamplesKeysInBoundedMemory(t *testing.T) {
	k := known{rate: 1000, seconds: 200, exp: 1.1, dataKeys: 50000, writtenKeys: 100, mix: map[metrics.Op]float64{metrics.OpGet: 1}}
	exact := synthesize(t, k, synth.Options{}).Summary
	sampled := synthesize(t, k, synth.Options{MaxKeys: 5000}).Summary
	t.Logf("exact: %d keys, exponent %.3f; sampled 1 in %d: %d keys, exponent %.3f", exact.Keys, exact.Reads.Exponent, sampled.SampledOneIn, sampled.Keys, sampled.Reads.Exponent)
	if sampled.SampledOneIn < 4 {
		t.Fatalf("sampled 1 in %d keys with a table of 2000 for %d keys", sampled.SampledOneIn, exact.Keys)
	}
	near(t, "sampled exponent", sampled.Reads.Exponent, exact.Reads.Exponent, 0.1)
	near(t, "sampled key count", float64(sampled.Keys), float64(exact.Keys), 0.25*float64(exact.Keys))
	near(t, "sampled working set bytes", float64(sampled.Bytes), float64(exact.Bytes), 0.3*float64(exact.Bytes))
}

func TestClosedLoopOpLogKeepsItsWorkers(t *testing.T) {
	p := synth.New(synth.Options{})
	for i := range 20000 {
		p.Add(&replay.Record{Record: oplog.Record{Start: t0.Add(time.Duration(i) * time.Millisecond), Op: metrics.OpPut, Key: "k" + strconv.Itoa(i), Size: 4096, Worker: i % 8, Latency: time.Millisecond}})
	}
	res, err := p.Workload(synth.WorkloadOptions{Name: "closed"})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Spec.Stages[len(res.Spec.Stages)-2].Streams[0]
	if s.Rate != nil || s.ConcurrencyAt(0) != 8 || s.Bounds.Duration != 20*time.Second {
		t.Errorf("stream rate %v, concurrency %d, duration %v; want closed loop, 8 workers, 20s", s.Rate, s.ConcurrencyAt(0), s.Bounds.Duration)
	}
	roundTrip(t, res)
}

func TestNoRecordsIsAnError(t *testing.T) {
	if _, err := synth.New(synth.Options{}).Workload(synth.WorkloadOptions{}); err == nil {
		t.Error("an empty trace gave a workload")
	}
}
