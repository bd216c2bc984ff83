package s3server_test

import (
	"strings"
	"testing"

	"github.com/objbench/objbench/s3server"
)

// What the server does not implement it refuses with 501 NotImplemented
// naming the header, instead of storing the object without it; the
// STANDARD storage class, which every object here has, is accepted.
func TestRefusesWhatItWouldDrop(t *testing.T) {
	backends(t, func(t *testing.T, s *s3server.Server) {
		u := s.Endpoint() + "/" + bucket + "/k"
		for _, h := range []map[string]string{
			{"x-amz-server-side-encryption": "AES256"},
			{"x-amz-server-side-encryption": "aws:kms", "x-amz-server-side-encryption-aws-kms-key-id": "k"},
			{"x-amz-server-side-encryption-customer-algorithm": "AES256"},
			{"x-amz-tagging": "a=b"},
			{"x-amz-storage-class": "GLACIER"},
		} {
			r := do(t, "PUT", u, []byte("data"), h)
			want(t, "PUT with "+strings.Join(keys(h), ","), r, 501)
			if !strings.Contains(string(r.body), "NotImplemented") || !strings.Contains(string(r.body), "x-amz-") {
				t.Errorf("answer: %s", r.body)
			}
		}
		want(t, "GET of an object refused", do(t, "GET", u, nil, nil), 404)
		want(t, "PUT in STANDARD", do(t, "PUT", u, []byte("data"), map[string]string{"x-amz-storage-class": "STANDARD"}), 200)
	})
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
