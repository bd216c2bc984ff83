package replay_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/objbench/objbench/replay"
)

// A trace read as a schedule: ops in time order with their offsets from
// the first, at twice the speed, keys mapped into the run's namespace.
func ExampleSchedule() {
	trace := strings.Join([]string{
		`{"time":"2026-03-01T10:00:01Z","op":"PUT","bucket":"prod","key":"a/1","size":100}`,
		`{"time":"2026-03-01T10:00:00Z","op":"GET","bucket":"prod","key":"../etc","size":10}`,
		`{"time":"2026-03-01T10:00:03Z","op":"DELETE","bucket":"prod","key":"a/1"}`,
	}, "\n")
	r, err := replay.NewReader("ops.jsonl", strings.NewReader(trace), replay.Options{})
	if err != nil {
		panic(err)
	}
	keys, _ := replay.NewKeyMap("objbench/RUN/replay/", replay.KeyMapOptions{})
	s := replay.NewSchedule(r, replay.ScheduleOptions{Speed: 2, Window: 5 * time.Second})
	for s.Next() {
		op := s.Op()
		fmt.Println(op.Offset, op.Op, keys.Key(op.Bucket, op.Key), op.Size)
	}
	fmt.Println(s.Err(), r.Stats().Records)
	// Output:
	// 0s GET objbench/RUN/replay/%2E%2E/etc 10
	// 500ms PUT objbench/RUN/replay/a/1 100
	// 1.5s DELETE objbench/RUN/replay/a/1 0
	// <nil> 3
}
