package transfer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/objbench/objbench/corpus"
	"github.com/objbench/objbench/payload"
	"github.com/objbench/objbench/storage"
)

// abortTimeout bounds the abort of a failed multipart upload, which runs
// even after an interrupt so no incomplete upload is left behind.
const abortTimeout = 30 * time.Second

// source hands out the bytes of one object to upload, a section at a time.
type source struct {
	data  corpus.Bytes // a file or a corpus item; nil: generated
	block *payload.Block
	seed  uint64
}

func (r *runner) openSource(it Item) (*source, error) {
	var data corpus.Bytes
	var err error
	switch {
	case it.Corpus != nil:
		data, err = it.Corpus.Open()
	case it.Path != "":
		data, err = corpus.OpenSized(it.Path, it.Size)
	default:
		return &source{block: r.block, seed: it.Seed}, nil
	}
	if err != nil {
		return nil, err
	}
	return &source{data: data}, nil
}

// section is a reader of size bytes at off. It is an io.Seeker, so the
// retry wrapper rewinds it for each new attempt.
func (s *source) section(off, size int64) io.Reader {
	if s.data != nil {
		return io.NewSectionReader(s.data, off, size)
	}
	pr := payload.NewReader(s.block)
	pr.ResetAt(s.seed, off, size)
	return pr
}

func (s *source) close() error {
	if s.data == nil {
		return nil
	}
	return s.data.Close()
}

// upload puts one object: in one request up to a part's size (or when the
// store has no multipart uploads), in parts above.
// It returns the ETag the store gave the object.
func (r *runner) upload(ctx context.Context, it Item) (etag string, err error) {
	src, err := r.openSource(it)
	if err != nil {
		return "", fmt.Errorf("upload %s: %w", it.Key, err)
	}
	defer func() { err = errors.Join(err, src.close()) }()
	mp, ok := r.st.(storage.Multiparter)
	if !ok || parts(it.Size, r.o.PartSize) == 1 {
		tr, start := new(storage.Trace), time.Now()
		info, err := r.st.Put(ctx, it.Key, src.section(0, it.Size), it.Size, r.putOptions(tr))
		r.request(start, tr, it.Size, err)
		return info.ETag, err
	}
	return r.uploadParts(ctx, mp, it, src)
}

// uploadParts runs a multipart upload and aborts it if any step fails.
// The abort goes to the caller's store itself, tried once, as before
// retries were a wrapper.
func (r *runner) uploadParts(ctx context.Context, mp storage.Multiparter, it Item, src *source) (string, error) {
	id, err := r.createMultipart(ctx, mp, it.Key)
	if err != nil {
		return "", err
	}
	done := make([]storage.Part, parts(it.Size, r.o.PartSize))
	err = r.forEachPart(ctx, it.Size, func(ctx context.Context, n int, off, size int64) error {
		tr, start := new(storage.Trace), time.Now()
		p, err := mp.UploadPart(ctx, it.Key, id, n, src.section(off, size), size, r.putOptions(tr))
		r.request(start, tr, size, err)
		done[n-1] = p
		return err
	})
	var info storage.ObjectInfo
	if err == nil {
		info, err = mp.CompleteMultipart(ctx, it.Key, id, done)
	}
	if err != nil {
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), abortTimeout)
		defer cancel()
		if aerr := r.raw.(storage.Multiparter).AbortMultipart(actx, it.Key, id); aerr != nil {
			err = errors.Join(err, fmt.Errorf("abort multipart upload %s of %s: %w", id, it.Key, aerr))
		}
	}
	return info.ETag, err
}

// putOptions is what every upload request carries: the checksum asked
// for, and tr to fill (nil: not traced).
func (r *runner) putOptions(tr *storage.Trace) storage.PutOptions {
	return storage.PutOptions{Trace: tr, Checksum: r.o.Checksum, ChecksumTrailer: r.o.ChecksumTrailer}
}

// createMultipart starts an upload whose parts carry the checksum asked for.
func (r *runner) createMultipart(ctx context.Context, mp storage.Multiparter, key string) (string, error) {
	if mc, ok := mp.(storage.MultipartCreator); ok && r.o.Checksum != "" {
		return mc.CreateMultipartWith(ctx, key, r.putOptions(nil))
	}
	return mp.CreateMultipart(ctx, key)
}
