package s3

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/objbench/objbench/storage"
)

// countingReader counts what is read of a body.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// Whatever error document a server sends: decoding it never panics, reads
// at most maxErrorBody of it, maps the codes that mean something to their
// sentinel, and the error objbench shows carries none of the credentials,
// even when the server echoes them in its code or message.
func FuzzStatusError(f *testing.F) {
	const access, secret, token = "AKIAFUZZECHO0001", "FUZZSECRETECHO+2/3", "FUZZTOKENECHO4"
	for _, s := range []string{
		`<?xml version="1.0" encoding="UTF-8"?><Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match</Message><AWSAccessKeyId>` + access + `</AWSAccessKeyId></Error>`,
		`<Error><Code>NoSuchBucket</Code><Message>no bucket</Message></Error>`,
		`<Error><Code>AccessDenied</Code><Message>key ` + access + ` secret ` + secret + ` token ` + token + `</Message></Error>`,
		`<Error><Code>` + secret + `</Code><Message>` + token + `</Message></Error>`,
		`<Error><Code>SlowDown</Code></Error>`,
		`<Error><Message>FUZZSECRET&#69;CHO+2/3</Message></Error>`,
		`<Error><Code>x`,
		"<Error><Code>C1</Code><Message>\u009b2J cleared</Message></Error>",
		"<Error><Code>Bad\x1b[2J</Code><Message>\x1b]0;owned\x07 and a long tail" + strings.Repeat(" tail", 300) + "</Message></Error>",
		``,
	} {
		f.Add([]byte(s), uint16(403), false)
	}
	st := &Store{creds: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
		return aws.Credentials{AccessKeyID: access, SecretAccessKey: secret, SessionToken: token}, nil
	})}
	f.Fuzz(func(t *testing.T, body []byte, status uint16, head bool) {
		if status < 300 || status > 599 {
			return
		}
		method := http.MethodGet
		if head {
			method = http.MethodHead
		}
		src := &countingReader{r: bytes.NewReader(body)}
		resp := &http.Response{StatusCode: int(status), Body: io.NopCloser(src), Request: &http.Request{Method: method}}
		e := st.statusError(context.Background(), resp)
		if src.n > maxErrorBody {
			t.Fatalf("read %d bytes of an error body, at most %d", src.n, maxErrorBody)
		}
		if e.StatusCode != int(status) {
			t.Fatalf("status %d became %d", status, e.StatusCode)
		}
		shown := e.Error() + "|" + e.Code + "|" + e.Message
		if len(e.Code) > maxErrorCode+8 || len(e.Message) > maxErrorMessage+8 {
			t.Fatalf("a code of %d bytes, a message of %d kept", len(e.Code), len(e.Message))
		}
		for _, r := range shown {
			if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 {
				t.Fatalf("a control character %U from the server would reach the terminal: %q", r, shown)
			}
		}
		for _, c := range []string{access, secret, token} {
			if strings.Contains(shown, c) {
				t.Fatalf("the error shows a credential: %q", shown)
			}
		}
		switch e.Code {
		case "NoSuchBucket":
			if !errors.Is(e, storage.ErrBucketNotFound) {
				t.Fatalf("NoSuchBucket is not ErrBucketNotFound: %v", e)
			}
		case "AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch":
			if !errors.Is(e, storage.ErrAccessDenied) {
				t.Fatalf("%s is not ErrAccessDenied: %v", e.Code, e)
			}
		}
	})
}
