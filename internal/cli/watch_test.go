package cli

import (
	"context"
	"testing"

	"github.com/objbench/objbench/report"
)

func TestParseLinkSpeed(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		bad  bool
	}{
		{"", 0, false},
		{"10G", 10e9, false},
		{"25Gbit", 25e9, false},
		{"1000Mb/s", 1e9, false},
		{"100000000", 1e8, false},
		{"2.5gbps", 2.5e9, false},
		{"fast", 0, true},
		{"-1G", 0, true},
	} {
		t.Run(c.in, func(t *testing.T) {
			got, err := parseLinkSpeed(c.in)
			if (err != nil) != c.bad || got != c.want {
				t.Errorf("parseLinkSpeed(%q) = %v, %v; want %v, error %v", c.in, got, err, c.want, c.bad)
			}
		})
	}
}

func TestTargetFacts(t *testing.T) {
	for _, c := range []struct {
		name     string
		info     report.Target
		loopback bool
		port     int
		ip       string
	}{
		{"embedded server", report.Target{Kind: "s3", Endpoint: "http://127.0.0.1:41000", Embedded: true}, true, 41000, "127.0.0.1"},
		{"localhost by name", report.Target{Kind: "s3", Endpoint: "http://localhost:9000"}, true, 9000, ""},
		{"remote https without a port", report.Target{Kind: "s3", Endpoint: "https://192.0.2.7"}, false, 443, "192.0.2.7"},
		{"AWS S3", report.Target{Kind: "s3", Endpoint: "AWS S3"}, false, 443, ""},
		{"file system", report.Target{Kind: "fs", Root: "/mnt"}, false, 0, ""},
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
