package s3server_test

import (
	"strings"
	"testing"

	"github.com/objbench/objbench/s3server"
)

// What the server does not implement it refuses, naming the header (501
// NotImplemented) or with S3's own error for it, instead of storing the
// object without it; what it implements but does not hold (a condition, a
// checksum, an SSE-C key) it refuses as S3 does. Either way the object
// already there is left as it was. The
// STANDARD storage class, which every object here has, and the ACLs that
// give nothing away are accepted.
func TestRefusesWhatItWouldDrop(t *testing.T) {
	backends(t, func(t *testing.T, s *s3server.Server) {
		base := s.Endpoint() + "/" + bucket
		empty := s.Endpoint() + "/empty"
		want(t, "create the empty bucket", do(t, "PUT", empty, nil, nil), 200)
		u := base + "/k"
		data := payload(1000, 3)
		want(t, "put", do(t, "PUT", u, data, nil), 200)
		for _, c := range []struct {
			method string
			hdr    map[string]string
			status int
			code   string
		}{
			{"PUT", map[string]string{"x-amz-server-side-encryption-customer-key": "a2V5"}, 400, "InvalidArgument"},
			{"PUT", map[string]string{"x-amz-server-side-encryption-customer-key-md5": "a2V5"}, 400, "InvalidArgument"},
			{"PUT", map[string]string{"x-amz-server-side-encryption": "aws:nothing"}, 400, "InvalidArgument"},
			{"PUT", map[string]string{"x-amz-storage-class": "GLACIER"}, 501, "NotImplemented"},
			{"PUT", map[string]string{"x-amz-website-redirect-location": "/x"}, 501, "NotImplemented"},
			{"PUT", map[string]string{"x-amz-write-offset-bytes": "1000"}, 501, "NotImplemented"},
			{"PUT", map[string]string{"x-amz-object-lock-mode": "GOVERNANCE"}, 400, "InvalidRequest"},
			{"PUT", map[string]string{"x-amz-object-lock-legal-hold": "ON"}, 400, "InvalidRequest"},
			{"PUT", map[string]string{"x-amz-acl": "public-read"}, 400, "AccessControlListNotSupported"},
			{"PUT", map[string]string{"x-amz-grant-read": "id=x"}, 400, "AccessControlListNotSupported"},
			{"PUT", map[string]string{"x-amz-copy-source": bucket + "/k", "x-amz-copy-source-if-match": `"x"`}, 412, "PreconditionFailed"},
			{"PUT", map[string]string{"x-amz-copy-source": bucket + "/k"}, 400, "InvalidRequest"}, // onto itself, unchanged
			{"PUT", map[string]string{"x-amz-copy-source": bucket + "/k?versionId=v1"}, 400, "InvalidArgument"},
			{"DELETE", map[string]string{"If-Match": `"x"`}, 412, "PreconditionFailed"},
			{"PUT", map[string]string{"If-None-Match": "*"}, 412, "PreconditionFailed"},
			{"PUT", map[string]string{"If-Match": `"x"`}, 412, "PreconditionFailed"},
			{"PUT", map[string]string{"x-amz-checksum-crc32": "AAAAAA=="}, 400, "BadDigest"},
			{"PUT", map[string]string{"Content-MD5": "AAAAAAAAAAAAAAAAAAAAAA=="}, 400, "BadDigest"},
			{"DELETE", map[string]string{"x-amz-if-match-size": "1"}, 501, "NotImplemented"},
		} {
			what := c.method + " with " + strings.Join(keys(c.hdr), ",")
			var body []byte
			if c.method == "PUT" && c.hdr["x-amz-copy-source"] == "" {
				body = []byte("other data")
			}
			r := do(t, c.method, u, body, c.hdr)
			want(t, what, r, c.status)
			if !strings.Contains(string(r.body), "<Code>"+c.code+"</Code>") {
				t.Errorf("%s: answer %s, want %s", what, r.body, c.code)
			}
			unchanged(t, what, base, empty, data)
		}
		want(t, "create a bucket that has object lock", do(t, "PUT", s.Endpoint()+"/locked", nil,
			map[string]string{"x-amz-bucket-object-lock-enabled": "true"}), 501)
		want(t, "PUT in STANDARD", do(t, "PUT", u, []byte("data"), map[string]string{"x-amz-storage-class": "STANDARD"}), 200)
		want(t, "PUT private", do(t, "PUT", u, []byte("data"), map[string]string{"x-amz-acl": "private"}), 200)
	})
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
