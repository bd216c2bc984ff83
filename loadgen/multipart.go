package loadgen

import (
	"context"
	"errors"
	"time"

	"github.com/objbench/objbench/storage"
)

// errNoMultipart: the store cannot upload in parts (a file system).
var errNoMultipart = errors.New("this store has no multipart upload")

// multipart uploads t as one multipart upload: create, every part, complete.
// Its bytes are those one PUT of the key would write, so reads verify alike.
// A failed upload is aborted, so no parts are left behind.
func (w *worker) multipart(ctx context.Context, t task) (int64, error) {
	mp, ok := t.store.(storage.Multiparter)
	if !ok {
		return 0, errNoMultipart
	}
	id, err := mp.CreateMultipart(ctx, t.key)
	if err != nil {
		return 0, err
	}
	ps := max(w.s.work.partSize, 1)
	w.parts = w.parts[:0]
	var done int64
	for n := 1; n == 1 || done < t.size; n++ {
		size := min(ps, t.size-done)
		w.body.ResetAt(t.seed, done, size)
		p, err := mp.UploadPart(ctx, t.key, id, n, w.body, size, storage.PutOptions{})
		if err != nil {
			w.abortUpload(ctx, mp, t.key, id)
			return done, err
		}
		w.parts = append(w.parts, p)
		done += size
	}
	if _, err := mp.CompleteMultipart(ctx, t.key, id, w.parts); err != nil {
		w.abortUpload(ctx, mp, t.key, id)
		return done, err
	}
	return done, nil
}

// abortUpload gives the abort its own short deadline: the op's context
// may be the very thing that ended.
func (w *worker) abortUpload(ctx context.Context, mp storage.Multiparter, key, id string) {
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	_ = mp.AbortMultipart(actx, key, id) // best effort: the op already failed
}
