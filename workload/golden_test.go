package workload_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/workload"
)

// fixtures are the workload files the decoder golden tests read: the
// examples users start from and the COSBench samples in testdata.
func fixtures(t testing.TB) []string {
	t.Helper()
	var files []string
	for _, pat := range []string{"../examples/*.yaml", "../examples/cosbench/*.xml", "testdata/*.xml", "testdata/*.yaml"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatal("no fixtures found")
	}
	return files
}

func TestDecodeGolden(t *testing.T) {
	for _, file := range fixtures(t) {
		if strings.Contains(file, "bad-") {
			continue
		}
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			sp, _, err := workload.Decode(filepath.ToSlash(file), data)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			var out bytes.Buffer
			if err := workload.WritePlan(&out, sp); err != nil {
				t.Fatal(err)
			}
			out.WriteString("--- spec as recorded in the result file ---\n")
			enc := json.NewEncoder(&out)
			enc.SetIndent("", " ")
			if err := enc.Encode(sp); err != nil {
				t.Fatal(err)
			}
			testenv.Golden(t, filepath.Join("testdata", filepath.Base(file)+".golden"), out.Bytes())
		})
	}
}
