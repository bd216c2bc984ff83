package mem

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/objbench/objbench/storage"
)

// upload is one multipart upload in progress; its parts map is guarded by
// Store.mu like the object map.
type upload struct {
	key   string
	parts map[int]*object
}

// CreateMultipart starts a multipart upload for key.
func (s *Store) CreateMultipart(ctx context.Context, key string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", opErr("create multipart", key, err)
	}
	id := "upload-" + strconv.FormatUint(s.seq.Add(1), 16)
	s.mu.Lock()
	s.uploads[id] = &upload{key: key, parts: map[int]*object{}}
	s.mu.Unlock()
	return id, nil
}

func noSuchUpload(key, id string) error {
	return fmt.Errorf("no multipart upload %q for key %q", id, key)
}

// UploadPart stores a copy of part n; uploading the same n again replaces it.
func (s *Store) UploadPart(ctx context.Context, key, uploadID string, n int, body io.Reader, size int64, o storage.PutOptions) (storage.Part, error) {
	if err := ctx.Err(); err != nil {
		return storage.Part{}, opErr("upload part", key, err)
	}
	if n < 1 {
		return storage.Part{}, opErr("upload part", key, fmt.Errorf("part number %d, want >= 1", n))
	}
	data, err := readBody(body, size)
	if err != nil {
		return storage.Part{}, opErr("upload part", key, err)
	}
	part := s.newObject(data)
	s.mu.Lock()
	u := s.uploads[uploadID]
	if u != nil && u.key == key {
		u.parts[n] = part
	}
	s.mu.Unlock()
	if u == nil || u.key != key {
		return storage.Part{}, opErr("upload part", key, noSuchUpload(key, uploadID))
	}
	if o.Trace != nil {
		o.Trace.FirstByte = time.Now()
	}
	return storage.Part{Number: n, ETag: part.etag, Size: int64(len(data))}, nil
}

// CompleteMultipart joins the listed parts, in the order given, into the
// object and ends the upload.
func (s *Store) CompleteMultipart(ctx context.Context, key, uploadID string, parts []storage.Part) (storage.ObjectInfo, error) {
	if err := ctx.Err(); err != nil {
		return storage.ObjectInfo{}, opErr("complete multipart", key, err)
	}
	s.mu.Lock()
	chunks, err := s.takeParts(key, uploadID, parts)
	s.mu.Unlock()
	if err != nil {
		return storage.ObjectInfo{}, opErr("complete multipart", key, err)
	}
	// Joined outside the lock: this copy can be gigabytes.
	var size int
	for _, c := range chunks {
		size += len(c)
	}
	data := make([]byte, 0, size)
	for _, c := range chunks {
		data = append(data, c...)
	}
	obj := s.newObject(data)
	s.mu.Lock()
	s.objects[key] = obj
	s.mu.Unlock()
	return obj.info(key), nil
}

// takeParts checks parts against the upload and removes the upload. The
// caller holds s.mu.
func (s *Store) takeParts(key, uploadID string, parts []storage.Part) ([][]byte, error) {
	u := s.uploads[uploadID]
	if u == nil || u.key != key {
		return nil, noSuchUpload(key, uploadID)
	}
	if len(parts) == 0 {
		return nil, errors.New("no parts to complete the upload with")
	}
	chunks := make([][]byte, 0, len(parts))
	for i, p := range parts {
		got := u.parts[p.Number]
		switch {
		case i > 0 && p.Number <= parts[i-1].Number:
			return nil, fmt.Errorf("part %d listed after part %d: parts must be in ascending order", p.Number, parts[i-1].Number)
		case got == nil:
			return nil, fmt.Errorf("part %d was never uploaded", p.Number)
		case p.ETag != "" && p.ETag != got.etag:
			return nil, fmt.Errorf("part %d has ETag %q, the upload has %q", p.Number, p.ETag, got.etag)
		}
		chunks = append(chunks, got.data)
	}
	delete(s.uploads, uploadID)
	return chunks, nil
}

// AbortMultipart drops the upload and its parts.
func (s *Store) AbortMultipart(ctx context.Context, key, uploadID string) error {
	if err := ctx.Err(); err != nil {
		return opErr("abort multipart", key, err)
	}
	s.mu.Lock()
	u := s.uploads[uploadID]
	if u != nil && u.key == key {
		delete(s.uploads, uploadID)
	}
	s.mu.Unlock()
	if u == nil || u.key != key {
		return opErr("abort multipart", key, noSuchUpload(key, uploadID))
	}
	return nil
}
