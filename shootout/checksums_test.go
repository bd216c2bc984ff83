package shootout_test

import (
	"net/http"
	"testing"

	"github.com/objbench/objbench/shootout"
)

func TestDescribeChecksums(t *testing.T) {
	for _, c := range []struct {
		h    map[string]string
		want string
	}{
		{map[string]string{"X-Amz-Content-Sha256": "UNSIGNED-PAYLOAD"}, "none"},
		{map[string]string{"X-Amz-Trailer": "x-amz-checksum-crc32", "X-Amz-Content-Sha256": "STREAMING-UNSIGNED-PAYLOAD-TRAILER"}, "crc32 trailer (aws-chunked)"},
		{map[string]string{"X-Amz-Checksum-Crc32": "AAAAAA==", "X-Amz-Content-Sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
			"crc32 header, payload SHA-256 signed"},
		{map[string]string{"Content-Md5": "1B2M2Y8AsgTpgAmY7PhCfg=="}, "md5 (Content-MD5)"},
		{map[string]string{"X-Amz-Meta-Md5chksum": "x", "X-Amz-Content-Sha256": "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"},
			"md5 (in metadata x-amz-meta-md5chksum), payload signed chunk by chunk (SHA-256)"},
	} {
		h := http.Header{}
		for k, v := range c.h {
			h.Set(k, v)
		}
		if got := shootout.DescribeChecksums(h); got != c.want {
			t.Errorf("%v: %q, want %q", c.h, got, c.want)
		}
	}
}
