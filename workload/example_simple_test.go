package workload_test

import (
	"fmt"
	"time"

	"github.com/objbench/objbench/workload"
)

// A sweep of GETs of 1 MiB objects at 1, 8 and 64 workers, 30 s a step:
// the stages objbench get --size 1MiB -c 1,8,64 -d 30s runs.
func ExampleSimple() {
	sp := workload.Simple{Name: workload.OpGet, Size: 1 << 20, Concurrency: []int{1, 8, 64},
		Bounds: workload.Bounds{Duration: 30 * time.Second}}.Spec()
	if errs := sp.Validate(); len(errs) > 0 {
		fmt.Println(errs)
		return
	}
	for _, st := range sp.Stages {
		s := st.Streams[0]
		fmt.Printf("%s: %s, %d objects, concurrency %v\n", st.Kind, s.Name, s.Objects.Count, s.Concurrency)
	}
	// Output:
	// prepare: prepare, 200 objects, concurrency [64]
	// main: get, 200 objects, concurrency [1 8 64]
	// cleanup: cleanup, 0 objects, concurrency [64]
}

// A mix of 80% GETs and 20% PUTs of 4 KiB objects with 16 workers, 100,000
// ops in all.
func ExampleMixed() {
	sp := workload.Mixed([]workload.OpWeight{{Op: workload.OpGet, Weight: 80}, {Op: workload.OpPut, Weight: 20}},
		4<<10, workload.Bounds{Ops: 100_000}, 16)
	for _, m := range sp.Stages[1].Streams[0].Mix {
		fmt.Printf("%s %v%%\n", m.Op, m.Weight)
	}
	fmt.Println(len(sp.Stages), "stages,", len(sp.Validate()), "problems")
	// Output:
	// get 80%
	// put 20%
	// 3 stages, 0 problems
}
