package retry

import (
	"context"
	"io"

	"github.com/objbench/objbench/storage"
)

// multipartStore is a Store over a store with multipart uploads.
type multipartStore struct {
	*Store
	mp storage.Multiparter
}

var (
	_ storage.Multiparter      = (*multipartStore)(nil)
	_ storage.MultipartCreator = (*multipartStore)(nil)
)

// CreateMultipart starts an upload. A retry after a lost answer may leave
// an upload the server started unused; the caller's abort does not know
// its id, so the bucket's lifecycle rules must end it.
func (s *multipartStore) CreateMultipart(ctx context.Context, key string) (string, error) {
	var id string
	err := s.do(ctx, OpCreateMultipart, key, nil, func() (err error) {
		id, err = s.mp.CreateMultipart(ctx, key)
		return err
	})
	return id, err
}

// CreateMultipartWith starts an upload with options (the parts'
// checksum, encryption...), as CreateMultipart; a store without them
// starts a plain upload only when o asks for nothing, else answers not
// implemented.
func (s *multipartStore) CreateMultipartWith(ctx context.Context, key string, o storage.PutOptions) (string, error) {
	mc, ok := s.mp.(storage.MultipartCreator)
	if !ok {
		return "", &storage.OpError{Op: OpCreateMultipart, Key: key, Err: storage.ErrNotImplemented}
	}
	var id string
	err := s.do(ctx, OpCreateMultipart, key, nil, func() (err error) {
		id, err = mc.CreateMultipartWith(ctx, key, o)
		return err
	})
	return id, err
}

// UploadPart uploads part n, rewinding a seekable body for each retry.
func (s *multipartStore) UploadPart(ctx context.Context, key, uploadID string, n int, body io.Reader, size int64, o storage.PutOptions) (storage.Part, error) {
	var p storage.Part
	err := s.do(ctx, OpUploadPart, key, rewinder(body), func() (err error) {
		p, err = s.mp.UploadPart(ctx, key, uploadID, n, body, size, o)
		return err
	})
	return p, err
}

// CompleteMultipart assembles the parts.
func (s *multipartStore) CompleteMultipart(ctx context.Context, key, uploadID string, parts []storage.Part) (storage.ObjectInfo, error) {
	var info storage.ObjectInfo
	err := s.do(ctx, OpCompleteMultipart, key, nil, func() (err error) {
		info, err = s.mp.CompleteMultipart(ctx, key, uploadID, parts)
		return err
	})
	return info, err
}

// AbortMultipart ends an upload.
func (s *multipartStore) AbortMultipart(ctx context.Context, key, uploadID string) error {
	return s.do(ctx, OpAbortMultipart, key, nil, func() error { return s.mp.AbortMultipart(ctx, key, uploadID) })
}
