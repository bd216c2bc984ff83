package faultserver

import (
	"encoding/xml"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
)

// nullHandler is a minimal S3 responder that keeps only object sizes and
// times: what the client costs, with as little server as possible. It
// still answers what clients check (warp parses Last-Modified on every
// GET): Last-Modified, ETag, Content-Length and Content-Type, a range,
// and DeleteObjects.
type nullHandler struct {
	mu      sync.Mutex
	sizes   map[string]nullObject
	uploads map[string]map[int]int64 // multipart uploads in progress: each part's size
	next    int                      // the last upload id given
	zeros   []byte
}

type nullObject struct {
	size int64
	mod  string // Last-Modified, as sent
}

const nullETag = `"00000000000000000000000000000000"`

func newNullHandler() *nullHandler {
	return &nullHandler{sizes: map[string]nullObject{}, uploads: map[string]map[int]int64{}, zeros: make([]byte, 256<<10)}
}

const emptyList = `<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><IsTruncated>false</IsTruncated><KeyCount>0</KeyCount></ListBucketResult>`

func (h *nullHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := r.URL.Path
	isObject := strings.Count(strings.Trim(key, "/"), "/") > 0
	var q url.Values // nil (Has is false) without a query: no map per plain request
	if r.URL.RawQuery != "" {
		q = r.URL.Query()
	}
	switch {
	case isObject && (q.Has("uploads") || q.Has("uploadId")):
		h.multipart(w, r, key, q)
	case r.Method == http.MethodPut:
		n := bodySize(r)
		if isObject {
			h.mu.Lock()
			h.sizes[key] = nullObject{n, string(httpDate())}
			h.mu.Unlock()
		}
		w.Header().Set("ETag", nullETag)
		w.WriteHeader(http.StatusOK)
	case r.Method == http.MethodPost && !isObject && q.Has("delete"):
		h.deleteObjects(w, r, key)
	case r.Method == http.MethodDelete:
		h.mu.Lock()
		delete(h.sizes, key)
		h.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	case !isObject:
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "application/xml")
			_, _ = io.WriteString(w, emptyList)
		}
	default:
		h.mu.Lock()
		obj, ok := h.sizes[key]
		h.mu.Unlock()
		if !ok {
			writeNotFound(w, r)
			return
		}
		n := obj.size
		hdr := w.Header()
		hdr["Last-Modified"] = []string{obj.mod}
		hdr["Etag"] = []string{nullETag}
		hdr["Content-Type"] = []string{"binary/octet-stream"}
		hdr["Accept-Ranges"] = []string{"bytes"}
		status := http.StatusOK
		if first, last, ok := byteRange(r.Header.Get("Range"), n); ok {
			hdr["Content-Range"] = []string{"bytes " + strconv.FormatInt(first, 10) + "-" + strconv.FormatInt(last, 10) + "/" + strconv.FormatInt(n, 10)}
			n, status = last-first+1, http.StatusPartialContent
		}
		hdr["Content-Length"] = []string{strconv.FormatInt(n, 10)}
		w.WriteHeader(status)
		if r.Method != http.MethodGet {
			return
		}
		for n > 0 {
			k, err := w.Write(h.zeros[:min(n, int64(len(h.zeros)))])
			if err != nil {
				return
			}
			n -= int64(k)
		}
	}
}

// multipart answers a multipart upload's requests as S3 does, keeping
// only each part's size: its creation, its parts (bodies read and
// dropped), its completion (the object's size, their sum) and its abort.
func (h *nullHandler) multipart(w http.ResponseWriter, r *http.Request, key string, q url.Values) {
	id := q.Get("uploadId")
	h.mu.Lock()
	defer h.mu.Unlock()
	parts, ok := h.uploads[id]
	switch {
	case r.Method == http.MethodPost && q.Has("uploads"):
		h.next++
		id = "null-" + strconv.Itoa(h.next)
		h.uploads[id] = map[int]int64{}
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprintf(w, `<InitiateMultipartUploadResult><Key>%s</Key><UploadId>%s</UploadId></InitiateMultipartUploadResult>`, html.EscapeString(key), id)
	case !ok:
		writeS3Error(w, r, http.StatusNotFound, "NoSuchUpload", "The specified upload does not exist.")
	case r.Method == http.MethodPut:
		n, err := strconv.Atoi(q.Get("partNumber"))
		if err != nil || n < 1 {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		h.mu.Unlock() // reading the body takes its time
		size := bodySize(r)
		h.mu.Lock()
		parts[n] = size
		w.Header().Set("ETag", nullETag)
	case r.Method == http.MethodPost:
		_, _ = io.Copy(io.Discard, r.Body)
		var total int64
		for _, n := range parts {
			total += n
		}
		h.sizes[key] = nullObject{total, string(httpDate())}
		delete(h.uploads, id)
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprintf(w, `<CompleteMultipartUploadResult><Key>%s</Key><ETag>"00000000000000000000000000000000-%d"</ETag></CompleteMultipartUploadResult>`, html.EscapeString(key), len(parts))
	case r.Method == http.MethodDelete:
		delete(h.uploads, id)
		w.WriteHeader(http.StatusNoContent)
	default:
		w.WriteHeader(http.StatusMethodNotAllowed)
	}
}

func writeNotFound(w http.ResponseWriter, r *http.Request) {
	writeS3Error(w, r, http.StatusNotFound, "NoSuchKey", "The specified key does not exist.")
}

// byteRange reads a Range header of one range ("bytes=a-b", "bytes=a-",
// "bytes=-n") within size; ok is false for none, or one it cannot serve
// (the whole object goes out then).
func byteRange(v string, size int64) (first, last int64, ok bool) {
	spec, found := strings.CutPrefix(v, "bytes=")
	a, b, dash := strings.Cut(spec, "-")
	if !found || !dash || strings.Contains(spec, ",") {
		return 0, 0, false
	}
	x, xerr := strconv.ParseInt(a, 10, 64)
	y, yerr := strconv.ParseInt(b, 10, 64)
	switch {
	case a == "" && yerr == nil && y > 0:
		first, last = max(size-y, 0), size-1
	case xerr == nil && b == "":
		first, last = x, size-1
	case xerr == nil && yerr == nil && y >= x:
		first, last = x, min(y, size-1)
	default:
		return 0, 0, false
	}
	return first, last, first <= last && first < size
}

// deleteObjects answers DeleteObjects: every key listed is deleted (and
// reported, unless quiet).
func (h *nullHandler) deleteObjects(w http.ResponseWriter, r *http.Request, bucket string) {
	var req struct {
		Quiet  bool
		Object []struct{ Key string }
	}
	if err := xml.NewDecoder(io.LimitReader(r.Body, 4<<20)).Decode(&req); err != nil {
		writeS3Error(w, r, http.StatusBadRequest, "MalformedXML", err.Error())
		return
	}
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">`)
	h.mu.Lock()
	for _, o := range req.Object {
		delete(h.sizes, strings.TrimSuffix(bucket, "/")+"/"+o.Key)
		if !req.Quiet {
			b.WriteString("<Deleted><Key>" + html.EscapeString(o.Key) + "</Key></Deleted>")
		}
	}
	h.mu.Unlock()
	b.WriteString("</DeleteResult>")
	w.Header().Set("Content-Type", "application/xml")
	_, _ = io.WriteString(w, b.String())
}

// bodySize reads r's body to its end and says how many bytes of object
// it held: an aws-chunked body (minio-go's and the SDKs' streaming
// signatures, trailers) says so in x-amz-decoded-content-length; its
// framing is not the object's (warp once found every object 176 bytes
// too long).
func bodySize(r *http.Request) int64 {
	n, _ := io.Copy(io.Discard, r.Body)
	if d, err := strconv.ParseInt(r.Header.Get("X-Amz-Decoded-Content-Length"), 10, 64); err == nil && d >= 0 {
		return d
	}
	return n
}
