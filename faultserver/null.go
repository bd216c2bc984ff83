package faultserver

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// nullHandler is a minimal S3 responder that keeps only object sizes:
// what the client costs, with as little server as possible.
type nullHandler struct {
	mu    sync.Mutex
	sizes map[string]int64
	zeros []byte
}

func newNullHandler() *nullHandler {
	return &nullHandler{sizes: map[string]int64{}, zeros: make([]byte, 256<<10)}
}

const emptyList = `<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><IsTruncated>false</IsTruncated><KeyCount>0</KeyCount></ListBucketResult>`

func (h *nullHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := r.URL.Path
	isObject := strings.Count(strings.Trim(key, "/"), "/") > 0
	switch {
	case r.Method == http.MethodPut:
		n, _ := io.Copy(io.Discard, r.Body)
		if isObject {
			h.mu.Lock()
			h.sizes[key] = n
			h.mu.Unlock()
		}
		w.Header().Set("ETag", `"00000000000000000000000000000000"`)
		w.WriteHeader(http.StatusOK)
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
		n, ok := h.sizes[key]
		h.mu.Unlock()
		if !ok {
			writeNotFound(w)
			return
		}
		w.Header().Set("Content-Length", strconv.FormatInt(n, 10))
		w.Header().Set("ETag", `"00000000000000000000000000000000"`)
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

func writeNotFound(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(http.StatusNotFound)
	_, _ = io.WriteString(w, `<Error><Code>NoSuchKey</Code><Message>not found</Message></Error>`)
}
