package workload_test

import (
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/objbench/objbench/workload"
)

// seed adds every fixture of one format to the fuzz corpus.
func seed(f *testing.F, cosbench bool) {
	for _, file := range fixtures(f) {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		if workload.IsCOSBench(data) == cosbench {
			f.Add(data)
		}
	}
}

// exercise runs everything a decoded spec goes through before a run: it
// must never panic, whatever the file held.
func exercise(t *testing.T, sp workload.Spec) {
	_ = sp.Validate()
	_ = workload.WritePlan(io.Discard, sp)
	small := sp.Scale(0.01)
	_ = small.Validate()
	for _, st := range sp.Stages {
		for i := range min(st.Steps(), 4) {
			_ = st.StepLabel(i)
			for _, s := range st.Streams {
				_ = s.At(i).Sizes().Mean()
			}
		}
	}
}

func FuzzDecodeWorkload(f *testing.F) {
	seed(f, false)
	for _, s := range []string{"", "stages: [", "stages:\n  - kind: main\n    ops: {read: 100}\n", "a: &a [*a]", "stages: *x"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sp, _, err := workload.DecodeYAML("f.yaml", data)
		if err == nil {
			exercise(t, sp)
		}
		_, _, _ = workload.Decode("f.yaml", data)
	})
}

func FuzzDecodeCOSBench(f *testing.F) {
	seed(f, true)
	for _, s := range []string{"<workload/>", "<workload><workflow><workstage><work/></workstage></workflow></workload>", "<a><b>"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sp, _, err := workload.DecodeCOSBench(filepath.Join("x", "f.xml"), data)
		if err == nil {
			exercise(t, sp)
		}
		_, _, _ = workload.Decode("f.xml", data)
	})
}

// Whatever a selector says: parsing never panics; what parses prints back
// to itself (String, and SizeString for sizes); every value drawn, walked
// or indexed is one it can give; its mean lies within its bounds; and a
// scaled-down copy still parses.
func FuzzSelector(f *testing.F) {
	for _, s := range []string{"c(5)", "u(1,100)", "r(1,10)", "s(3,3)", "h(1|10|30,20|30|70)", "zipf(1,1000)", "zipf(1,1e3,1.5)",
		"log2(1,1048576)", "7", "1-100", "u(4KiB,1MiB)", "c(64)KB", "h(1|64|10,64|512|90)KB", "u(0,9223372036854775807)",
		"h(0|9223372036854775807|1)", "zipf(0,9223372036854775807,1.0000001)", "log2(1,9223372036854775807)", "4611686018427387903B"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, in string, sizes bool) {
		parse := workload.ParseSelector
		if sizes {
			parse = workload.ParseSizeSelector
		}
		sel, err := parse(in)
		if err != nil {
			return
		}
		for _, text := range []string{sel.String(), sel.SizeString()} {
			if text == sel.SizeString() && !sizes {
				continue
			}
			back, err := parse(text)
			if err != nil || !reflect.DeepEqual(back, sel) {
				t.Fatalf("%q parsed to %+v, printed %q, which reads back as %+v (%v)", in, sel, text, back, err)
			}
		}
		if sel.Min < 0 || sel.Min > sel.Max || sel.Count() < 1 {
			t.Fatalf("%q: min %d, max %d, count %d", in, sel.Min, sel.Max, sel.Count())
		}
		possible := func(v int64) bool {
			for _, r := range sel.Ranges() {
				if v >= r[0] && v <= r[1] {
					return true
				}
			}
			return false
		}
		var n uint64
		draw := sel.Sampler(rand.New(rand.NewPCG(1, 2)), func() uint64 { n++; return n - 1 })
		for i := range 64 {
			if v := draw(); !possible(v) {
				t.Fatalf("%q drew %d, outside %v", in, v, sel.Ranges())
			}
			if v := sel.Nth(uint64(i) * 0x9e3779b97f4a7c15); !possible(v) {
				t.Fatalf("%q: Nth gave %d, outside %v", in, v, sel.Ranges())
			}
		}
		if sel.At(0) != sel.Min || !possible(sel.At(sel.Count()-1)) {
			t.Fatalf("%q: At(0) %d, At(last) %d", in, sel.At(0), sel.At(sel.Count()-1))
		}
		if m := sel.Mean(); math.IsNaN(m) || m < float64(sel.Min)*(1-1e-9) || m > float64(sel.Max)*(1+1e-9) {
			t.Fatalf("%q: mean %v outside [%d, %d]", in, m, sel.Min, sel.Max)
		}
		for _, factor := range []float64{0.01, 0.5, 3} {
			if _, err := parse(sel.Scale(factor).String()); err != nil {
				t.Fatalf("%q scaled by %v: %v", in, factor, err)
			}
		}
	})
}
