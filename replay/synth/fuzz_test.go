package synth_test

import (
	"bytes"
	"encoding/binary"
	"github.com/objbench/objbench/oplog"
	"strconv"
	"testing"
	"time"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/replay"
	"github.com/objbench/objbench/replay/synth"
	"github.com/objbench/objbench/workload"
)

// FuzzSynthesize: any trace, however odd (one record, zero sizes, only
// deletes, bursts, a key space of one), gives a workload that validates
// and whose file decodes back to it, or an error.
func FuzzSynthesize(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0, 0, 2, 1, 1, 4, 0})
	f.Add(bytes.Repeat([]byte{6, 3, 0, 0, 0, 1, 2, 9}, 20))
	f.Add(bytes.Repeat([]byte{0, 1, 255, 255, 9, 9, 9, 9, 1, 1, 0, 0, 0, 0, 0, 3}, 30))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := synth.New(synth.Options{MaxKeys: 64})
		at := t0
		for len(data) >= 8 {
			r := replay.Record{Record: oplog.Record{Op: metrics.Op(data[0] % byte(metrics.NumOps)), Bucket: "b", Key: strconv.Itoa(int(data[1] % 50)), Size: int64(binary.LittleEndian.Uint16(data[2:4])), Worker: -1, Status: 200}}
			if data[4]%5 == 0 {
				r.Worker, r.Intended = int(data[5]%4), time.Time{}
			}
			if r.Op == metrics.OpRangeGet {
				r.Range.Length = int64(data[5])
			}
			r.Latency = time.Duration(data[6]) * time.Millisecond
			at = at.Add(time.Duration(data[7]) * 10 * time.Millisecond)
			r.Start = at
			p.Add(&r)
			data = data[8:]
		}
		res, err := p.Workload(synth.WorkloadOptions{})
		if err != nil {
			if res.Summary.Records > 0 {
				t.Fatalf("a trace of %d records gave no workload: %v", res.Summary.Records, err)
			}
			return
		}
		var buf bytes.Buffer
		if err := synth.WriteYAML(&buf, res); err != nil {
			t.Fatal(err)
		}
		if _, _, err := workload.Decode("fuzz.yaml", buf.Bytes()); err != nil {
			t.Fatalf("%v\n%s", err, buf.String())
		}
	})
}
