package loadgen

import (
	"context"
	"fmt"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/workload"
)

// runStores are the stores a run works in: the target's, and one per
// bucket its key spaces name (opened once, through Config.OpenBucket, and
// never closed: the caller owns them), with which buckets the run created
// and removed, and which keep versions. Buckets' lifecycle is buckets.go;
// versioning, versioned.go.
type runStores struct {
	target storage.Store
	open   func(ctx context.Context, st *workload.Storage, bucket string) (storage.Store, error)
	byKey  map[string]storage.Store // bucket stores by storeKey
	order  []string                 // storeKeys in the order their stores were opened
	// names are the buckets of the stores opened for key spaces, for the
	// op log (the target's: ""). They change only between steps.
	names   map[storage.Store]string
	created map[string]bool // buckets this run created, by storeKey
	removed map[string]bool // and then removed
	// versioned: some stream works in a versioned bucket;
	// versionedStores are the stores known to keep versions.
	versioned       bool
	versionedStores map[storage.Store]bool
}

func newRunStores(cfg Config) *runStores {
	return &runStores{target: cfg.Store, open: cfg.OpenBucket, byKey: map[string]storage.Store{},
		names: map[storage.Store]string{}, created: map[string]bool{}, removed: map[string]bool{},
		versioned: cfg.Spec.Versioned(), versionedStores: map[storage.Store]bool{}}
}

// storeKey names one bucket at one storage; "" storage is the target's.
func storeKey(st *workload.Storage, bucket string) string {
	if st == nil {
		return "\x00" + bucket
	}
	return st.Type + "\x00" + st.Endpoint + "\x00" + st.Region + "\x00" + st.Addressing + "\x00" + st.AccessKey + "\x00" + bucket
}

// bucket returns the store of bucket at st (nil: the target), opened
// once per run; "" is the target's own store. Stages run one after
// another, so only one goroutine ever calls it.
func (rs *runStores) bucket(ctx context.Context, st *workload.Storage, bucket string) (storage.Store, error) {
	if bucket == "" {
		return rs.target, nil
	}
	k := storeKey(st, bucket)
	if s, ok := rs.byKey[k]; ok {
		return s, nil
	}
	if rs.open == nil {
		return nil, fmt.Errorf("the workload names bucket %q, but this run cannot open buckets other than its target's", bucket)
	}
	s, err := rs.open(ctx, st, bucket)
	if err != nil {
		return nil, fmt.Errorf("open bucket %s: %w", bucket, err)
	}
	rs.byKey[k] = s
	rs.names[s] = bucket
	rs.order = append(rs.order, k)
	return s, nil
}

// name is the bucket a store serves, as the op log names it ("" for the
// target's own).
func (rs *runStores) name(s storage.Store) string { return rs.names[s] }

// every is the target's store and every bucket store opened so far, in
// the order they were opened.
func (rs *runStores) every() []storage.Store {
	out := []storage.Store{rs.target}
	for _, k := range rs.order {
		if s := rs.byKey[k]; s != rs.target {
			out = append(out, s)
		}
	}
	return out
}

// connections sums the connection counts of every store in use; ok=false
// when none is a network store.
func (rs *runStores) connections() (c storage.ConnStats, ok bool) {
	for _, s := range rs.every() {
		if cc, is := s.(storage.ConnCounter); is {
			c, ok = c.Plus(cc.Connections()), true
		}
	}
	return c, ok
}

// connectionsSince is what happened to connections since c0 (a count of
// connections()), nil when no store counts them.
func (rs *runStores) connectionsSince(c0 storage.ConnStats) *result.Connections {
	c1, ok := rs.connections()
	if !ok {
		return nil
	}
	return result.ConnectionsSince(c0, c1)
}

// syncTarget flushes the target's store when it can be (a file system),
// at the end of a step whose streams sync at end.
func (rs *runStores) syncTarget(ctx context.Context) error {
	if s, ok := rs.target.(storage.Syncer); ok {
		return s.Sync(ctx)
	}
	return nil
}
