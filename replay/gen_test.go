package replay_test

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// accessEntry is one request, written as an S3 server access log line in
// the documented field order by line(). Negative numbers are written "-".
type accessEntry struct {
	Time                     time.Time
	Bucket, Op, Key, URI     string
	Status                   int
	Err                      string
	Sent, Size, Total, Turn  int64
	UserAgent, Referer, Zone string
}

func dash(n int64) string {
	if n < 0 {
		return "-"
	}
	return strconv.FormatInt(n, 10)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (e accessEntry) line() string {
	zone := e.Zone
	if zone == "" {
		zone = "+0000"
	}
	t := e.Time.UTC()
	if zone != "+0000" {
		h, _ := strconv.Atoi(zone[1:3])
		m, _ := strconv.Atoi(zone[3:5])
		off := (h*60 + m) * 60
		if zone[0] == '-' {
			off = -off
		}
		t = t.In(time.FixedZone("", off))
	}
	uri := e.URI
	if uri == "" {
		uri = "GET /" + e.Bucket + "/" + e.Key + " HTTP/1.1"
	}
	ua := e.UserAgent
	if ua == "" {
		ua = "objbench-test/1.0 (linux; amd64) go/1.26"
	}
	fields := []string{
		strings.Repeat("0f", 32), // bucket owner
		e.Bucket,                 // bucket
		"[" + t.Format("02/Jan/2006:15:04:05 -0700") + "]", // time
		"10.1.2.3",                              // remote IP
		"arn:aws:iam::000000000000:user/tester", // requester
		fmt.Sprintf("%016X", e.Time.UnixNano()), // request ID
		e.Op,                                    // operation
		orDash(e.Key),                           // key (URL-encoded)
		`"` + uri + `"`,                         // request URI
		dash(int64(e.Status)),                   // HTTP status
		orDash(e.Err),                           // error code
		dash(e.Sent),                            // bytes sent
		dash(e.Size),                            // object size
		dash(e.Total),                           // total time (ms)
		dash(e.Turn),                            // turn-around time (ms)
		`"` + orDash(e.Referer) + `"`,           // referer
		`"` + ua + `"`,                          // user agent
		"-",                                     // version id
		"aG9zdGlk",                              // host id
		"SigV4",                                 // signature version
		"TLS_AES_128_GCM_SHA256",                // cipher suite
		"AuthHeader",                            // authentication type
		e.Bucket + ".s3.example.test",           // host header
		"TLSv1.3",                               // TLS version
		"-",                                     // access point ARN
		"-",                                     // ACL required
	}
	return strings.Join(fields, " ")
}
