package storage

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"syscall"
)

// Sentinel errors that every Store maps its failures to (wrapped, so
// errors.Is works and the original cause is kept).
var (
	ErrNotFound       = errors.New("object not found")
	ErrBucketNotFound = errors.New("bucket not found")
	ErrAccessDenied   = errors.New("access denied (check credentials)")
	ErrChecksum       = errors.New("checksum mismatch")
	// ErrCertificate is a TLS server certificate the client does not
	// trust (unknown CA, wrong host name, expired).
	ErrCertificate = errors.New("server certificate not trusted")
	// ErrNotImplemented is a feature the target does not implement: it
	// said so (501 NotImplemented), or ignored what it was asked (an
	// upload's checksum not confirmed). Counted as an outcome of the
	// target, not a failure of the client.
	ErrNotImplemented = errors.New("not implemented by this target")
	// ErrPreconditionFailed is a conditional request's condition that did
	// not hold (412; S3's 409 ConditionalRequestConflict too): a create
	// of a key that exists, a compare-and-swap that lost. An outcome.
	ErrPreconditionFailed = errors.New("precondition failed")
	// ErrNotModified is a conditional GET of an object that still has the
	// ETag the caller holds (304): nothing was transferred. An outcome.
	ErrNotModified = errors.New("not modified")
)

// StatusError is a non-success HTTP response from a network store.
type StatusError struct {
	StatusCode int
	Code       string // the service's error code, e.g. "SlowDown", if known
	Message    string
	// Err is the sentinel this response means (ErrNotFound for 404 NoSuchKey,
	// ErrAccessDenied for 403...), or nil. errors.Is sees through to it.
	Err error
}

func (e *StatusError) Unwrap() error { return e.Err }

func (e *StatusError) Error() string {
	if e.Code != "" {
		return fmt.Sprintf("http %d %s: %s", e.StatusCode, e.Code, e.Message)
	}
	return fmt.Sprintf("http %d", e.StatusCode)
}

// OpError carries which operation on which key failed.
type OpError struct {
	Op  string
	Key string
	Err error
}

func (e *OpError) Error() string { return e.Op + " " + e.Key + ": " + e.Err.Error() }
func (e *OpError) Unwrap() error { return e.Err }

// Error classes used in results: every failed op is counted under exactly one.
const (
	ClassTimeout  = "timeout"
	ClassConnRef  = "conn_refused"
	ClassConnRst  = "conn_reset"
	ClassConn     = "conn_error"
	ClassNotFound = "not_found"
	ClassDenied   = "access_denied"
	ClassChecksum = "checksum"
	ClassTLS      = "tls_certificate"
	ClassNotImpl  = "not_implemented"
	ClassPrecond  = "precondition_failed"
	ClassNotMod   = "not_modified"
	ClassCanceled = "canceled"
	ClassIO       = "io_error"
	ClassOther    = "other"
)

// Outcome reports whether an error class is an answer of the target
// rather than a failure: a condition that did not hold (412), an object
// not modified (304), a feature the target does not implement. Tables
// count them apart from errors, and they count toward no error limit.
func Outcome(class string) bool {
	return class == ClassPrecond || class == ClassNotMod || class == ClassNotImpl
}

// ClassError is an error known only by its class, as a log recorded it
// (an op log's "error" field): ErrorClass gives the class back.
type ClassError string

func (e ClassError) Error() string { return "failed: " + string(e) }

// ErrorClass names the class an operation error is counted under:
// "http_<status>" for HTTP failures, otherwise one of the Class constants.
func ErrorClass(err error) string {
	var se *StatusError
	var ce ClassError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &ce):
		return string(ce)
	// Outcomes a target answers with an HTTP status but that mean more
	// than it: named by what they mean.
	case errors.Is(err, ErrNotImplemented):
		return ClassNotImpl
	case errors.Is(err, ErrPreconditionFailed):
		return ClassPrecond
	case errors.Is(err, ErrNotModified):
		return ClassNotMod
	case errors.Is(err, ErrChecksum):
		return ClassChecksum
	case errors.As(err, &se):
		return "http_" + strconv.Itoa(se.StatusCode)
	case errors.Is(err, ErrNotFound), errors.Is(err, ErrBucketNotFound):
		return ClassNotFound
	case errors.Is(err, ErrAccessDenied):
		return ClassDenied
	case errors.Is(err, ErrCertificate):
		return ClassTLS
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return ClassTimeout
	case errors.Is(err, context.Canceled):
		return ClassCanceled
	case errors.Is(err, syscall.ECONNREFUSED):
		return ClassConnRef
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return ClassConnRst
	}
	// A file's error first: its errno (ENOSPC, EIO) satisfies net.Error
	// too, and a full disk is not a connection failure.
	var pe *os.PathError
	if errors.As(err, &pe) {
		return ClassIO
	}
	var ne net.Error
	if errors.As(err, &ne) {
		if ne.Timeout() {
			return ClassTimeout
		}
		return ClassConn
	}
	return ClassOther
}

// Unreachable reports whether err says no connection to the store could
// be made: it was refused, or the dial failed or timed out. A store that
// answers, even with an error or slowly, is reachable.
func Unreachable(err error) bool {
	if ErrorClass(err) == ClassConnRef {
		return true
	}
	var oe *net.OpError
	return errors.As(err, &oe) && oe.Op == "dial"
}

// ConnectionFailure reports whether err is a failure of the connection
// rather than an answer: Unreachable, or a connection reset or broken
// under a request. An HTTP status, a timeout waiting for an answer or a
// corrupt body is not.
func ConnectionFailure(err error) bool {
	switch ErrorClass(err) {
	case ClassConnRst, ClassConn:
		return true
	}
	return Unreachable(err)
}

// Transient reports whether trying err's operation again may succeed: the
// store was busy or failing for the moment (429, 500, 502, 503, 504,
// SlowDown), a connection failed, or the answer timed out. Not found,
// access denied, a bad request or a corrupt body will not change.
func Transient(err error) bool {
	var se *StatusError
	if errors.As(err, &se) {
		switch se.StatusCode {
		case 429, 500, 502, 503, 504:
			return true
		}
		return false
	}
	return ConnectionFailure(err) || ErrorClass(err) == ClassTimeout && !errors.Is(err, context.Canceled)
}
