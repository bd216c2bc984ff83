package s3error_test

import (
	"encoding/xml"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/objbench/objbench/internal/s3error"
)

// The document reads back as S3's error, its length is the one given, and
// a HEAD or a 304 answers without a body.
func TestWrite(t *testing.T) {
	for _, c := range []struct {
		method string
		status int
		body   bool
	}{{http.MethodGet, http.StatusNotFound, true}, {http.MethodHead, http.StatusNotFound, false}, {http.MethodGet, http.StatusNotModified, false}} {
		rec := httptest.NewRecorder()
		r := httptest.NewRequest(c.method, "/b/k", nil)
		s3error.Write(rec, r, c.status, s3error.Body{Code: "NoSuchKey", Message: "The specified key does not exist.", Resource: "/b/k", RequestID: "r1"})
		if rec.Code != c.status {
			t.Errorf("%s %d: answered %d", c.method, c.status, rec.Code)
		}
		if !c.body {
			if rec.Body.Len() != 0 {
				t.Errorf("%s %d: a body of %d bytes", c.method, c.status, rec.Body.Len())
			}
			continue
		}
		var got struct {
			Code, Message, Resource, RequestId string
		}
		if err := xml.Unmarshal(rec.Body.Bytes(), &got); err != nil || got.Code != "NoSuchKey" || got.Resource != "/b/k" || got.RequestId != "r1" {
			t.Errorf("%s: %+v, %v", c.method, got, err)
		}
		if n, _ := strconv.Atoi(rec.Header().Get("Content-Length")); n != rec.Body.Len() || rec.Header().Get("Content-Type") != "application/xml" {
			t.Errorf("Content-Length %q for %d bytes, Content-Type %q", rec.Header().Get("Content-Length"), rec.Body.Len(), rec.Header().Get("Content-Type"))
		}
	}
}
