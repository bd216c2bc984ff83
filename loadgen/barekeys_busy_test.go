package loadgen

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
)

// Workers that hit one number take turns: never two hold it at once, and
// every one gets it (the channel is made only once someone waits).
func TestOwnNumbersTakeTurns(t *testing.T) {
	o := newOwnNumbers(nil, "b", "p", "")
	var holding, turns atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 500 {
				if err := o.acquire(context.Background(), 7); err != nil {
					t.Error(err)
					return
				}
				if holding.Add(1) != 1 {
					t.Error("two workers hold number 7 at once")
				}
				turns.Add(1)
				holding.Add(-1)
				o.release(7)
			}
		})
	}
	wg.Wait()
	if turns.Load() != 8*500 || len(o.busy) != 0 {
		t.Fatalf("%d turns, %d numbers still held; want 4000 and none", turns.Load(), len(o.busy))
	}
}

// BenchmarkOwnNumbersAcquire is the cost a PUT or DELETE of COSBench's
// bare key layout pays to hold its number when no other worker wants it.
func BenchmarkOwnNumbersAcquire(b *testing.B) {
	o := newOwnNumbers(nil, "b", "p", "")
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		n := int64(i % 1024)
		if err := o.acquire(ctx, n); err != nil {
			b.Fatal(err)
		}
		o.release(n)
	}
}
