package s3

import (
	"bytes"
	"context"
	"crypto/md5" //nolint:gosec // S3 requires Content-MD5 on DeleteObjects
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"net/http"

	"github.com/objbench/objbench/storage"
)

var _ storage.BatchDeleter = (*Store)(nil)

type deleteRequest struct {
	XMLName xml.Name       `xml:"Delete"`
	Xmlns   string         `xml:"xmlns,attr"`
	Quiet   bool           `xml:"Quiet"`
	Objects []deleteObject `xml:"Object"`
}

type deleteObject struct {
	Key       string `xml:"Key"`
	VersionID string `xml:"VersionId,omitempty"`
}

type deleteResult struct {
	XMLName xml.Name
	Errors  []struct {
		Key       string `xml:"Key"`
		VersionID string `xml:"VersionId"`
		Code      string `xml:"Code"`
		Message   string `xml:"Message"`
	} `xml:"Error"`
	xmlError // a whole-request error sent in a 200
}

// DeleteObjects deletes up to storage.MaxBatchDelete objects in one
// request (POST ?delete, quiet: only failures are answered).
func (s *Store) DeleteObjects(ctx context.Context, objs []storage.ObjectID) ([]storage.DeleteError, error) {
	if len(objs) == 0 {
		return nil, nil
	}
	if len(objs) > storage.MaxBatchDelete {
		return nil, opError("delete-objects", s.bucket, fmt.Errorf("s3: %d objects in one request, at most %d", len(objs), storage.MaxBatchDelete))
	}
	doc := deleteRequest{Xmlns: s3Namespace, Quiet: true, Objects: make([]deleteObject, len(objs))}
	for i, o := range objs {
		if err := keyErr(o.Key); err != nil {
			return nil, opError("delete-objects", s.bucket, err)
		}
		doc.Objects[i] = deleteObject{Key: o.Key, VersionID: o.VersionID}
	}
	body, err := xml.Marshal(doc)
	if err != nil {
		return nil, opError("delete-objects", s.bucket, err)
	}
	sum := md5.Sum(body) //nolint:gosec // by protocol
	req := s.newRequest(ctx, http.MethodPost, "", "delete=")
	req.Header["Content-Md5"] = []string{base64.StdEncoding.EncodeToString(sum[:])}
	req.Header["Content-Type"] = []string{"application/xml"}
	setBody(req, bytes.NewReader(body), int64(len(body)))
	resp, err := s.do(req, nil)
	if err != nil {
		return nil, opError("delete-objects", s.bucket, err)
	}
	status := resp.StatusCode
	var out deleteResult
	if err := s.decodeXML(resp, &out); err != nil {
		return nil, opError("delete-objects", s.bucket, err)
	}
	if out.XMLName.Local == "Error" {
		se := &storage.StatusError{StatusCode: status, Code: out.Code, Message: s.redact(ctx, out.Message)}
		se.Err = sentinel(status, se.Code)
		return nil, opError("delete-objects", s.bucket, se)
	}
	var failed []storage.DeleteError
	for _, e := range out.Errors {
		failed = append(failed, storage.DeleteError{Key: e.Key, VersionID: e.VersionID, Code: e.Code, Message: s.redact(ctx, e.Message)})
	}
	return failed, nil
}
