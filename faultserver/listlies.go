package faultserver

import (
	"bytes"
	"encoding/xml"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
)

// ListLies are the lies a broken or hostile store tells in its
// ListObjectsV2 answers (a client that deletes what it lists must check
// what it is told), and the path normalisation of a proxy in front of it.
type ListLies struct {
	// Escapes adds to every listing, for each name here, keys below the
	// prefix asked for that climb out of it: the prefix, "../" once for
	// each of its segments, then the name (objbench/RUN/../../precious/a),
	// and the same with every '/' after the prefix percent-encoded
	// (objbench/RUN/..%2F..%2Fprecious%2Fa).
	Escapes []string
	// Endless answers every listing truncated, with the same continuation
	// token, forever: a client that follows tokens never ends.
	Endless bool
	// NormalizePaths serves every request as a proxy that normalises
	// paths would pass it on: dot segments removed and slashes merged in
	// the decoded path (after the signature is checked, as a gateway that
	// signs again would).
	NormalizePaths bool
}

func (l ListLies) any() bool { return len(l.Escapes) > 0 || l.Endless }

// endlessToken is the continuation token of every endless listing page.
const endlessToken = "faultserver-endless"

// restartEndless makes a listing that follows the endless token get the
// first page again.
func restartEndless(r *http.Request) {
	if q := r.URL.Query(); r.Method == http.MethodGet && q.Get("continuation-token") == endlessToken {
		q.Del("continuation-token")
		r.URL.RawQuery = q.Encode()
	}
}

// normalizePath rewrites r as a normalising proxy forwards it.
func normalizePath(r *http.Request) {
	p := path.Clean(r.URL.Path) // removes dot segments, merges slashes
	if strings.HasSuffix(r.URL.Path, "/") && p != "/" {
		p += "/"
	}
	r.URL.Path, r.URL.RawPath = p, ""
}

// listLiar tells a handler's ListObjectsV2 answers the lies configured.
type listLiar struct {
	next http.Handler
	lies ListLies
}

func (l *listLiar) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if r.Method != http.MethodGet || q.Get("list-type") != "2" {
		l.next.ServeHTTP(w, r)
		return
	}
	rec := httptest.NewRecorder()
	l.next.ServeHTTP(rec, r)
	var page listPage
	if rec.Code != http.StatusOK || xml.Unmarshal(rec.Body.Bytes(), &page) != nil {
		copyResponse(w, rec)
		return
	}
	l.lie(&page, q.Get("prefix"))
	var b bytes.Buffer
	b.WriteString(xml.Header)
	if err := xml.NewEncoder(&b).Encode(&page); err != nil {
		copyResponse(w, rec)
		return
	}
	w.Header().Set("Content-Type", "application/xml")
	w.Header().Set("Content-Length", strconv.Itoa(b.Len()))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b.Bytes())
}

// lie changes page, a listing of prefix, as configured.
func (l *listLiar) lie(page *listPage, prefix string) {
	encoded := strings.EqualFold(page.EncodingType, "url")
	if encoded { // sorted as the keys are, not as they are spelt
		for i := range page.Contents {
			page.Contents[i].Key, _ = url.QueryUnescape(page.Contents[i].Key)
		}
	}
	up := strings.Repeat("../", strings.Count(strings.TrimSuffix(prefix, "/"), "/")+1)
	if prefix == "" {
		up = ""
	}
	for _, name := range l.lies.Escapes {
		for _, k := range []string{prefix + up + name, prefix + strings.ReplaceAll(up+name, "/", "%2F")} {
			page.Contents = append(page.Contents, listEntry{Key: k, Size: 1, ETag: `"0"`, LastModified: "2026-01-01T00:00:00.000Z"})
		}
	}
	slices.SortFunc(page.Contents, func(a, b listEntry) int { return strings.Compare(a.Key, b.Key) })
	if encoded {
		for i := range page.Contents {
			page.Contents[i].Key = url.QueryEscape(page.Contents[i].Key)
		}
	}
	page.KeyCount = len(page.Contents)
	if l.lies.Endless {
		page.IsTruncated, page.NextContinuationToken = true, endlessToken
	}
}

// listPage is the part of a ListObjectsV2 answer the lies touch; what it
// leaves out (owner, storage class) a client does not need.
type listPage struct {
	XMLName               xml.Name    `xml:"http://s3.amazonaws.com/doc/2006-03-01/ ListBucketResult"`
	Name                  string      `xml:"Name"`
	Prefix                string      `xml:"Prefix"`
	KeyCount              int         `xml:"KeyCount"`
	MaxKeys               int         `xml:"MaxKeys"`
	EncodingType          string      `xml:"EncodingType,omitempty"`
	IsTruncated           bool        `xml:"IsTruncated"`
	ContinuationToken     string      `xml:"ContinuationToken,omitempty"`
	NextContinuationToken string      `xml:"NextContinuationToken,omitempty"`
	Contents              []listEntry `xml:"Contents"`
}

type listEntry struct {
	Key          string `xml:"Key"`
	LastModified string `xml:"LastModified"`
	ETag         string `xml:"ETag"`
	Size         int64  `xml:"Size"`
}

func copyResponse(w http.ResponseWriter, rec *httptest.ResponseRecorder) {
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}
