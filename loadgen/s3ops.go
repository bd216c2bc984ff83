package loadgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/storage"
)

// presigner is a store that reads by presigned URL (storage/s3).
type presigner interface {
	Presign(ctx context.Context, key string, expiry time.Duration) (string, error)
	GetPresigned(ctx context.Context, url string, o storage.GetOptions, w io.Writer) (int64, error)
}

// presignExpiry is how long the URL a presigned GET uses lives: it is
// signed just before the op, outside its time.
const presignExpiry = 15 * time.Minute

// errNoCapability: the store lacks what the op needs (a file system has
// no copies, versions or batch deletes): counted as not implemented.
func errNoCapability(what string) error {
	return &storage.OpError{Op: what, Err: fmt.Errorf("this store has no %s: %w", what, storage.ErrNotImplemented)}
}

// book is the run's memory of ETags and versions, when a stream needs it.
func (w *worker) book() *objectBook { return &w.s.run.data.book }

// needsBook: some op of the run sends ETags or versions this run's
// writes returned, so every write remembers them.
func (s *streamRun) needsBook() bool { return s.run.data.book.wanted }

// putOptions is the stream's upload options for one op.
func (w *worker) putOptions() storage.PutOptions {
	o := w.s.work.s3.put
	o.Trace, o.Fsync = &w.trace, w.s.work.fsync
	w.traced = true
	return o
}

// wrote notes a successful write's ETag and version when needed.
func (w *worker) wrote(key string, info storage.ObjectInfo) {
	if w.s.needsBook() {
		w.book().remember(key, info)
	}
}

// presignURL signs t's GET before the op's clock starts.
func (w *worker) presignURL(ctx context.Context, t task) {
	w.url, w.urlErr = "", nil
	if !w.s.work.s3.presign || (t.op != metrics.OpGet && t.op != metrics.OpRangeGet) {
		return
	}
	p, ok := t.store.(presigner)
	if !ok {
		w.urlErr = errNoCapability("presigned URLs")
		return
	}
	w.url, w.urlErr = p.Presign(ctx, t.key, presignExpiry)
}

// getOptions is the stream's read options for one GET of t.
func (w *worker) getOptions(t task) storage.GetOptions {
	o := w.s.work.s3.get
	o.Trace = &w.trace
	w.traced = true
	if w.s.needsBook() {
		b := w.book().lookup(t.key)
		if w.s.work.s3.condGet {
			o.IfNoneMatch = b.ETag
		}
		if w.s.work.s3.versioned {
			o.VersionID = b.VersionID
		}
	}
	return o
}

// read is a GET through the store, or by the presigned URL signed for it.
func (w *worker) read(ctx context.Context, t task, o storage.GetOptions, dst io.Writer) (int64, error) {
	if w.url == "" && w.urlErr == nil {
		return t.store.Get(ctx, t.key, o, dst)
	}
	if w.urlErr != nil {
		return 0, w.urlErr
	}
	return t.store.(presigner).GetPresigned(ctx, w.url, o, dst)
}

// stat is a HEAD with the stream's options (a version, an SSE-C key).
func (w *worker) stat(ctx context.Context, t task) error {
	os, ok := t.store.(storage.OptionStore)
	if !ok {
		_, err := t.store.Stat(ctx, t.key)
		return err
	}
	o := storage.StatOptions{Trace: &w.trace, Encryption: w.s.work.s3.get.Encryption}
	w.traced = true
	if w.s.work.s3.versioned {
		o.VersionID = w.book().lookup(t.key).VersionID
	}
	_, err := os.StatWith(ctx, t.key, o)
	return err
}

// del deletes t's object; in a versioned stream the version this run's
// write made, for good.
func (w *worker) del(ctx context.Context, t task) error {
	os, ok := t.store.(storage.OptionStore)
	if !ok {
		return t.store.Delete(ctx, t.key)
	}
	o := storage.DeleteOptions{Trace: &w.trace}
	w.traced = true
	if w.s.needsBook() {
		if w.s.work.s3.versioned {
			o.VersionID = w.book().lookup(t.key).VersionID
		}
		defer w.book().forget(t.key)
	}
	_, err := os.DeleteWith(ctx, t.key, o)
	return err
}

// runS3 performs the ops of the S3 surface beyond plain requests.
func (w *worker) runS3(ctx context.Context, t task) (int64, error) {
	switch t.op {
	case metrics.OpCopy:
		return w.copyObject(ctx, t)
	case metrics.OpPartCopy:
		return w.partCopy(ctx, t)
	case metrics.OpDeleteBatch:
		return 0, w.deleteBatch(ctx, t)
	case metrics.OpListVersions:
		v, ok := t.store.(storage.Versioner)
		if !ok {
			return 0, errNoCapability("versions")
		}
		return 0, v.ListVersions(ctx, t.key, func(storage.ObjectVersion) error { return nil })
	case metrics.OpCAS:
		return w.cas(ctx, t)
	}
	return 0, errors.New("loadgen: unknown op " + t.op.String())
}

// copyObject copies t.from to t.key on the server; its bytes are the
// object's, copied without passing through the client.
func (w *worker) copyObject(ctx context.Context, t task) (int64, error) {
	c, ok := t.store.(storage.Copier)
	if !ok {
		return 0, errNoCapability("server-side copy")
	}
	o := storage.CopyOptions{Trace: &w.trace, SourceEncryption: w.s.work.s3.get.Encryption, Dest: w.s.work.s3.put}
	o.Dest.Checksum, o.Dest.ChecksumTrailer, o.Dest.IfNoneMatch = "", false, ""
	w.traced = true
	info, err := c.CopyObject(ctx, t.from, t.key, o)
	if err != nil {
		return 0, err
	}
	w.wrote(t.key, info)
	return t.size, nil
}

// partCopy makes t.key a multipart upload of one part, t.from copied by
// UploadPartCopy; a failed upload is aborted.
func (w *worker) partCopy(ctx context.Context, t task) (int64, error) {
	mp, ok1 := t.store.(storage.Multiparter)
	pc, ok2 := t.store.(storage.PartCopier)
	if !ok1 || !ok2 {
		return 0, errNoCapability("part copy")
	}
	id, err := w.createUpload(ctx, mp, t.key)
	if err != nil {
		return 0, err
	}
	o := storage.CopyOptions{Trace: &w.trace, SourceEncryption: w.s.work.s3.get.Encryption}
	o.Dest.Encryption = w.s.work.s3.get.Encryption // an SSE-C upload's parts carry its key
	w.traced = true
	p, err := pc.UploadPartCopy(ctx, t.key, id, 1, t.from, o)
	if err == nil {
		var info storage.ObjectInfo
		if info, err = mp.CompleteMultipart(ctx, t.key, id, []storage.Part{p}); err == nil {
			w.wrote(t.key, info)
			return t.size, nil
		}
	}
	w.abortUpload(ctx, mp, t.key, id)
	return 0, err
}

// createUpload starts a multipart upload with the stream's options.
func (w *worker) createUpload(ctx context.Context, mp storage.Multiparter, key string) (string, error) {
	if mc, ok := mp.(storage.MultipartCreator); ok {
		o := w.s.work.s3.put
		o.IfNoneMatch, o.IfMatch = "", "" // conditions belong to a PUT
		return mc.CreateMultipartWith(ctx, key, o)
	}
	return mp.CreateMultipart(ctx, key)
}

// deleteBatch deletes t.batch in one DeleteObjects request; keys the
// target reports gone count as deleted. In a versioned bucket it makes
// delete markers, where DELETE removes the version this run wrote.
func (w *worker) deleteBatch(ctx context.Context, t task) error {
	bd, ok := t.store.(storage.BatchDeleter)
	if !ok {
		return errNoCapability("batch delete")
	}
	ids := w.ids[:0]
	for _, k := range t.batch {
		// No version: in a versioned bucket each key gets a delete marker
		// and keeps its versions (cleanup removes both).
		ids = append(ids, storage.ObjectID{Key: k})
		if w.s.needsBook() {
			w.book().forget(k)
		}
	}
	w.ids = ids
	failed, err := bd.DeleteObjects(ctx, ids)
	if err != nil {
		return err
	}
	for i := range failed {
		if !failed[i].Gone() {
			return &storage.OpError{Op: "delete-batch", Key: failed[i].Key, Err: &failed[i]}
		}
	}
	return nil
}

// cas replaces t.key only if it still has the ETag this run's last write
// of it returned (If-Match): another worker's write in between makes it
// answer 412, the outcome precondition_failed.
func (w *worker) cas(ctx context.Context, t task) (int64, error) {
	o := w.putOptions()
	o.IfNoneMatch, o.IfMatch = "", w.book().lookup(t.key).ETag
	if o.IfMatch == "" {
		o.IfMatch = `"unknown"` // not written by this run: the condition cannot hold
	}
	// Fresh bytes, so each swap changes the ETag (reads of the key cannot
	// verify them: Validate refuses cas with verify).
	w.body.Reset(w.rng.Uint64(), t.size)
	info, err := t.store.Put(ctx, t.key, w.body, t.size, o)
	if err != nil {
		return 0, err
	}
	w.wrote(t.key, info)
	return t.size, nil
}

// creates: a successful op adds its key to the pool.
func creates(op metrics.Op) bool {
	switch op {
	case metrics.OpPut, metrics.OpMultipart, metrics.OpCopy, metrics.OpPartCopy:
		return true
	}
	return false
}

// changesPool: the op adds keys to its pool or takes them.
func changesPool(op metrics.Op) bool {
	return creates(op) || op == metrics.OpDelete || op == metrics.OpDeleteBatch
}

// releaseLeases ends the leases a task's pick took.
func releaseLeases(t task) {
	switch t.op {
	case metrics.OpGet, metrics.OpStat, metrics.OpRangeGet, metrics.OpCAS:
		t.pool.release(t.key)
	case metrics.OpCopy, metrics.OpPartCopy:
		t.pool.release(t.from)
	}
}

// pooledS3 makes a copy's task (a live source, a new key) or a batch
// delete's (up to the batch size of live keys, taken from the pool).
func (w *worker) pooledS3(t task, p *keyPool) (task, bool) {
	if t.op == metrics.OpDeleteBatch {
		t.batch = t.batch[:0]
		for range w.s.work.s3.batch {
			k, ok := p.take(w.rng)
			if !ok {
				break
			}
			t.batch = append(t.batch, k)
		}
		if len(t.batch) == 0 {
			return t, false
		}
		t.key = t.batch[0]
		return t, true
	}
	var ok bool
	if t.from, t.size, ok = p.pick(w.rng); !ok {
		return t, false
	}
	t.key = p.newKey()
	return t, true
}

// numberedS3 completes the task of an S3-surface op on numbered objects:
// a copy goes to the drawn key plus "-copy"; a batch delete takes the
// drawn key and the batch's next numbers.
func (w *worker) numberedS3(t *task, d *opDef, smp *opSampler) {
	switch t.op {
	case metrics.OpCopy, metrics.OpPartCopy:
		t.from, t.key, t.size = t.key, t.key+"-copy", d.sizes.Min
	case metrics.OpDeleteBatch:
		t.batch = []string{t.key}
		for i := 1; i < w.s.work.s3.batch; i++ {
			t.batch = append(t.batch, d.sp.key(smp.index()))
		}
	case metrics.OpCAS:
		t.size = smp.size()
	case metrics.OpListVersions:
		t.key = d.sp.prefix
	}
}

// phases is the op's phases when it passed its store the trace and the
// store fills it (a network store), else nil.
func (w *worker) phases(st storage.Store) *storage.Phases {
	if !w.traced {
		return nil
	}
	return tracedPhases(st, &w.trace)
}

// maxNotImplemented is how many times in a row a target may answer an op
// "not implemented" before the stream stops issuing that op for the step:
// the count is clear by then, and more requests would be an error storm.
const maxNotImplemented = 100

// stopNotImplemented is why a stream whose every op is off stopped.
const stopNotImplemented = "not implemented by this target"

// outcome reports whether the op's error is an answer of the target
// rather than a failure (storage.Outcome), and turns an op off after
// maxNotImplemented answers "not implemented" in a row.
func (w *worker) outcome(t task) bool {
	class := ""
	if w.res.Err != nil { // ErrorClass allocates, even for nil
		class = storage.ErrorClass(w.res.Err)
	}
	if d := t.def; d != nil {
		if class == storage.ClassNotImpl {
			if d.notImpl.Add(1) >= maxNotImplemented {
				d.off.Store(true)
			}
		} else if d.notImpl.Load() != 0 {
			d.notImpl.Store(0)
		}
	}
	return storage.Outcome(class)
}

// allOff reports whether every op of the mix is off.
func (s *streamWork) allOff() bool {
	for _, d := range s.ops {
		if !d.off.Load() {
			return false
		}
	}
	return len(s.ops) > 0
}
