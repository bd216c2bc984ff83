package s3

import (
	"context"
	"encoding/xml"
	"io"
	"net/http"
	"strings"

	"github.com/objbench/objbench/storage"
)

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 64 << 10

// xmlError is S3's <Error> document.
type xmlError struct {
	Code    string `xml:"Code"`
	Message string `xml:"Message"`
}

// statusError turns a non-2xx response into a *storage.StatusError with the
// sentinel it means. It reads (bounded) but does not close the body.
func (s *Store) statusError(ctx context.Context, resp *http.Response) *storage.StatusError {
	e := &storage.StatusError{StatusCode: resp.StatusCode}
	if resp.Request == nil || resp.Request.Method != http.MethodHead {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody)) // a short read still may parse
		var x xmlError
		if xml.Unmarshal(b, &x) == nil {
			e.Code, e.Message = x.Code, s.redact(ctx, x.Message)
		}
	}
	e.Err = sentinel(e.StatusCode, e.Code)
	return e
}

// sentinel maps an S3 status and error code to a storage sentinel, or nil.
func sentinel(status int, code string) error {
	switch code {
	case "NoSuchBucket":
		return storage.ErrBucketNotFound
	case "BadDigest", "XAmzContentChecksumMismatch", "XAmzContentSHA256Mismatch":
		return storage.ErrChecksum
	case "NotImplemented":
		return storage.ErrNotImplemented
	case "PreconditionFailed", "ConditionalRequestConflict":
		return storage.ErrPreconditionFailed
	case "AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "ExpiredToken",
		"InvalidToken", "TokenRefreshRequired", "AllAccessDisabled", "AccountProblem":
		return storage.ErrAccessDenied
	}
	switch {
	case status == http.StatusNotFound:
		// NoSuchKey, NoSuchUpload, or a HEAD, which has no body to tell.
		return storage.ErrNotFound
	case (status == http.StatusForbidden || status == http.StatusUnauthorized) && code == "":
		return storage.ErrAccessDenied
	case status == http.StatusNotImplemented:
		return storage.ErrNotImplemented
	case status == http.StatusPreconditionFailed:
		return storage.ErrPreconditionFailed
	case status == http.StatusNotModified:
		return storage.ErrNotModified
	}
	return nil
}

// redact removes the credentials from a server's message: some servers
// echo the access key id, and no error of ours may carry any of them.
func (s *Store) redact(ctx context.Context, msg string) string {
	c, err := s.creds.Retrieve(ctx)
	if err != nil {
		return msg
	}
	for _, secret := range []string{c.SecretAccessKey, c.SessionToken, c.AccessKeyID} {
		if secret != "" {
			msg = strings.ReplaceAll(msg, secret, "<redacted>")
		}
	}
	return msg
}

// opError wraps err with the operation and key it failed for.
func opError(op, key string, err error) error {
	return &storage.OpError{Op: op, Key: key, Err: err}
}
