package distributed

import (
	"context"
	"errors"
	"time"

	"github.com/objbench/objbench/storage"
)

// Offset is how far the store's clock is ahead of this machine's
// (store time = local time + Offset), known within ±Error.
type Offset struct {
	Offset time.Duration `json:"offset_ns"`
	Error  time.Duration `json:"error_ns"`
}

// MeasureOffset estimates the store's clock against this one. The store
// gives its time to the whole second (an HTTP Date header), so it is asked
// again and again, each request right after the last answer, until the
// second changes: the store's tick to that second happened after the
// earlier request was sent and before the later answer came, which bounds
// it within about one round trip. It takes up to a little over a second.
func MeasureOffset(ctx context.Context, c storage.Clock) (Offset, error) {
	sent, _, last, err := c.ServerTime(ctx)
	if err != nil {
		return Offset{}, err
	}
	deadline := time.Now().Add(2500 * time.Millisecond)
	for time.Now().Before(deadline) {
		s2, r2, now, err := c.ServerTime(ctx)
		if err != nil {
			return Offset{}, err
		}
		if !now.Equal(last) {
			// The tick to `now` fell between sent (before the earlier
			// stamp) and r2 (after the later one).
			mid := sent.Add(r2.Sub(sent) / 2)
			return Offset{Offset: now.Sub(mid), Error: r2.Sub(sent) / 2}, nil
		}
		sent, last = s2, now
	}
	return Offset{}, errors.New("the store's Date header did not move in 2.5 s: cannot tell its clock")
}
