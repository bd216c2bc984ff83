package faultserver_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/faultserver"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// The null target answers as S3 does through both HTTP clients, and the
// direct one as it runs with hundreds of workers (no read buffer while it
// waits): sizes kept, zeros served, 404 for what is not there, every
// request held the delay.
func TestNullTargetThroughTheStore(t *testing.T) {
	const delay = 20 * time.Millisecond
	srv, _ := startServer(t, faultserver.Config{Null: true, Delay: faultserver.Delay{Base: delay}})
	ctx := context.Background()
	for _, c := range []struct {
		name, client string
		conns        int
	}{{"direct", "direct", 8}, {"many", "direct", 512}, {"std", "std", 8}} {
		t.Run(c.name, func(t *testing.T) {
			st, err := s3.New(ctx, s3.Config{Endpoint: srv.Endpoint(), Bucket: srv.Bucket(), AccessKey: "a", SecretKey: "b",
				Region: "us-east-1", PathStyle: true, MaxConns: c.conns, HTTPClient: c.client})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			key := "null/" + c.name
			for _, size := range []int64{0, 4 << 10, 1 << 20} {
				start := time.Now()
				if _, err := st.Put(ctx, key, bytes.NewReader(make([]byte, size)), size, storage.PutOptions{}); err != nil {
					t.Fatalf("put %d: %v", size, err)
				}
				if held := time.Since(start); held < delay {
					t.Errorf("put answered after %v, before the %v delay", held, delay)
				}
				var got bytes.Buffer
				n, err := st.Get(ctx, key, storage.GetOptions{}, &got)
				if err != nil || n != size || !bytes.Equal(got.Bytes(), make([]byte, size)) {
					t.Fatalf("get %d: %d bytes, %v", size, n, err)
				}
				if info, err := st.Stat(ctx, key); err != nil || info.Size != size {
					t.Fatalf("stat %d: %+v %v", size, info, err)
				}
			}
			if err := st.Delete(ctx, key); err != nil {
				t.Fatal(err)
			}
			if _, err := st.Get(ctx, key, storage.GetOptions{}, io.Discard); !errors.Is(err, storage.ErrNotFound) {
				t.Fatalf("get after delete: %v, want not found", err)
			}
			listed := 0
			if err := st.List(ctx, "null/", func(storage.ObjectInfo) error { listed++; return nil }); err != nil || listed != 0 {
				t.Fatalf("list: %d objects, %v", listed, err)
			}
		})
	}
}

// Raw exchanges: a PUT asking 100-continue gets it before sending its
// body, answers on one connection follow each other (keep-alive), and a
// request saying Connection: close has the connection closed after its
// answer.
func TestNullTargetSpeaksHTTP11(t *testing.T) {
	srv, _ := startServer(t, faultserver.Config{Null: true})
	c, err := net.Dial("tcp", strings.TrimPrefix(srv.Endpoint(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(c, s); err != nil {
			t.Fatal(err)
		}
	}
	read := func(method string) *http.Response {
		t.Helper()
		resp, err := http.ReadResponse(br, &http.Request{Method: method})
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		return resp
	}
	send("PUT /" + srv.Bucket() + "/k/1 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
	if r := read("PUT"); r.StatusCode != http.StatusContinue {
		t.Fatalf("status %d before the body, want 100", r.StatusCode)
	}
	send("hello")
	if r := read("PUT"); r.StatusCode != http.StatusOK || r.Header.Get("ETag") == "" || r.Header.Get("Date") == "" {
		t.Fatalf("put: %d %v", r.StatusCode, r.Header)
	}
	send("HEAD /" + srv.Bucket() + "/k/1 HTTP/1.1\r\nHost: x\r\n\r\nGET /" + srv.Bucket() + "/k/1 HTTP/1.1\r\nHost: x\r\n\r\n")
	if r := read("HEAD"); r.StatusCode != http.StatusOK || r.ContentLength != 5 {
		t.Fatalf("head: %d, length %d", r.StatusCode, r.ContentLength)
	}
	if r := read("GET"); r.StatusCode != http.StatusOK || r.ContentLength != 5 {
		t.Fatalf("get: %d, length %d", r.StatusCode, r.ContentLength)
	}
	send("GET /" + srv.Bucket() + "/k/none HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	r := read("GET")
	if b, _ := io.ReadAll(r.Body); r.StatusCode != http.StatusNotFound || !strings.Contains(string(b), "NoSuchKey") || !r.Close {
		t.Fatalf("missing key: %d close=%v %q", r.StatusCode, r.Close, b)
	}
	if n, err := br.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Fatalf("after Connection: close: read %d, %v; want the connection closed", n, err)
	}
}

// Close ends requests still held once its context ends, and returns.
func TestNullTargetCloseCutsHeldRequests(t *testing.T) {
	srv, err := faultserver.Start(context.Background(), faultserver.Config{Null: true, Delay: faultserver.Delay{Base: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", strings.TrimPrefix(srv.Endpoint(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "GET /"+srv.Bucket()+"/ HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	// nil if Close found the request not yet read (the connection idle).
	if err := srv.Close(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("close: %v", err)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("close took %v", took)
	}
	if err := c.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Read(make([]byte, 1)); n != 0 || err == nil {
		t.Errorf("held request: read %d, %v; want the connection cut", n, err)
	}
}

// The null target answers what clients check: Last-Modified a date
// (warp's GET refuses an object without one), a range, and DeleteObjects.
func TestNullTargetAnswersWhatClientsCheck(t *testing.T) {
	srv, _ := startServer(t, faultserver.Config{Null: true})
	u := srv.Endpoint() + "/" + srv.Bucket() + "/k"
	do := func(method, url, rng string, body io.Reader) (*http.Response, []byte) {
		req, _ := http.NewRequestWithContext(t.Context(), method, url, body)
		if rng != "" {
			req.Header.Set("Range", rng)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
	do("PUT", u, "", strings.NewReader("0123456789"))
	for _, m := range []string{"GET", "HEAD"} {
		resp, _ := do(m, u, "", nil)
		if _, err := http.ParseTime(resp.Header.Get("Last-Modified")); err != nil || resp.Header.Get("ETag") == "" ||
			resp.Header.Get("Content-Length") != "10" || resp.Header.Get("Content-Type") == "" {
			t.Errorf("%s: %v", m, resp.Header)
		}
	}
	resp, b := do("GET", u, "bytes=2-4", nil)
	if resp.StatusCode != 206 || len(b) != 3 || resp.Header.Get("Content-Range") != "bytes 2-4/10" {
		t.Errorf("ranged GET: %d, %d bytes, %v", resp.StatusCode, len(b), resp.Header)
	}
	resp, b = do("POST", srv.Endpoint()+"/"+srv.Bucket()+"?delete", "", strings.NewReader("<Delete><Object><Key>k</Key></Object></Delete>"))
	if resp.StatusCode != 200 || !strings.Contains(string(b), "<Deleted><Key>k</Key></Deleted>") {
		t.Errorf("DeleteObjects: %d %s", resp.StatusCode, b)
	}
	if resp, _ := do("HEAD", u, "", nil); resp.StatusCode != 404 {
		t.Errorf("after DeleteObjects: %d", resp.StatusCode)
	}
}

// The null target takes multipart uploads (a checkpoint's shards are
// larger than one PUT may be): the object's size is its parts', an
// aborted upload leaves nothing, and an upload it does not know is 404.
func TestNullTargetTakesMultipartUploads(t *testing.T) {
	_, st := startServer(t, faultserver.Config{Null: true})
	ctx := context.Background()
	id, err := st.CreateMultipart(ctx, "null/mp")
	if err != nil {
		t.Fatal(err)
	}
	var parts []storage.Part
	for n, size := range []int64{5 << 20, 5 << 20, 1234} {
		p, err := st.UploadPart(ctx, "null/mp", id, n+1, bytes.NewReader(make([]byte, size)), size, storage.PutOptions{})
		if err != nil {
			t.Fatalf("part %d: %v", n+1, err)
		}
		parts = append(parts, p)
	}
	if _, err := st.CompleteMultipart(ctx, "null/mp", id, parts); err != nil {
		t.Fatal(err)
	}
	if info, err := st.Stat(ctx, "null/mp"); err != nil || info.Size != 10<<20+1234 {
		t.Errorf("stat: %+v %v; want %d bytes", info, err, 10<<20+1234)
	}
	id2, err := st.CreateMultipart(ctx, "null/aborted")
	if err != nil || id2 == id {
		t.Fatalf("second upload %q (first %q): %v", id2, id, err)
	}
	if err := st.AbortMultipart(ctx, "null/aborted", id2); err != nil {
		t.Fatal(err)
	}
	if _, err := st.UploadPart(ctx, "null/aborted", id2, 1, bytes.NewReader(nil), 0, storage.PutOptions{}); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("a part of an aborted upload: %v, want not found", err)
	}
	if _, err := st.Stat(ctx, "null/aborted"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("the aborted upload's object: %v, want not found", err)
	}
}

// An aws-chunked upload (a streaming signature or a trailing checksum, as
// minio-go and the SDKs send) keeps the object's own size, not its
// framing's: warp once read every 64 KiB object back as 65,712 bytes and
// counted each GET an error.
func TestNullTargetKeepsTheSizeOfChunkedUploads(t *testing.T) {
	srv, _ := startServer(t, faultserver.Config{Null: true})
	ctx := context.Background()
	st, err := s3.New(ctx, s3.Config{Endpoint: srv.Endpoint(), Bucket: srv.Bucket(), AccessKey: "a", SecretKey: "b",
		Region: "us-east-1", PathStyle: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const size = 64 << 10
	// A streaming-signature body as minio-go frames it: one chunk of the
	// object, then the final empty chunk (the null target checks no
	// signature).
	sig := strings.Repeat("0", 64)
	var body bytes.Buffer
	fmt.Fprintf(&body, "%x;chunk-signature=%s\r\n", size, sig)
	body.Write(make([]byte, size))
	fmt.Fprintf(&body, "\r\n0;chunk-signature=%s\r\n\r\n", sig)
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, srv.Endpoint()+"/"+srv.Bucket()+"/chunked/a", bytes.NewReader(body.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Encoding", "aws-chunked")
	req.Header.Set("X-Amz-Content-Sha256", "STREAMING-AWS4-HMAC-SHA256-PAYLOAD")
	req.Header.Set("X-Amz-Decoded-Content-Length", fmt.Sprint(size))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("chunked PUT: %s", resp.Status)
	}
	info, err := st.Stat(ctx, "chunked/a")
	if err != nil || info.Size != size {
		t.Fatalf("stat after an aws-chunked PUT: %d bytes (%v), want %d", info.Size, err, size)
	}
	n, err := st.Get(ctx, "chunked/a", storage.GetOptions{}, io.Discard)
	if err != nil || n != size {
		t.Errorf("GET: %d bytes (%v), want %d", n, err, size)
	}
}
