package loadgen

import (
	"context"
	"fmt"
	"time"

	"github.com/objbench/objbench/storage"
)

// errNoMultipart: the store cannot upload in parts (a file system).
var errNoMultipart = fmt.Errorf("this store has no multipart upload: %w", storage.ErrNotImplemented)

// multipart uploads t as one multipart upload: create, every part, complete.
// Its bytes are those one PUT of the key would write, so reads verify alike.
// A failed upload is aborted, so no parts are left behind.
func (w *worker) multipart(ctx context.Context, t task) (int64, error) {
	mp, ok := t.store.(storage.Multiparter)
	if !ok {
		return 0, errNoMultipart
	}
	id, err := w.createUpload(ctx, mp, t.key)
	if err != nil {
		return 0, err
	}
	ps := max(w.s.work.partSize, 1)
	w.parts = w.parts[:0]
	var done int64
	for n := 1; n == 1 || done < t.size; n++ {
		size := min(ps, t.size-done)
		w.body.ResetAt(t.seed, done, size)
		p, err := mp.UploadPart(ctx, t.key, id, n, w.body, size, w.partOptions())
		if err != nil {
			w.abortUpload(ctx, mp, t.key, id)
			return done, err
		}
		w.parts = append(w.parts, p)
		done += size
	}
	info, err := mp.CompleteMultipart(ctx, t.key, id, w.parts)
	if err != nil {
		w.abortUpload(ctx, mp, t.key, id)
		return done, err
	}
	w.wrote(t.key, info)
	return done, nil
}

// abortUpload gives the abort its own short deadline: the op's context
// may be the very thing that ended.
func (w *worker) abortUpload(ctx context.Context, mp storage.Multiparter, key, id string) {
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	_ = mp.AbortMultipart(actx, key, id) // best effort: the op already failed
}

// partOptions is what each part of an upload carries: the stream's
// checksum and an SSE-C key (the upload's other options went with its
// creation).
func (w *worker) partOptions() storage.PutOptions {
	o := w.s.work.s3.put
	w.traced = true
	return storage.PutOptions{Trace: &w.trace, Checksum: o.Checksum, ChecksumTrailer: o.ChecksumTrailer, Encryption: w.s.work.s3.get.Encryption}
}
