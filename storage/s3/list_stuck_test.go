package s3_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/objbench/objbench/storage"
)

// A store whose listing never ends is caught, not followed for ever: the
// same continuation token again, the same keys under a new token, or
// empty truncated pages without end each stop the listing with a
// *storage.ListingStuckError after a bounded number of pages.
func TestListingThatDoesNotAdvanceStops(t *testing.T) {
	for _, tc := range []struct {
		name     string
		page     func(n int64) (keys []string, token string)
		maxPages int64
	}{
		{"same token", func(n int64) ([]string, string) { return []string{fmt.Sprintf("p/%03d", n)}, "again" }, 2},
		{"same keys, new tokens", func(n int64) ([]string, string) { return []string{"p/1", "p/2"}, fmt.Sprint("t", n) }, 2},
		{"keys going back", func(n int64) ([]string, string) { return []string{fmt.Sprintf("p/%03d", 100-n)}, fmt.Sprint("t", n) }, 2},
		{"empty pages", func(n int64) ([]string, string) { return nil, fmt.Sprint("t", n) }, 1001},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var pages atomic.Int64
			srv := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				keys, token := tc.page(pages.Add(1))
				var b strings.Builder
				b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><IsTruncated>true</IsTruncated>`)
				fmt.Fprintf(&b, "<NextContinuationToken>%s</NextContinuationToken>", token)
				for _, k := range keys {
					fmt.Fprintf(&b, "<Contents><Key>%s</Key><Size>1</Size></Contents>", k)
				}
				b.WriteString("</ListBucketResult>")
				w.Header().Set("Content-Type", "application/xml")
				_, _ = w.Write([]byte(b.String()))
			}))
			st := newStore(t, srv.URL)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			err := st.List(ctx, "p/", func(storage.ObjectInfo) error { return nil })
			var stuck *storage.ListingStuckError
			if !errors.As(err, &stuck) || !errors.Is(err, storage.ErrListingFault) {
				t.Fatalf("List = %v after %d pages; want a ListingStuckError", err, pages.Load())
			}
			if n := pages.Load(); n != tc.maxPages {
				t.Errorf("%d pages read; want it stopped at page %d", n, tc.maxPages)
			}
		})
	}
}

// A version listing whose next key marker does not decode (encoding-type
// url, "%zz") stops with an error naming it after that page, rather than
// going on from a marker it made up.
func TestVersionListingWithAnUndecodableMarkerStops(t *testing.T) {
	var pages atomic.Int64
	srv := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pages.Add(1)
		w.Header().Set("Content-Type", "application/xml")
		_, _ = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><ListVersionsResult><EncodingType>url</EncodingType>` +
			`<IsTruncated>true</IsTruncated><NextKeyMarker>p%2Fz%zz</NextKeyMarker><NextVersionIdMarker>v2</NextVersionIdMarker>` +
			`<Version><Key>p%2Fa</Key><VersionId>v1</VersionId><IsLatest>true</IsLatest><Size>1</Size></Version></ListVersionsResult>`))
	}))
	st := newStore(t, srv.URL)
	var keys []string
	err := st.ListVersions(context.Background(), "p/", func(v storage.ObjectVersion) error {
		keys = append(keys, v.Key)
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "next key marker") || pages.Load() != 1 || len(keys) != 1 || keys[0] != "p/a" {
		t.Fatalf("ListVersions = %v after %d pages, keys %v; want an error on the next key marker after page 1, with p/a", err, pages.Load(), keys)
	}
}
