package s3

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/objbench/objbench/s3server"
)

// overTheWire sends req through HTTP/1.1 framing and back, so the server
// sees it as it would arrive: the request line as net/http writes it.
func overTheWire(t *testing.T, req *http.Request) *http.Request {
	var buf bytes.Buffer
	if err := req.Write(&buf); err != nil {
		t.Skipf("net/http will not send it: %v", err)
	}
	sreq, err := http.ReadRequest(bufio.NewReader(&buf))
	if err != nil {
		t.Fatalf("net/http wrote a request it cannot read: %v\n%q", err, buf.String())
	}
	sreq.RemoteAddr = "127.0.0.1:1"
	return sreq
}

// Whatever the key and the listing prefix, a request signed by our signer
// (as every op signs it) or by the AWS SDK's is accepted by the embedded
// server's verifier: the two canonicalisations agree on every path and
// query, so no key is unreachable and no check is loose on one side.
func FuzzSignaturesVerifyOnServer(f *testing.F) {
	for _, s := range [][2]string{{"obj", ""}, {"a b/c+d%e~f", "p/"}, {"ü/\x00/..", "a b&c=d"}, {"//x", "%zz;+"}, {"", "list/"}} {
		f.Add(s[0], s[1], uint8(0))
	}
	ctx := context.Background()
	const access, secret = "AKFUZZSIGN", "fuzz/secret+key="
	h, err := s3server.NewHandler(ctx, s3server.Config{Buckets: []string{"fuzz"}, AccessKey: access, SecretKey: secret})
	if err != nil {
		f.Fatal(err)
	}
	st, err := New(ctx, Config{Endpoint: "http://127.0.0.1:9", Bucket: "fuzz", PathStyle: true, Region: "us-east-1",
		AccessKey: access, SecretKey: secret})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { st.Close() })
	creds := aws.Credentials{AccessKeyID: access, SecretAccessKey: secret}
	sdk := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true })
	methods := []string{http.MethodGet, http.MethodHead, http.MethodDelete, http.MethodPut}
	f.Fuzz(func(t *testing.T, key, prefix string, m uint8) {
		method := methods[int(m)%len(methods)]
		query := ""
		if key == "" || m >= 128 {
			query = url.Values{"list-type": {"2"}, "prefix": {prefix}, "encoding-type": {"url"}}.Encode()
		}
		ours := st.newRequest(ctx, method, key, query)
		ours.Header["X-Amz-Content-Sha256"] = []string{unsignedPayload}
		st.signer.sign(ours, creds, time.Now())
		check(t, h, "ours", overTheWire(t, ours))

		theirs := st.newRequest(ctx, method, key, query)
		theirs.Header.Set("X-Amz-Content-Sha256", unsignedPayload)
		if err := sdk.SignHTTP(ctx, creds, theirs, unsignedPayload, "s3", "us-east-1", time.Now()); err != nil {
			t.Fatal(err)
		}
		check(t, h, "the SDK's", overTheWire(t, theirs))
	})
}

func check(t *testing.T, h http.Handler, whose string, req *http.Request) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	_, _ = io.Copy(io.Discard, req.Body)
	body := rec.Body.String()
	for _, refused := range []string{"SignatureDoesNotMatch", "AuthorizationHeaderMalformed", "AccessDenied", "InvalidAccessKeyId"} {
		if strings.Contains(body, "<Code>"+refused+"</Code>") {
			t.Fatalf("%s signature refused (%d %s) for %s %q", whose, rec.Code, refused, req.Method, req.RequestURI)
		}
	}
}
