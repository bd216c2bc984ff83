package s3server

import (
	"crypto/md5"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"io"
)

// maxDeleteKeys is S3's limit on the keys of one DeleteObjects.
const maxDeleteKeys = 1000

type deleteRequest struct {
	Quiet  bool
	Object []struct {
		Key       string
		VersionID string `xml:"VersionId"`
		ETag      string
	}
}

type deletedXML struct {
	Key                   string
	VersionID             string `xml:"VersionId,omitempty"`
	DeleteMarker          bool   `xml:",omitempty"`
	DeleteMarkerVersionID string `xml:"DeleteMarkerVersionId,omitempty"`
}

type deleteErrorXML struct {
	Key       string
	VersionID string `xml:"VersionId,omitempty"`
	Code      string
	Message   string
}

// deleteObjects serves DeleteObjects: up to 1,000 keys (or versions), each
// deleted as DeleteObject would; quiet mode reports only failures. S3
// requires Content-MD5 or a flexible checksum of the request body.
func (s *service) deleteObjects(c *call) error {
	bk, err := s.be.bucket(c.bucket)
	if err != nil {
		return err
	}
	alg, _, err := requestChecksum(c.r.Header)
	if err != nil {
		return err
	}
	if c.r.Header.Get("Content-Md5") == "" && alg == "" {
		return errInvalidRequest("Missing required header for this request: Content-MD5")
	}
	var in deleteRequest
	body, err := readBody(c, 2<<20, alg)
	if err != nil {
		return err
	}
	if err := xml.Unmarshal(body, &in); err != nil {
		return errMalformedXML(err.Error())
	}
	if len(in.Object) == 0 {
		return errMalformedXML("no objects listed")
	}
	if len(in.Object) > maxDeleteKeys {
		return errMalformedXML("more than 1000 objects in one request")
	}
	res := struct {
		XMLName xml.Name `xml:"DeleteResult"`
		Xmlns   string   `xml:"xmlns,attr"`
		Deleted []deletedXML
		Error   []deleteErrorXML
	}{Xmlns: s3ns}
	for _, o := range in.Object {
		var r deleteResult
		var err error
		if o.VersionID != "" && !validVersionID(o.VersionID) {
			err = errNoSuchVersion() // what S3 reports for such a key in a batch
		} else {
			r, err = s.be.deleteOne(bk, o.Key, o.VersionID, o.ETag)
		}
		if err != nil {
			e := asS3Err(err)
			res.Error = append(res.Error, deleteErrorXML{Key: o.Key, VersionID: o.VersionID, Code: e.code, Message: e.msg})
			continue
		}
		if in.Quiet {
			continue
		}
		d := deletedXML{Key: o.Key, VersionID: o.VersionID}
		if r.marker {
			d.DeleteMarker = true
			if o.VersionID == "" {
				d.DeleteMarkerVersionID = r.version
			}
		}
		res.Deleted = append(res.Deleted, d)
	}
	writeXML(c.w, res)
	return nil
}

// readBody reads a small request body whole and checks it against
// Content-MD5 and the flexible checksum alg (a header) if sent.
func readBody(c *call, limit int64, alg string) ([]byte, error) {
	var b []byte
	r := &hashReader{r: c.r.Body, md5: md5.New()}
	if alg != "" {
		r.sum = newChecksumHash(alg)
	}
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		b = append(b, buf[:n]...)
		if int64(len(b)) > limit {
			return nil, errMalformedXML("the request body is too large")
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, asS3Err(err)
		}
	}
	if v := c.r.Header.Get("Content-Md5"); v != "" && v != base64.StdEncoding.EncodeToString(r.md5.Sum(nil)) {
		return nil, errBadDigest("The Content-MD5 you specified did not match what we received.")
	}
	if r.sum != nil {
		sent := c.r.Header.Get(checksumHeader(alg))
		if c.chunked != nil && sent == "" {
			sent = c.chunked.trailers.Get(checksumHeader(alg))
		}
		if sent != "" {
			if err := checkSum(alg, sent, r.sum.Sum(nil)); err != nil {
				return nil, err
			}
		}
	}
	return b, nil
}
