package s3server

import (
	"net/http"
	"strings"
	"time"
)

// Conditional requests, as S3 answers them: on GET and HEAD the four HTTP
// conditions (RFC 9110's order: If-Match before If-Unmodified-Since,
// If-None-Match before If-Modified-Since; 412 or 304); on PUT and
// CompleteMultipartUpload If-None-Match: * and If-Match (412, and 409
// ConditionalRequestConflict when another write changed the key while
// this one was under way); on DELETE If-Match; on a copy the four
// x-amz-copy-source-if-* conditions on the source (412).

// etagMatches reports whether list (an If-Match or If-None-Match value:
// "*" or ETags, quoted or not, comma-separated) names etag.
func etagMatches(list, etag string) bool {
	etag = strings.Trim(etag, `"`)
	for v := range strings.SplitSeq(list, ",") {
		v = strings.TrimPrefix(strings.TrimSpace(v), "W/")
		if v == "*" || strings.Trim(v, `"`) == etag {
			return true
		}
	}
	return false
}

// httpTime parses a date header; ok is false for a missing or bad one,
// which S3 ignores.
func httpTime(v string) (time.Time, bool) {
	if v == "" {
		return time.Time{}, false
	}
	t, err := http.ParseTime(v)
	return t, err == nil
}

// readConditions checks the conditions of a GET or HEAD on obj: 412
// PreconditionFailed or 304 NotModified (the latter with the object's
// ETag and Last-Modified, as S3 sends them).
func readConditions(h http.Header, obj *object) error {
	if len(h) == 0 {
		return nil
	}
	return objectConditions(obj, h.Get("If-Match"), h.Get("If-None-Match"),
		h.Get("If-Modified-Since"), h.Get("If-Unmodified-Since"), true)
}

// copyConditions checks the x-amz-copy-source-if-* conditions on a copy's
// source; S3 answers every failed one with 412.
func copyConditions(h http.Header, src *object) error {
	return objectConditions(src, h.Get("X-Amz-Copy-Source-If-Match"), h.Get("X-Amz-Copy-Source-If-None-Match"),
		h.Get("X-Amz-Copy-Source-If-Modified-Since"), h.Get("X-Amz-Copy-Source-If-Unmodified-Since"), false)
}

func objectConditions(obj *object, ifMatch, ifNoneMatch, modSince, unmodSince string, read bool) error {
	mod := obj.mod.Truncate(time.Second) // Last-Modified has whole seconds
	notModified := errPrecondition()
	if read {
		notModified = errNotModified()
		notModified.header = map[string]string{"ETag": obj.etag, "Last-Modified": obj.lastMod}
	}
	if ifMatch != "" {
		if !etagMatches(ifMatch, obj.etag) {
			return errPrecondition()
		}
	} else if t, ok := httpTime(unmodSince); ok && mod.After(t) {
		return errPrecondition()
	}
	if ifNoneMatch != "" {
		if etagMatches(ifNoneMatch, obj.etag) {
			return notModified
		}
	} else if t, ok := httpTime(modSince); ok && !mod.After(t) {
		return notModified
	}
	return nil
}

// writeConditions are the conditions of a PUT or CompleteMultipartUpload.
type writeConditions struct {
	ifNoneMatch bool   // If-None-Match: * (S3 takes no other value)
	ifMatch     string // If-Match: the ETag the current version must have
}

func parseWriteConditions(h http.Header) (writeConditions, error) {
	var w writeConditions
	if v := h.Get("If-None-Match"); v != "" {
		// S3 takes * only on a write and answers 501 to an ETag; MinIO
		// and RGW evaluate one. This follows S3.
		if strings.TrimSpace(v) != "*" {
			return w, errNotImplemented("If-None-Match with a value other than * on a write")
		}
		w.ifNoneMatch = true
	}
	w.ifMatch = h.Get("If-Match")
	return w, nil
}

func (w writeConditions) none() bool { return !w.ifNoneMatch && w.ifMatch == "" }

// check tests the conditions against the key's current version (nil or a
// delete marker: no object).
func (w writeConditions) check(cur *object) error {
	exists := cur != nil && !cur.marker
	if w.ifNoneMatch && exists {
		return errPrecondition()
	}
	if w.ifMatch != "" {
		if !exists {
			return errNoSuchKey()
		}
		if !etagMatches(w.ifMatch, cur.etag) {
			return errPrecondition()
		}
	}
	return nil
}

// atPublish is the precondition a write is published under: the
// conditions held when the request arrived (checked then); failing now,
// another write won the race while this one was under way, which S3
// answers with 409.
func (w writeConditions) atPublish() precondition {
	if w.none() {
		return nil
	}
	return func(cur *object) error {
		if err := w.check(cur); err != nil {
			return errorf(http.StatusConflict, "ConditionalRequestConflict",
				"A conflicting operation occurred. If using PutObject you can retry the request. If using multipart upload you should initiate another CreateMultipartUpload request and re-upload each part.")
		}
		return nil
	}
}
