package result

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/objbench/objbench/storage"
)

// CheckUpload tells, before a run sends any load, whether its result can
// later be uploaded to st at key: no object is at key yet (a result never
// replaces another: a run id used twice, a second worker of one rank), and
// the store takes an object of this process's own beside it and deletes it
// again (the bucket exists and these credentials may write and delete in
// it). It returns the probe's key. A store that lists keys finds no probe
// after it, unless the delete failed, which the error then says.
func CheckUpload(ctx context.Context, st storage.Store, key string) (probe string, err error) {
	if _, err := st.Stat(ctx, key); err == nil {
		return "", fmt.Errorf("result key %s: an object is there already (a result of this run id and worker): "+
			"a result never replaces another; use a new run id: %w", key, storage.ErrPreconditionFailed)
	} else if !errors.Is(err, storage.ErrNotFound) {
		return "", fmt.Errorf("result key %s: %w", key, err)
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	name := strings.TrimSuffix(path.Base(key), ".json")
	probe = path.Join(path.Dir(key), ".objbench-probe-"+name+"-"+hex.EncodeToString(b[:]))
	body := []byte("objbench: a probe of the results bucket, deleted at once\n")
	if err := putNew(ctx, st, probe, body); err != nil {
		return probe, fmt.Errorf("probe %s: %w", probe, err)
	}
	if err := st.Delete(ctx, probe); err != nil {
		return probe, fmt.Errorf("probe %s: written but not deleted (delete it yourself): %w", probe, err)
	}
	return probe, nil
}

// Upload writes res to st at key, only where no object is: a store that
// already holds a result there (another worker of the same run id and
// rank) keeps it, and the error wraps storage.ErrPreconditionFailed.
func Upload(ctx context.Context, st storage.Store, key string, res *Run) error {
	var buf bytes.Buffer
	if err := Encode(&buf, res); err != nil {
		return err
	}
	if err := putNew(ctx, st, key, buf.Bytes()); err != nil {
		return fmt.Errorf("result key %s: %w", key, err)
	}
	return nil
}

// putNew creates key with body only if no object is there: a HEAD must
// find the key free (some stores ignore a condition they do not know),
// and the PUT carries If-None-Match, so that a store that implements it
// refuses a writer that came between (with one that answers 501 to it,
// the PUT is sent again without).
func putNew(ctx context.Context, st storage.Store, key string, body []byte) error {
	if _, err := st.Stat(ctx, key); err == nil {
		return fmt.Errorf("an object is there already, kept: %w", storage.ErrPreconditionFailed)
	} else if !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	put := func(o storage.PutOptions) error {
		_, err := st.Put(ctx, key, bytes.NewReader(body), int64(len(body)), o)
		return err
	}
	err := put(storage.PutOptions{IfNoneMatch: "*"})
	switch {
	case errors.Is(err, storage.ErrPreconditionFailed):
		return fmt.Errorf("an object is there already, kept: %w", err)
	case errors.Is(err, storage.ErrNotImplemented):
		return put(storage.PutOptions{})
	}
	return err
}
