package run

import (
	"context"
	"testing"

	"github.com/objbench/objbench/result"
)

func TestTargetFacts(t *testing.T) {
	for _, c := range []struct {
		name     string
		info     result.Target
		loopback bool
		port     int
		ip       string
	}{
		{"embedded server", result.Target{Kind: "s3", Endpoint: "http://127.0.0.1:41000", Embedded: true}, true, 41000, "127.0.0.1"},
		{"localhost by name", result.Target{Kind: "s3", Endpoint: "http://localhost:9000"}, true, 9000, ""},
		{"remote https without a port", result.Target{Kind: "s3", Endpoint: "https://192.0.2.7"}, false, 443, "192.0.2.7"},
		{"AWS S3", result.Target{Kind: "s3", Endpoint: "AWS S3"}, false, 443, ""},
		{"file system", result.Target{Kind: "fs", Root: "/mnt"}, false, 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			tf, f := targetFacts(context.Background(), c.info)
			ip := ""
			if f.IP != nil {
				ip = f.IP.String()
			}
			if tf.Loopback != c.loopback || f.Port != c.port || ip != c.ip || tf.Embedded != c.info.Embedded {
				t.Errorf("loopback %v port %d ip %q; want %v %d %q", tf.Loopback, f.Port, ip, c.loopback, c.port, c.ip)
			}
		})
	}
}
