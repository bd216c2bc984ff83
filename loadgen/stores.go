package loadgen

import (
	"context"
	"fmt"

	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/workload"
)

// storeKey names one bucket at one storage; "" storage is the target's.
func storeKey(st *workload.Storage, bucket string) string {
	if st == nil {
		return "\x00" + bucket
	}
	return st.Type + "\x00" + st.Endpoint + "\x00" + st.Region + "\x00" + st.Addressing + "\x00" + st.AccessKey + "\x00" + bucket
}

// bucketStore returns the store of bucket at st (nil: the target), opened
// once per run through Config.OpenBucket; "" is the target's own store.
// Stages run one after another, so only one goroutine ever calls it.
func (r *runState) bucketStore(ctx context.Context, st *workload.Storage, bucket string) (storage.Store, error) {
	if bucket == "" {
		return r.cfg.Store, nil
	}
	k := storeKey(st, bucket)
	if s, ok := r.stores[k]; ok {
		return s, nil
	}
	if r.cfg.OpenBucket == nil {
		return nil, fmt.Errorf("the workload names bucket %q, but this run cannot open buckets other than its target's", bucket)
	}
	s, err := r.cfg.OpenBucket(ctx, st, bucket)
	if err != nil {
		return nil, fmt.Errorf("open bucket %s: %w", bucket, err)
	}
	r.stores[k] = s
	r.noteBucket(s, bucket)
	r.storeOrder = append(r.storeOrder, k)
	return s, nil
}

// everyStore is the target's store and every bucket store opened so far,
// in the order they were opened.
func (r *runState) everyStore() []storage.Store {
	out := []storage.Store{r.cfg.Store}
	for _, k := range r.storeOrder {
		if s := r.stores[k]; s != r.cfg.Store {
			out = append(out, s)
		}
	}
	return out
}

// connStats sums the connection counters of every store in use.
func (r *runState) connStats() (dialed, requests uint64) {
	for _, s := range r.everyStore() {
		d, q := connStats(s)
		dialed, requests = dialed+d, requests+q
	}
	return dialed, requests
}
