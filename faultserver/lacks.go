package faultserver

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
)

// Lacks makes the server a store without some S3 features, the two ways
// stores lack them: by refusing the request (501 NotImplemented, as S3
// answers what it does not implement) or by ignoring what they do not
// know (the feature's headers dropped after the signature was checked:
// the request is served as if they had not been sent). Features:
//
//	tagging            x-amz-tagging on writes, ?tagging
//	conditional-write  If-None-Match and If-Match on PUT
//	conditional-read   If-None-Match and If-Match on GET and HEAD
//	checksum           x-amz-checksum-* headers and trailers, x-amz-sdk-checksum-algorithm
//	versioning         ?versioning, ?versions, ?versionId
//	multipart          ?uploads, ?uploadId
//	copy               x-amz-copy-source
//	delete-objects     POST ?delete
//	object-lock        ?object-lock
//
// A checksum sent as a trailer cannot be ignored (the body is aws-chunked):
// Ignore leaves trailers alone.
type Lacks struct {
	Refuse []string
	Ignore []string
}

// LackableFeatures are the features Lacks knows.
func LackableFeatures() []string {
	return []string{"tagging", "conditional-write", "conditional-read", "checksum", "versioning", "multipart", "copy", "delete-objects", "object-lock"}
}

func (l Lacks) validate() error {
	for _, f := range append(slices.Clone(l.Refuse), l.Ignore...) {
		if !slices.Contains(LackableFeatures(), f) {
			return fmt.Errorf("faultserver: unknown feature %q to lack (known: %s)", f, strings.Join(LackableFeatures(), ", "))
		}
	}
	return nil
}

// uses reports whether r asks for feature.
func uses(r *http.Request, feature string) bool {
	q, h := r.URL.Query(), r.Header
	has := func(names ...string) bool {
		for _, n := range names {
			if _, ok := q[n]; ok {
				return true
			}
		}
		return false
	}
	switch feature {
	case "tagging":
		return has("tagging") || (h.Get("X-Amz-Tagging") != "" && r.Method == http.MethodPut)
	case "conditional-write":
		return r.Method == http.MethodPut && (h.Get("If-None-Match") != "" || h.Get("If-Match") != "")
	case "conditional-read":
		return (r.Method == http.MethodGet || r.Method == http.MethodHead) && (h.Get("If-None-Match") != "" || h.Get("If-Match") != "")
	case "checksum":
		return len(checksumHeaders(h)) > 0 || strings.Contains(strings.ToLower(h.Get("X-Amz-Trailer")), "checksum")
	case "versioning":
		return has("versioning", "versions", "versionId")
	case "multipart":
		return has("uploads", "uploadId")
	case "copy":
		return h.Get("X-Amz-Copy-Source") != ""
	case "delete-objects":
		return r.Method == http.MethodPost && has("delete")
	case "object-lock":
		return has("object-lock")
	}
	return false
}

func checksumHeaders(h http.Header) []string {
	var names []string
	for k := range h {
		if l := strings.ToLower(k); strings.HasPrefix(l, "x-amz-checksum-") && l != "x-amz-checksum-mode" || l == "x-amz-sdk-checksum-algorithm" {
			names = append(names, k)
		}
	}
	return names
}

// refuser answers 501 NotImplemented to requests for a refused feature.
type refuser struct {
	next    http.Handler
	refused []string
}

func (f *refuser) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	for _, feature := range f.refused {
		if uses(r, feature) {
			_, _ = io.Copy(io.Discard, r.Body)
			writeS3Error(w, r, http.StatusNotImplemented, "NotImplemented", "A header you provided implies functionality that is not implemented ("+feature+").")
			return
		}
	}
	f.next.ServeHTTP(w, r)
}

// ignore drops the headers of the ignored features from r.
func (l Lacks) ignore(r *http.Request) {
	for _, feature := range l.Ignore {
		if !uses(r, feature) {
			continue
		}
		switch feature {
		case "tagging":
			r.Header.Del("X-Amz-Tagging")
		case "conditional-write", "conditional-read":
			r.Header.Del("If-None-Match")
			r.Header.Del("If-Match")
		case "checksum":
			for _, k := range checksumHeaders(r.Header) {
				r.Header.Del(k)
			}
		case "copy":
			r.Header.Del("X-Amz-Copy-Source")
		}
	}
}
