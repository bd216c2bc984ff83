package workload_test

import (
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/workload"
)

func TestValidateListsEveryProblem(t *testing.T) {
	sp := workload.Spec{Stages: []workload.Stage{
		{Name: "warm", Kind: "heat"},
		{Name: "main", Kind: result.KindMain, Streams: []workload.Stream{{
			Name:        "s",
			Mix:         []workload.OpWeight{{Op: "fly", Weight: 1}, {Op: "get", Weight: 0}},
			Concurrency: []int{4, 0},
			Size:        -1,
		}}},
		{Name: "ro", Kind: result.KindMain, Streams: []workload.Stream{{
			Mix: []workload.OpWeight{{Op: "delete", Weight: 1}}, Concurrency: []int{1},
			Bounds: workload.Bounds{Duration: time.Second}, Objects: workload.KeySpace{Prefix: "theirs/", Existing: true},
		}}},
	}}
	errs := sp.Validate()
	var all []string
	for _, e := range errs {
		all = append(all, e.Error())
	}
	joined := strings.Join(all, "\n")
	for _, want := range []string{`unknown kind "heat"`, "stage 1 (warm): no streams", `unknown operation "fly"`, "weight 0", "concurrency 0", "size -1", "no bound", `existing objects under "theirs/" are only ever read`} {
		if !strings.Contains(joined, want) {
			t.Errorf("missing %q in:\n%s", want, joined)
		}
	}
}

func TestValidSpecHasNoProblems(t *testing.T) {
	sp := workload.Spec{Stages: []workload.Stage{{Name: "main", Kind: result.KindMain, Streams: []workload.Stream{{
		Mix: []workload.OpWeight{{Op: "GET", Weight: 1}}, Concurrency: []int{1, 4}, Size: 4096,
		Bounds: workload.Bounds{Ops: 10}, Objects: workload.KeySpace{Count: 10},
	}}}}}
	if errs := sp.Validate(); len(errs) != 0 {
		t.Fatalf("unexpected problems: %v", errs)
	}
	if sp.Stages[0].Steps() != 2 || sp.Stages[0].Streams[0].ConcurrencyAt(5) != 4 {
		t.Fatal("sweep of 2 values should give 2 steps, the last value held")
	}
}

// A prefix or suffix must not be able to lead keys out of the run's
// namespace on a server or proxy that normalises paths.
func TestKeyPartsStayInNamespace(t *testing.T) {
	for _, c := range []struct {
		prefix, suffix string
		ok             bool
	}{
		{"", "", true}, {"data/", ".bin", true}, {"a/b/c-", "/x", true}, {"obj", "", true},
		{"../x/", "", false}, {"a/../b/", "", false}, {"./a/", "", false}, {"/abs/", "", false},
		{"a//b/", "", false}, {"", "/..", false}, {"", "/../../y", false}, {"", "//z", false},
	} {
		sp := workload.Spec{Stages: []workload.Stage{{Name: "main", Kind: result.KindMain, Streams: []workload.Stream{{
			Mix: []workload.OpWeight{{Op: "put", Weight: 1}}, Concurrency: []int{1}, Bounds: workload.Bounds{Ops: 1},
			Objects: workload.KeySpace{Prefix: c.prefix, Suffix: c.suffix}}}}}}
		errs := sp.Validate()
		if (len(errs) == 0) != c.ok {
			t.Errorf("prefix %q suffix %q: problems %v, want ok=%v", c.prefix, c.suffix, errs, c.ok)
		}
	}
}

func TestDriverRanks(t *testing.T) {
	sp := workload.Spec{Stages: []workload.Stage{{Streams: []workload.Stream{{Driver: "driver2"}, {Driver: "edge-a"}, {Driver: "driver1"}, {},
		{Driver: "edge-b"}, {Driver: "driver2"}}}}}
	got := sp.DriverRanks()
	want := map[string]int{"driver1": 0, "driver2": 1, "edge-a": 2, "edge-b": 3}
	if len(got) != len(want) {
		t.Fatalf("ranks %v, want %v", got, want)
	}
	for d, r := range want {
		if got[d] != r {
			t.Errorf("%s -> %d, want %d", d, got[d], r)
		}
	}
}
