package s3

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// Where both sign the same headers, our signature must equal the SDK's.
func TestSignerAgreesWithSDK(t *testing.T) {
	creds := aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"}
	tokened := creds
	tokened.SessionToken = "token/with+odd=chars"
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name, method, rawURL, rangeHdr string
		creds                          aws.Credentials
		// more headers, the payload hash among them; not If-None-Match or
		// Content-Encoding, which the SDK signs too and we do not (S3
		// requires neither signed)
		extra map[string]string
	}{
		{"plain get", "GET", "http://127.0.0.1:9000/bucket/dir/obj-00000001", "", creds, nil},
		{"ranged get", "GET", "http://127.0.0.1:9000/bucket/obj", "bytes=0-1023", creds, nil},
		{"escaped key", "HEAD", "http://s3.example.com/bucket/a%20b/c%2Bd%25e~f", "", creds, nil},
		{"query", "GET", "http://127.0.0.1:9000/bucket?list-type=2&prefix=a%2Fb%20c&continuation-token=x%3D%3D", "", creds, nil},
		{"multipart part", "PUT", "http://127.0.0.1:9000/bucket/big?uploadId=abc%2Fdef&partNumber=3", "", creds, nil},
		{"session token", "DELETE", "https://bucket.s3.eu-west-1.amazonaws.com/k", "", tokened, nil},
		{"checksum header", "PUT", "http://127.0.0.1:9000/bucket/k", "", creds, map[string]string{
			"X-Amz-Checksum-Crc64nvme": "SoXXbx67KpE="}},
		{"aws-chunked trailer", "PUT", "http://127.0.0.1:9000/bucket/k", "", creds, map[string]string{
			"X-Amz-Content-Sha256": streamingTrailer, "X-Amz-Trailer": "x-amz-checksum-crc32",
			"X-Amz-Decoded-Content-Length": "70000"}},
		{"encryption and attributes", "PUT", "http://127.0.0.1:9000/bucket/k", "bytes=0-1", tokened, map[string]string{
			hSSECAlgo: "AES256", hSSECKey: "a2V5", hSSECKeyMD5: "bWQ1", hTagging: "a=b&c=d", "X-Amz-Meta-Owner": " objbench ",
			hStorageClass: "STANDARD_IA", "Content-Md5": "x", "Content-Type": "application/xml"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			mk := func() *http.Request {
				u, err := url.Parse(c.rawURL)
				if err != nil {
					t.Fatal(err)
				}
				r := &http.Request{Method: c.method, URL: u, Host: u.Host, Header: http.Header{}}
				r.Header["X-Amz-Content-Sha256"] = []string{unsignedPayload}
				if c.rangeHdr != "" {
					r.Header["Range"] = []string{c.rangeHdr}
				}
				for k, v := range c.extra {
					r.Header[k] = []string{v}
				}
				return r
			}
			ours, theirs := mk(), mk()
			newSigner("eu-west-1", "s3").sign(ours, c.creds, now)
			sdk := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true })
			payload := unsignedPayload
			if p := c.extra["X-Amz-Content-Sha256"]; p != "" {
				payload = p
			}
			if err := sdk.SignHTTP(context.Background(), c.creds, theirs, payload, "s3", "eu-west-1", now); err != nil {
				t.Fatal(err)
			}
			if got, want := ours.Header.Get("Authorization"), theirs.Header.Get("Authorization"); got != want {
				t.Errorf("Authorization\n got: %s\nwant: %s", got, want)
			}
		})
	}
}

// A presigned URL carries the same query and signature as the SDK's
// presigner makes for the same request.
func TestPresignAgreesWithSDK(t *testing.T) {
	creds := aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", SessionToken: "tok/en+="}
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for _, raw := range []string{"http://127.0.0.1:9000/bucket/dir/a%20b%2Bc", "https://bucket.s3.eu-west-1.amazonaws.com/k"} {
		u, _ := url.Parse(raw)
		ours := &http.Request{Method: "GET", URL: u, Host: u.Host, Header: http.Header{}}
		newSigner("eu-west-1", "s3").presign(ours, creds, now, 90*time.Second)
		u2, _ := url.Parse(raw)
		u2.RawQuery = "X-Amz-Expires=90"
		theirs := &http.Request{Method: "GET", URL: u2, Host: u2.Host, Header: http.Header{}}
		sdk := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true })
		signed, _, err := sdk.PresignHTTP(context.Background(), creds, theirs, unsignedPayload, "s3", "eu-west-1", now)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := url.Parse(signed)
		got, wq := ours.URL.Query(), want.Query()
		if len(got) != len(wq) {
			t.Errorf("%s: query %v, SDK's %v", raw, got, wq)
		}
		for k := range wq {
			if got.Get(k) != wq.Get(k) {
				t.Errorf("%s: %s = %q, SDK's %q", raw, k, got.Get(k), wq.Get(k))
			}
		}
	}
}

func BenchmarkSign(b *testing.B) {
	creds := aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "secret"}
	u, _ := url.Parse("http://127.0.0.1:9000/bucket/dir/obj-00000001")
	s := newSigner("us-east-1", "s3")
	b.ReportAllocs()
	for b.Loop() {
		r := &http.Request{Method: "GET", URL: u, Host: u.Host, Header: make(http.Header, 4)}
		r.Header["X-Amz-Content-Sha256"] = []string{unsignedPayload}
		s.sign(r, creds, time.Now())
	}
}
