package s3

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
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
// A listing the store does not let advance stops with a
// *storage.ListingStuckError (pageGuard).
func (s *Store) List(ctx context.Context, prefix string, fn func(storage.ObjectInfo) error) error {
	token := ""
	var guard pageGuard
	for {
		page, err := s.listOnce(ctx, prefix, token)
		if err != nil {
			return opError("list", prefix, err)
		}
		if strings.EqualFold(page.EncodingType, "url") {
			for i := range page.Contents {
				if page.Contents[i].Key, err = url.QueryUnescape(page.Contents[i].Key); err != nil {
					return opError("list", prefix, err)
				}
			}
		}
		if err := guard.check(prefix, page); err != nil {
			return opError("list", prefix, err)
		}
		for _, c := range page.Contents {
			info := storage.ObjectInfo{Key: c.Key, Size: c.Size, ETag: unquote(c.ETag), ModTime: c.LastModified}
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

// maxEmptyPages bounds the truncated pages without a key a listing may
// read in a row (S3 may answer a few, behind many delete markers).
const maxEmptyPages = 1000

// pageGuard sees that a listing advances: a store that answers
// IsTruncated with the same continuation token forever, or hands back
// the same keys under new tokens, would keep a client listing (and
// cleanup waiting) for ever.
type pageGuard struct {
	seen  map[uint64]struct{} // the continuation tokens followed, hashed
	seed  maphash.Seed
	last  string // the last key of the pages so far
	pages int
	empty int // truncated pages without a key, in a row
}

// check looks at the next page of the listing of prefix.
func (g *pageGuard) check(prefix string, page *listPage) error {
	g.pages++
	stuck := func(why string) error {
		return &storage.ListingStuckError{Prefix: prefix, Pages: g.pages, Why: why}
	}
	if n := len(page.Contents); n > 0 {
		first := page.Contents[0].Key
		if g.last != "" && first <= g.last {
			return stuck(fmt.Sprintf("page %d starts at %q, not after the last page's %q", g.pages, first, g.last))
		}
		g.last, g.empty = page.Contents[n-1].Key, 0
	} else if page.IsTruncated {
		if g.empty++; g.empty > maxEmptyPages {
			return stuck(fmt.Sprintf("%d truncated pages in a row without a key", g.empty))
		}
	}
	if !page.IsTruncated || page.NextContinuationToken == "" {
		return nil
	}
	if g.seen == nil {
		g.seen, g.seed = map[uint64]struct{}{}, maphash.MakeSeed()
	}
	h := maphash.String(g.seed, page.NextContinuationToken)
	if _, ok := g.seen[h]; ok {
		return stuck(fmt.Sprintf("page %d hands back a continuation token already followed", g.pages))
	}
	g.seen[h] = struct{}{}
	return nil
}
