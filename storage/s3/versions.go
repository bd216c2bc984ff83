package s3

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/objbench/objbench/storage"
)

var (
	_ storage.Versioner   = (*Store)(nil)
	_ storage.OptionStore = (*Store)(nil)
)

type versioningConfiguration struct {
	XMLName xml.Name `xml:"VersioningConfiguration"`
	Xmlns   string   `xml:"xmlns,attr,omitempty"`
	Status  string   `xml:"Status,omitempty"`
}

// SetVersioning enables versioning on the bucket, or suspends it.
func (s *Store) SetVersioning(ctx context.Context, enabled bool) error {
	status := storage.VersioningSuspended
	if enabled {
		status = storage.VersioningEnabled
	}
	body, err := xml.Marshal(versioningConfiguration{Xmlns: s3Namespace, Status: status})
	if err != nil {
		return opError("set-versioning", s.bucket, err)
	}
	req := s.newRequest(ctx, http.MethodPut, "", "versioning=")
	setBody(req, bytes.NewReader(body), int64(len(body)))
	resp, err := s.do(req, nil)
	if err != nil {
		return opError("set-versioning", s.bucket, err)
	}
	s.release(resp)
	return nil
}

// Versioning is the bucket's versioning state.
func (s *Store) Versioning(ctx context.Context) (string, error) {
	resp, err := s.do(s.newRequest(ctx, http.MethodGet, "", "versioning="), nil)
	if err != nil {
		return "", opError("versioning", s.bucket, err)
	}
	var out versioningConfiguration
	if err := s.decodeXML(resp, &out); err != nil {
		return "", opError("versioning", s.bucket, err)
	}
	return out.Status, nil
}

// versionsPage is one ListObjectVersions answer. Versions and delete
// markers come interleaved in listing order, so both are taken as they
// come (",any") and told apart by element name.
type versionsPage struct {
	IsTruncated         bool           `xml:"IsTruncated"`
	NextKeyMarker       string         `xml:"NextKeyMarker"`
	NextVersionIDMarker string         `xml:"NextVersionIdMarker"`
	EncodingType        string         `xml:"EncodingType"`
	Entries             []versionEntry `xml:",any"`
}

type versionEntry struct {
	XMLName      xml.Name
	Key          string    `xml:"Key"`
	VersionID    string    `xml:"VersionId"`
	IsLatest     bool      `xml:"IsLatest"`
	LastModified time.Time `xml:"LastModified"`
	ETag         string    `xml:"ETag"`
	Size         int64     `xml:"Size"`
}

// ListVersions calls fn for every version and delete marker under prefix
// (ListObjectVersions, page by page).
func (s *Store) ListVersions(ctx context.Context, prefix string, fn func(storage.ObjectVersion) error) error {
	keyMarker, versionMarker := "", ""
	for pages := 1; ; pages++ {
		page, err := s.versionsOnce(ctx, prefix, keyMarker, versionMarker)
		if err != nil {
			return opError("list-versions", prefix, err)
		}
		for _, e := range page.Entries {
			marker := e.XMLName.Local == "DeleteMarker"
			if !marker && e.XMLName.Local != "Version" {
				continue
			}
			key := e.Key
			if strings.EqualFold(page.EncodingType, "url") {
				if key, err = url.QueryUnescape(e.Key); err != nil {
					return opError("list-versions", prefix, err)
				}
			}
			v := storage.ObjectVersion{IsLatest: e.IsLatest, ObjectInfo: storage.ObjectInfo{Key: key, Size: e.Size,
				ETag: unquote(e.ETag), ModTime: e.LastModified, VersionID: e.VersionID, DeleteMarker: marker}}
			if err := fn(v); err != nil {
				return err
			}
		}
		if !page.IsTruncated {
			return nil
		}
		if page.NextKeyMarker == "" && page.NextVersionIDMarker == "" {
			return opError("list-versions", prefix, errors.New("s3: truncated version listing without a next marker"))
		}
		next := page.NextKeyMarker
		if strings.EqualFold(page.EncodingType, "url") {
			if next, err = url.QueryUnescape(next); err != nil {
				return opError("list-versions", prefix, fmt.Errorf("next key marker: %w", err))
			}
		}
		if next < keyMarker || next == keyMarker && page.NextVersionIDMarker == versionMarker {
			return opError("list-versions", prefix, &storage.ListingStuckError{Prefix: prefix, Pages: pages,
				Why: fmt.Sprintf("page %d's next marker %q/%q does not come after the last", pages, next, page.NextVersionIDMarker)})
		}
		keyMarker, versionMarker = next, page.NextVersionIDMarker
	}
}

func (s *Store) versionsOnce(ctx context.Context, prefix, keyMarker, versionMarker string) (*versionsPage, error) {
	q := url.Values{"versions": {""}, "prefix": {prefix}, "encoding-type": {"url"}}
	if keyMarker != "" {
		q.Set("key-marker", keyMarker)
	}
	if versionMarker != "" {
		q.Set("version-id-marker", versionMarker)
	}
	body, err := s.listBody(ctx, q)
	if err != nil {
		return nil, err
	}
	page := &versionsPage{}
	if err := xml.Unmarshal(body, page); err != nil {
		return nil, err
	}
	return page, nil
}
