// Package s3error writes S3's XML error document: how the embedded
// server (s3server) and the fault server (faultserver) answer a request
// they refuse, as S3 does
// (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html).
package s3error

import (
	"encoding/xml"
	"io"
	"net/http"
	"strconv"
)

// Body is S3's error document. Resource, Region, RequestID and HostID
// are left empty where the server has none.
type Body struct {
	XMLName   xml.Name `xml:"Error"`
	Code      string
	Message   string
	Resource  string `xml:",omitempty"`
	Region    string `xml:",omitempty"`
	RequestID string `xml:"RequestId"`
	HostID    string `xml:"HostId"`
}

// Write answers r with status and the error document b, its length
// given; a HEAD, and a 304, carry no body (their headers alone).
func Write(w http.ResponseWriter, r *http.Request, status int, b Body) {
	if r.Method == http.MethodHead || status == http.StatusNotModified {
		w.WriteHeader(status)
		return
	}
	body, err := xml.Marshal(b)
	if err != nil { // strings only: not reached
		body = []byte("<Error><Code>InternalError</Code></Error>")
	}
	h := w.Header()
	h.Set("Content-Type", "application/xml")
	h.Set("Content-Length", strconv.Itoa(len(xml.Header)+len(body)))
	w.WriteHeader(status)
	_, _ = io.WriteString(w, xml.Header)
	_, _ = w.Write(body)
}
