package metrics

import (
	"time"

	"github.com/objbench/objbench/result"
)

// tickOf is the tick of its second in which an instant at (after the
// series start) falls.
func tickOf(at time.Duration) int {
	return int(at % time.Second / result.Tick)
}
