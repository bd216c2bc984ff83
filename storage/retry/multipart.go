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

var _ storage.Multiparter = (*multipartStore)(nil)

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
