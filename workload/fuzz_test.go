package workload_test

import (
	"io"
	"os"
	"path/filepath"
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
