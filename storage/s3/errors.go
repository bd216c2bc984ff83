package s3

import (
	"context"
	"encoding/xml"
	"io"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/objbench/objbench/storage"
)

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 64 << 10

// maxErrorCode and maxErrorMessage bound what of a server's error is kept
// (and printed): an error line, not a page.
const (
	maxErrorCode    = 64
	maxErrorMessage = 512
)

// xmlError is S3's <Error> document.
type xmlError struct {
	Code    string `xml:"Code"`
	Message string `xml:"Message"`
}

// statusError turns a non-2xx response into a *storage.StatusError with the
// sentinel it means. It reads (bounded) but does not close the body.
func (s *Store) statusError(ctx context.Context, resp *http.Response) *storage.StatusError {
	var b []byte
	if resp.Request == nil || resp.Request.Method != http.MethodHead {
		b, _ = io.ReadAll(io.LimitReader(resp.Body, maxErrorBody)) // a short read still may parse
	}
	return s.errorFrom(ctx, resp.StatusCode, b)
}

// ReplyError is r, an Exchange's answer that is not a success, as the
// Store's own calls report one: the sentinel its status and code mean,
// the code and message redacted and printable.
func (s *Store) ReplyError(ctx context.Context, r Reply) *storage.StatusError {
	return s.errorFrom(ctx, r.StatusCode, r.Body)
}

// errorFrom is the error an answer of status with body (S3's <Error>
// document, or anything else) means.
func (s *Store) errorFrom(ctx context.Context, status int, body []byte) *storage.StatusError {
	e := &storage.StatusError{StatusCode: status}
	var x xmlError
	if xml.Unmarshal(body, &x) == nil {
		e.Err = sentinel(status, x.Code)
		e.Code = printable(s.redactCode(ctx, x.Code), maxErrorCode)
		e.Message = printable(s.redact(ctx, x.Message), maxErrorMessage)
		return e
	}
	e.Err = sentinel(status, "")
	return e
}

// printable is s as a terminal may show it: control characters and
// invalid UTF-8 become '?', and at most max bytes are kept (a server's
// text is not trusted to be short or harmless: escape sequences would
// reach the user's terminal).
func printable(s string, max int) string {
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= max {
			b.WriteString("...")
			break
		}
		if r == utf8.RuneError || unicode.IsControl(r) {
			r = '?'
		}
		b.WriteRune(r)
	}
	return b.String()
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

// redactCode drops a code that carries a credential, whole: codes are
// compared (BucketAlreadyOwnedByYou), so one is never patched. Only
// credentials of a real length count (a test's one-letter key is in
// every code).
func (s *Store) redactCode(ctx context.Context, code string) string {
	c, err := s.creds.Retrieve(ctx)
	if err != nil {
		return code
	}
	for _, secret := range []string{c.SecretAccessKey, c.SessionToken, c.AccessKeyID} {
		if len(secret) >= 8 && strings.Contains(code, secret) {
			return "<redacted>"
		}
	}
	return code
}

// opError wraps err with the operation and key it failed for.
func opError(op, key string, err error) error {
	return &storage.OpError{Op: op, Key: key, Err: err}
}
