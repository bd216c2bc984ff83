package storage

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// ErrUnsafeKey is what errors.Is finds in a *UnsafeKeyError.
var ErrUnsafeKey = errors.New("a key that path normalisation could turn into another key")

// UnsafeKeyError is a key a server or a proxy in front of it could take for
// another: one with a '.' or '..' segment (removed, with the segment before
// it, by RFC 3986's dot-segment removal), an empty segment ('//', merged
// by many proxies), or a leading '/'. objbench never sends such a key, and
// cleanup never deletes one: DELETE /b/objbench/RUN/../../precious/a is
// DELETE /b/precious/a to a proxy that normalises paths.
type UnsafeKeyError struct {
	Key     string
	Segment string // the segment at fault, as it is in the key
}

func (e *UnsafeKeyError) Error() string {
	what := fmt.Sprintf("segment %q", e.Segment)
	if e.Segment == "" {
		what = "an empty segment"
	}
	return fmt.Sprintf("key %q has %s: a server or proxy that normalises paths could take it for another key, so it is never sent", e.Key, what)
}

func (e *UnsafeKeyError) Unwrap() error { return ErrUnsafeKey }

// CheckKeyPath returns a *UnsafeKeyError when key, read as a path, could
// be changed by path normalisation anywhere between objbench and the
// store's data: a segment (between '/' or '\', which some servers also
// take as a separator) that is empty, '.' or '..', also once
// percent-decoded (%2e%2E, and %252e decoded twice, as a careless gateway
// may). One trailing '/' is allowed (a folder marker's key). The empty key
// is not a path: callers refuse it themselves.
func CheckKeyPath(key string) error {
	rest := strings.TrimSuffix(key, "/")
	if rest == "" {
		if key == "" {
			return nil
		}
		return &UnsafeKeyError{Key: key}
	}
	start := 0
	for i := 0; i <= len(rest); i++ {
		if i < len(rest) && rest[i] != '/' && rest[i] != '\\' {
			continue
		}
		if seg := rest[start:i]; unsafeSegment(seg) {
			return &UnsafeKeyError{Key: key, Segment: seg}
		}
		start = i + 1
	}
	return nil
}

// unsafeSegment reports whether one segment of a key is empty, a dot
// segment, or becomes one (or holds a separator) when percent-decoded up
// to three times.
func unsafeSegment(seg string) bool {
	for range 4 {
		if seg == "" || seg == "." || seg == ".." {
			return true
		}
		if !strings.Contains(seg, "%") {
			return false
		}
		d, err := url.PathUnescape(seg)
		if err != nil || d == seg {
			return false
		}
		if strings.ContainsAny(d, `/\`) { // decoded, it is several segments, between others
			return CheckKeyPath("x/"+d+"/x") != nil
		}
		seg = d
	}
	return false
}
