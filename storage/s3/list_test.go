package s3_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"testing"

	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

func TestListPaging(t *testing.T) {
	tests := []struct {
		name     string
		pageSize int
		keys     []string
		prefix   string
		want     []string
	}{
		{"small pages", 7, numbered("obj/", 25), "obj/", numbered("obj/", 25)},
		{"page size divides count", 5, numbered("obj/", 20), "", numbered("obj/", 20)},
		{"more than one default page", 0, numbered("k", 1001), "k", numbered("k", 1001)},
		{"prefix filters", 3, append(numbered("a/", 4), numbered("b/", 4)...), "b/", numbered("b/", 4)},
		{"nothing matches", 3, numbered("a/", 4), "zzz", nil},
		{"escaped keys", 2, []string{"p/a b", "p/c+d", "p/e%f", "p/g~h", "p/ü"}, "p/", []string{"p/a b", "p/c+d", "p/e%f", "p/g~h", "p/ü"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := bucketStore(t, func(c *s3.Config) { c.ListPageSize = tt.pageSize })
			for _, k := range tt.keys {
				mustPut(t, s, k, []byte(k))
			}
			d0, r0 := s.ConnStats()
			var got []string
			err := s.List(context.Background(), tt.prefix, func(o storage.ObjectInfo) error {
				if o.Size != int64(len(o.Key)) || o.ETag != md5hex([]byte(o.Key)) || o.ModTime.IsZero() {
					t.Errorf("listed %+v", o)
				}
				got = append(got, o.Key)
				return nil
			})
			if err != nil {
				t.Fatalf("List: %v", err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("List(%q) = %d keys %q..., want %d keys", tt.prefix, len(got), head(got), len(tt.want))
			}
			if d1, r1 := s.ConnStats(); tt.pageSize > 0 && r1-r0 < uint64(len(tt.want)/tt.pageSize) {
				t.Errorf("%d list requests (%d dials) for %d keys in pages of %d", r1-r0, d1-d0, len(tt.want), tt.pageSize)
			}
		})
	}
}

func TestListStopsOnCallbackError(t *testing.T) {
	s := bucketStore(t, func(c *s3.Config) { c.ListPageSize = 2 })
	for _, k := range numbered("k", 10) {
		mustPut(t, s, k, nil)
	}
	stop := errors.New("enough")
	calls := 0
	err := s.List(context.Background(), "", func(storage.ObjectInfo) error {
		calls++
		if calls == 3 {
			return stop
		}
		return nil
	})
	if err != stop || calls != 3 {
		t.Errorf("List = %v after %d calls, want the callback's own error after 3", err, calls)
	}
}

// numbered returns n sorted keys prefix0000...
func numbered(prefix string, n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("%s%04d", prefix, i)
	}
	return keys
}

func head(keys []string) []string {
	return keys[:min(len(keys), 5)]
}

// Servers that honour encoding-type=url (S3, MinIO; not gofakes3) send keys
// URL-encoded and say so; such keys are decoded, others are taken as is.
func TestListDecodesURLEncodedKeys(t *testing.T) {
	tests := []struct {
		encoding string
		sent     string
		want     string
	}{
		{"url", "dir%2Fa+b%25c%01", "dir/a b%c\x01"},
		{"", "dir/a+b%25c", "dir/a+b%25c"},
	}
	for _, tt := range tests {
		t.Run(tt.sent, func(t *testing.T) {
			srv := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Query().Get("encoding-type") != "url" {
					t.Errorf("query %q does not ask for encoding-type=url", r.URL.RawQuery)
				}
				_, _ = io.WriteString(w, "<ListBucketResult><EncodingType>"+tt.encoding+"</EncodingType>"+
					"<IsTruncated>false</IsTruncated><Contents><Key>"+tt.sent+"</Key><Size>3</Size></Contents></ListBucketResult>")
			}))
			var got []string
			err := newStore(t, srv.URL).List(context.Background(), "", func(o storage.ObjectInfo) error {
				got = append(got, o.Key)
				return nil
			})
			if err != nil || len(got) != 1 || got[0] != tt.want {
				t.Fatalf("List = %q, %v; want [%q]", got, err, tt.want)
			}
		})
	}
}
