package loadgen

import (
	"context"
	"testing"

	"github.com/objbench/objbench/metrics"
)

// A key is remembered only while an op of it is in flight; a read waits
// for the write before it, a write for every op before it, and reads of
// one epoch do not wait for each other.
func TestKeyOrderWaitsAndForgets(t *testing.T) {
	o := newKeyOrder()
	put := o.enter(metrics.OpPut, "k")
	get1 := o.enter(metrics.OpGet, "k")
	get2 := o.enter(metrics.OpStat, "k")
	del := o.enter(metrics.OpDelete, "k")
	list := o.enter(metrics.OpList, "k")
	other := o.enter(metrics.OpGet, "j")
	if put.waits() || list.waits() || other.waits() {
		t.Fatal("the first op of a key, or a LIST, waits")
	}
	if !get1.waits() || !get2.waits() || !del.waits() {
		t.Fatal("reads after a write in flight, or a delete after them, do not wait")
	}
	put.leave()
	if get1.waits() || get2.waits() || !del.waits() {
		t.Fatal("after the PUT: the reads must go, the DELETE wait for them")
	}
	get1.leave()
	if !del.waits() {
		t.Fatal("the DELETE went with a read of its key in flight")
	}
	get2.leave()
	if !del.await(context.Background()) || del.waits() {
		t.Fatal("the DELETE still waits after every op before it ended")
	}
	del.leave()
	other.leave()
	list.leave()
	if n := len(o.keys); n != 0 {
		t.Errorf("%d keys remembered with nothing in flight", n)
	}
}
