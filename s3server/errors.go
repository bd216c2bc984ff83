package s3server

import (
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/objbench/objbench/internal/s3error"
)

// s3Err is an S3 error answer: the status, S3's error code and a message.
type s3Err struct {
	status int
	code   string
	msg    string
	// header, when set, goes out with the error (x-amz-delete-marker on a
	// GET of a deleted key, say).
	header map[string]string
	// region names the server's region (AuthorizationHeaderMalformed): SDKs
	// read it to retry in the right one.
	region string
}

func (e *s3Err) Error() string { return e.code + ": " + e.msg }

func errorf(status int, code, msg string) *s3Err { return &s3Err{status: status, code: code, msg: msg} }

func errNoSuchBucket() *s3Err {
	return errorf(http.StatusNotFound, "NoSuchBucket", "The specified bucket does not exist")
}
func errNoSuchKey() *s3Err {
	return errorf(http.StatusNotFound, "NoSuchKey", "The specified key does not exist.")
}
func errNoSuchUpload() *s3Err {
	return errorf(http.StatusNotFound, "NoSuchUpload", "The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.")
}
func errNoSuchVersion() *s3Err {
	return errorf(http.StatusNotFound, "NoSuchVersion", "The specified version does not exist.")
}
func errInvalidArgument(msg string) *s3Err {
	return errorf(http.StatusBadRequest, "InvalidArgument", msg)
}
func errInvalidRequest(msg string) *s3Err {
	return errorf(http.StatusBadRequest, "InvalidRequest", msg)
}
func errMalformedXML(msg string) *s3Err {
	return errorf(http.StatusBadRequest, "MalformedXML", "The XML you provided was not well-formed or did not validate against our published schema: "+msg)
}
func errBadDigest(msg string) *s3Err { return errorf(http.StatusBadRequest, "BadDigest", msg) }
func errIncompleteBody() *s3Err {
	return errorf(http.StatusBadRequest, "IncompleteBody", "You did not provide the number of bytes specified by the Content-Length HTTP header.")
}
func errPrecondition() *s3Err {
	return errorf(http.StatusPreconditionFailed, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold")
}
func errNotModified() *s3Err { return &s3Err{status: http.StatusNotModified, code: "NotModified"} }
func errMethodNotAllowed() *s3Err {
	return errorf(http.StatusMethodNotAllowed, "MethodNotAllowed", "The specified method is not allowed against this resource.")
}
func errNotImplemented(what string) *s3Err {
	return errorf(http.StatusNotImplemented, "NotImplemented", "the embedded server does not implement "+what)
}

// asS3Err turns any error into an S3 answer: a body that ended early is
// IncompleteBody, one that stopped arriving RequestTimeout, anything else
// InternalError.
func asS3Err(err error) *s3Err {
	var e *s3Err
	var ne interface{ Timeout() bool }
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return errIncompleteBody()
	case errors.As(err, &ne) && ne.Timeout():
		return errorf(http.StatusBadRequest, "RequestTimeout", "Your socket connection to the server was not read from or written to within the timeout period.")
	}
	return errorf(http.StatusInternalServerError, "InternalError", err.Error())
}

// writeError answers err in S3's XML error format. A HEAD, and a 304,
// carry no body.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	e := asS3Err(err)
	h := w.Header()
	for k, v := range e.header {
		h.Set(k, v)
	}
	s3error.Write(w, r, e.status, s3error.Body{Code: e.code, Message: e.msg, Resource: r.URL.Path, Region: e.region,
		RequestID: h.Get("X-Amz-Request-Id"), HostID: h.Get("X-Amz-Id-2")})
}

// writeXML answers 200 with v as an XML document.
func writeXML(w http.ResponseWriter, v any) {
	body, err := xml.Marshal(v)
	if err != nil {
		body = []byte("<Error><Code>InternalError</Code></Error>")
	}
	h := w.Header()
	h.Set("Content-Type", "application/xml")
	h.Set("Content-Length", strconv.Itoa(len(xml.Header)+len(body)))
	_, _ = io.WriteString(w, xml.Header)
	_, _ = w.Write(body)
}

// s3ns is the namespace of S3's documents.
const s3ns = "http://s3.amazonaws.com/doc/2006-03-01/"

// readXML decodes a request's XML body of at most limit bytes into v.
func readXML(r *http.Request, limit int64, v any) error {
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return asS3Err(err)
	}
	if int64(len(body)) > limit {
		return errMalformedXML("the document is larger than " + strconv.FormatInt(limit, 10) + " bytes")
	}
	if err := xml.Unmarshal(body, v); err != nil {
		return errMalformedXML(err.Error())
	}
	return nil
}
