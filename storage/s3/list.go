package s3

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/objbench/objbench/storage"
)

// maxListBody bounds one ListObjectsV2 page (1000 keys of 1 KiB are ~1.3 MB).
const maxListBody = 16 << 20

// listPage is one ListObjectsV2 response.
type listPage struct {
	IsTruncated           bool        `xml:"IsTruncated"`
	NextContinuationToken string      `xml:"NextContinuationToken"`
	EncodingType          string      `xml:"EncodingType"`
	Contents              []listEntry `xml:"Contents"`
}

// List calls fn for every object under prefix, in key order, following
// ListObjectsV2 pages. fn's error stops the listing and is returned as is.
func (s *Store) List(ctx context.Context, prefix string, fn func(storage.ObjectInfo) error) error {
	token := ""
	for {
		page, err := s.listOnce(ctx, prefix, token)
		if err != nil {
			return opError("list", prefix, err)
		}
		for _, c := range page.Contents {
			key := c.Key
			if strings.EqualFold(page.EncodingType, "url") {
				if key, err = url.QueryUnescape(c.Key); err != nil {
					return opError("list", prefix, err)
				}
			}
			info := storage.ObjectInfo{Key: key, Size: c.Size, ETag: unquote(c.ETag), ModTime: c.LastModified}
			if err := fn(info); err != nil {
				return err
			}
		}
		if !page.IsTruncated {
			return nil
		}
		if page.NextContinuationToken == "" {
			return opError("list", prefix, errors.New("s3: truncated listing without a continuation token"))
		}
		token = page.NextContinuationToken
	}
}

func (s *Store) listOnce(ctx context.Context, prefix, token string) (*listPage, error) {
	// encoding-type=url lets keys hold characters XML 1.0 cannot; keys are
	// decoded only when the server says it encoded them.
	q := url.Values{"list-type": {"2"}, "prefix": {prefix}, "encoding-type": {"url"}}
	if token != "" {
		q.Set("continuation-token", token)
	}
	body, err := s.listBody(ctx, q)
	if err != nil {
		return nil, err
	}
	return decodeListPage(body)
}

// listBody sends a listing request of the bucket with query q (and the
// store's page size) and reads its answer, at most maxListBody bytes.
func (s *Store) listBody(ctx context.Context, q url.Values) ([]byte, error) {
	if s.listPage > 0 {
		q.Set("max-keys", strconv.Itoa(s.listPage))
	}
	resp, err := s.do(s.newRequest(ctx, http.MethodGet, "", q.Encode()), nil)
	if err != nil {
		return nil, err
	}
	defer s.release(resp)
	return io.ReadAll(io.LimitReader(resp.Body, maxListBody))
}
