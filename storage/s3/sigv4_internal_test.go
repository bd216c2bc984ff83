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
	}{
		{"plain get", "GET", "http://127.0.0.1:9000/bucket/dir/obj-00000001", "", creds},
		{"ranged get", "GET", "http://127.0.0.1:9000/bucket/obj", "bytes=0-1023", creds},
		{"escaped key", "HEAD", "http://s3.example.com/bucket/a%20b/c%2Bd%25e~f", "", creds},
		{"query", "GET", "http://127.0.0.1:9000/bucket?list-type=2&prefix=a%2Fb%20c&continuation-token=x%3D%3D", "", creds},
		{"multipart part", "PUT", "http://127.0.0.1:9000/bucket/big?uploadId=abc%2Fdef&partNumber=3", "", creds},
		{"session token", "DELETE", "https://bucket.s3.eu-west-1.amazonaws.com/k", "", tokened},
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
				return r
			}
			ours, theirs := mk(), mk()
			newSigner("eu-west-1", "s3").sign(ours, c.creds, now)
			sdk := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true })
			if err := sdk.SignHTTP(context.Background(), c.creds, theirs, unsignedPayload, "s3", "eu-west-1", now); err != nil {
				t.Fatal(err)
			}
			if got, want := ours.Header.Get("Authorization"), theirs.Header.Get("Authorization"); got != want {
				t.Errorf("Authorization\n got: %s\nwant: %s", got, want)
			}
		})
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
