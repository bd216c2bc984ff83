package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/fs"
	"github.com/objbench/objbench/storage/s3"
	"github.com/objbench/objbench/workload"
)

// bucketOpener returns loadgen's Config.OpenBucket for target t: a bucket
// is another S3 store on the same endpoint with the same credentials, or a
// subdirectory of a file target. A stream's own storage (COSBench's
// per-work <storage>) is honoured only when the endpoint came from the
// file; flags override every storage of the file.
func (t *openedTarget) bucketOpener(o *targetOptions, maxConns int) func(context.Context, *workload.Storage, string) (storage.Store, error) {
	return func(ctx context.Context, st *workload.Storage, bucket string) (storage.Store, error) {
		if !o.fromFile {
			st = nil
		}
		if st == nil && bucket == t.info.Bucket && t.info.Kind == "s3" {
			return t.store, nil // the target's own bucket: one store, so one cleanup listing
		}
		key := bucket
		if st != nil {
			key = st.Endpoint + "\x00" + st.AccessKey + "\x00" + bucket
		}
		if s, ok := t.buckets[key]; ok {
			return s, nil
		}
		s, err := t.openBucket(ctx, st, bucket, maxConns)
		if err != nil {
			return nil, err
		}
		if t.buckets == nil {
			t.buckets = map[string]storage.Store{}
		}
		t.buckets[key] = s
		return s, nil
	}
}

func (t *openedTarget) openBucket(ctx context.Context, st *workload.Storage, bucket string, maxConns int) (storage.Store, error) {
	switch {
	case t.info.Kind == "fs":
		return fs.NewBucket(t.info.Root, bucket, t.fsOpts)
	case t.s3base == nil:
		return nil, errors.New("this target cannot open other buckets")
	}
	c := *t.s3base
	c.Bucket, c.MaxConns = bucket, maxConns
	if c.Region == "" {
		c.Region = t.info.Region
	}
	if st != nil && st.Endpoint != "" {
		c.Endpoint, c.AccessKey, c.SecretKey = st.Endpoint, st.AccessKey, st.SecretKey
		c.PathStyle = st.Addressing == "path" || st.Addressing == ""
		if st.Region != "" {
			c.Region = st.Region
		}
	}
	s, err := s3.New(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("bucket %s: %w", bucket, err)
	}
	inner := t.close
	t.close = func(ctx context.Context) error { return errors.Join(s.Close(), inner(ctx)) }
	return s, nil
}
