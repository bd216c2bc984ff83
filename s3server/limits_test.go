package s3server_test

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/s3server"
)

// A request signed for another region or service is 400
// AuthorizationHeaderMalformed, naming the server's region (SDKs read it
// to retry there), as S3 answers; every answer carries a request id, and
// an error's body names it too.
func TestSignatureScope(t *testing.T) {
	s := start(t, s3server.Config{Buckets: []string{bucket}, Region: "eu-west-3"})
	creds := aws.Credentials{AccessKeyID: s.AccessKey(), SecretAccessKey: s.SecretKey()}
	for _, c := range []struct {
		region, service string
		status          int
		code            string
	}{
		{"eu-west-3", "s3", 404, "NoSuchKey"},
		{"us-east-1", "s3", 400, "AuthorizationHeaderMalformed"},
		{"eu-west-3", "sqs", 400, "AuthorizationHeaderMalformed"},
	} {
		req, _ := http.NewRequestWithContext(t.Context(), "GET", s.Endpoint()+"/"+bucket+"/missing", nil)
		req.Header.Set("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD")
		if err := v4.NewSigner().SignHTTP(t.Context(), creds, req, "UNSIGNED-PAYLOAD", c.service, c.region, time.Now()); err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		id := resp.Header.Get("X-Amz-Request-Id")
		if resp.StatusCode != c.status || !strings.Contains(string(body), "<Code>"+c.code+"</Code>") ||
			id == "" || !strings.Contains(string(body), "<RequestId>"+id+"</RequestId>") {
			t.Errorf("signed for %s/%s: %d %s (request id %q)", c.region, c.service, resp.StatusCode, body, id)
		}
		if c.region == "us-east-1" && !strings.Contains(string(body), "<Region>eu-west-3</Region>") {
			t.Errorf("the region refusal does not name the server's: %s", body)
		}
	}
}

// A client that announces a body and stops sending it is answered 400
// RequestTimeout once ReadTimeout passes with nothing read, and its
// connection closed: the announced length reserves nothing and holds
// nothing open. A client that stops in the middle of its headers is
// disconnected too.
func TestReadTimeouts(t *testing.T) {
	s := start(t, s3server.Config{Buckets: []string{bucket}, NoAuth: true, ReadTimeout: 300 * time.Millisecond})
	host := strings.TrimPrefix(s.Endpoint(), "http://")
	c, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "PUT /%s/huge HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\nx", bucket, int64(5)<<30)
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second)) // a bound on the test, far above the server's
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer to a stalled body: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 400 || !strings.Contains(string(body), "RequestTimeout") {
		t.Errorf("a stalled body: %d %s", resp.StatusCode, body)
	}
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Error("the connection of a stalled body stayed open")
	}
	want(t, "nothing stored", do(t, "GET", s.Endpoint()+"/"+bucket+"/huge", nil, nil), 404)

	h, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	fmt.Fprintf(h, "GET /%s HTTP/1.1\r\nHost: x\r\n", bucket) // and no end of headers
	_ = h.SetReadDeadline(time.Now().Add(30 * time.Second))
	if n, err := io.Copy(io.Discard, h); err != nil {
		t.Errorf("a stalled head: %d bytes, %v; want the server to close", n, err)
	}
}

// Past MaxConns a new connection waits until one closes, and the log says
// so once; the waiting one is then served.
func TestConnectionLimit(t *testing.T) {
	var logged testenv.Buffer
	s := start(t, s3server.Config{Buckets: []string{bucket}, NoAuth: true, MaxConns: 2, Quiet: true,
		Log: slog.New(slog.NewTextHandler(&logged, nil))})
	host := strings.TrimPrefix(s.Endpoint(), "http://")
	var held []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		held = append(held, c)
	}
	answered := make(chan int, 1)
	go func() {
		resp, err := http.Get(s.Endpoint() + "/" + bucket + "?list-type=2")
		if err != nil {
			answered <- -1
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(logged.String(), "connection limit reached") {
		if time.Now().After(deadline) {
			t.Fatalf("no log line at the limit; log: %s", logged.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case st := <-answered:
		t.Fatalf("a third connection was served (%d) while two were open", st)
	default:
	}
	held[0].Close()
	if st := <-answered; st != 200 {
		t.Fatalf("the waiting request: %d", st)
	}
	if n := strings.Count(logged.String(), "connection limit reached"); n != 1 {
		t.Errorf("%d log lines for one time at the limit", n)
	}
}
