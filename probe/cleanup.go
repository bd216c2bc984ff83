package probe

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/objbench/objbench/storage"
)

// startUpload records a multipart upload the probe must finish or abort.
func (p *prober) startUpload(key, id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.uploads == nil {
		p.uploads = map[string][]string{}
	}
	p.uploads[key] = append(p.uploads[key], id)
}

// endUpload forgets an upload that was completed or aborted.
func (p *prober) endUpload(key, id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.uploads[key] = slices.DeleteFunc(p.uploads[key], func(s string) bool { return s == id })
}

// cleanup removes what the probe wrote: its unfinished uploads, then each
// key it recorded (every version of it, in a bucket it made versioned),
// checks that none is left, and removes a bucket it created. Keys under
// its prefix that it did not record are not deleted: they are not its own.
func (p *prober) cleanup(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	var errs []error
	for key, ids := range p.uploads {
		for _, id := range ids {
			if err := p.st.AbortMultipart(ctx, key, id); err != nil && !errors.Is(err, storage.ErrNotFound) {
				errs = append(errs, err)
			}
		}
	}
	if p.versioned {
		// Every version, not a delete marker over them.
		errs = append(errs, p.deleteVersions(ctx)...)
	} else {
		for _, k := range p.keys() {
			if err := p.st.Delete(ctx, k); err != nil {
				errs = append(errs, err)
			}
		}
	}
	left, err := p.leftOver(ctx)
	if err != nil {
		errs = append(errs, err)
	}
	p.rep.Left = left
	if len(left) > 0 {
		errs = append(errs, fmt.Errorf("%d of the probe's objects are still in bucket %s under %s", len(left), p.cfg.Bucket, p.prefix))
	}
	if p.rep.BucketCreated && len(errs) == 0 {
		if err := p.st.DeleteBucket(ctx); err != nil {
			errs = append(errs, fmt.Errorf("remove the probe's bucket %s: %w", p.cfg.Bucket, err))
		}
	}
	return errors.Join(errs...)
}

func (p *prober) keys() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var ks []string
	for k := range p.written {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// deleteVersions removes every version and delete marker of the probe's
// own keys, in the bucket it created and made versioned.
func (p *prober) deleteVersions(ctx context.Context) []error {
	var ids []storage.ObjectID
	err := p.st.ListVersions(ctx, p.prefix, func(v storage.ObjectVersion) error {
		if p.written[v.Key] {
			ids = append(ids, storage.ObjectID{Key: v.Key, VersionID: v.VersionID})
		}
		return nil
	})
	if err != nil {
		return []error{err}
	}
	var errs []error
	for _, id := range ids {
		if _, err := p.st.DeleteWith(ctx, id.Key, storage.DeleteOptions{VersionID: id.VersionID}); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// leftOver lists the probe's prefix and returns the keys of its own still
// there (versions too, in a versioned bucket).
func (p *prober) leftOver(ctx context.Context) ([]string, error) {
	var left []string
	note := func(key string) {
		if p.written[key] && !slices.Contains(left, key) && strings.HasPrefix(key, p.prefix) {
			left = append(left, key)
		}
	}
	if p.versioned {
		err := p.st.ListVersions(ctx, p.prefix, func(v storage.ObjectVersion) error { note(v.Key); return nil })
		return left, err
	}
	err := p.st.List(ctx, p.prefix, func(o storage.ObjectInfo) error { note(o.Key); return nil })
	return left, err
}
