package s3server_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"golang.org/x/sync/errgroup"

	"github.com/objbench/objbench/s3server"
)

// target is a server under benchmark. "s3mem" is gofakes3 with its own
// memory backend, kept for comparison: it is what this package replaces.
// "floor" is a bare net/http handler keeping bodies in a map: no S3 at all,
// the least any server on this machine can cost.
type target struct {
	name     string
	endpoint string
}

func targets(b *testing.B) []target {
	b.Helper()
	// Unsigned requests: the server's own cost, signature checks aside.
	mem := start(b, s3server.Config{Buckets: []string{bucket}, NoAuth: true})
	dir := start(b, s3server.Config{Buckets: []string{bucket}, DataDir: b.TempDir(), NoAuth: true})
	be := s3mem.New()
	if err := be.CreateBucket(bucket); err != nil {
		b.Fatal(err)
	}
	ref := httptest.NewServer(gofakes3.New(be, gofakes3.WithTimeSkewLimit(0)).Server())
	b.Cleanup(ref.Close)
	floor := httptest.NewServer(&floorHandler{objects: map[string][]byte{}})
	b.Cleanup(floor.Close)
	return []target{{"mem", mem.Endpoint()}, {"dir", dir.Endpoint()}, {"s3mem", ref.URL}, {"floor", floor.URL}}
}

type floorHandler struct {
	mu      sync.Mutex
	objects map[string][]byte
}

func (h *floorHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPut {
		data, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		h.mu.Lock()
		h.objects[r.URL.Path] = data
		h.mu.Unlock()
		return
	}
	h.mu.Lock()
	data := h.objects[r.URL.Path]
	h.mu.Unlock()
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	_, _ = w.Write(data)
}

func benchClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}}
}

func send(b *testing.B, c *http.Client, method, url string, body []byte, buf []byte) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		b.Error(err)
		return
	}
	resp, err := c.Do(req)
	if err != nil {
		b.Error(err)
		return
	}
	_, err = io.CopyBuffer(io.Discard, resp.Body, buf)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Errorf("%s %s: %s %v", method, url, resp.Status, err)
	}
}

// BenchmarkServerGet4KiB measures small GETs with 8 requests in flight per
// CPU; allocations are the server's and the client's together.
func BenchmarkServerGet4KiB(b *testing.B) {
	benchGets(b, "small", payload(4<<10, 1), 8, 8<<10)
}

// benchGets writes data to key on each target, then GETs it with
// parallelism requests in flight per CPU, each reading through a buffer of
// bufSize.
func benchGets(b *testing.B, key string, data []byte, parallelism, bufSize int) {
	for _, tg := range targets(b) {
		b.Run(tg.name, func(b *testing.B) {
			c := benchClient()
			u := tg.endpoint + "/" + bucket + "/" + key
			send(b, c, "PUT", u, data, nil)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			b.SetParallelism(parallelism)
			b.RunParallel(func(pb *testing.PB) {
				buf := make([]byte, bufSize)
				for pb.Next() {
					send(b, c, "GET", u, nil, buf)
				}
			})
		})
	}
}

// BenchmarkServerPut4KiB measures small PUTs, 8 in flight per CPU. Each
// client cycles through 1024 keys of its own, so most PUTs replace an object.
func BenchmarkServerPut4KiB(b *testing.B) {
	data := payload(4<<10, 2)
	for _, tg := range targets(b) {
		b.Run(tg.name, func(b *testing.B) {
			c := benchClient()
			var clients atomic.Int64
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			b.SetParallelism(8)
			b.RunParallel(func(pb *testing.PB) {
				buf := make([]byte, 8<<10)
				base := fmt.Sprintf("%s/%s/small/%d/", tg.endpoint, bucket, clients.Add(1))
				for i := 0; pb.Next(); i++ {
					send(b, c, "PUT", base+strconv.Itoa(i%1024), data, buf)
				}
			})
		})
	}
}

// BenchmarkServerPutGet64MiB measures one stream of 64 MiB PUTs followed by
// GETs; MB/s counts both directions. A PUT includes the MD5 that every S3
// server computes for the ETag.
func BenchmarkServerPutGet64MiB(b *testing.B) {
	data := payload(64<<20, 3)
	for _, tg := range targets(b) {
		b.Run(tg.name, func(b *testing.B) {
			c := benchClient()
			u := tg.endpoint + "/" + bucket + "/big"
			buf := make([]byte, 1<<20)
			b.SetBytes(2 * int64(len(data)))
			for b.Loop() {
				send(b, c, "PUT", u, data, buf)
				send(b, c, "GET", u, nil, buf)
			}
		})
	}
}

// BenchmarkServerGetConcurrent64MiB reads one 64 MiB object with 4 streams:
// s3mem's global lock is not in this path, so it shows the copy cost alone.
func BenchmarkServerGetConcurrent64MiB(b *testing.B) {
	benchGets(b, "big", payload(64<<20, 4), 2, 1<<20)
}

// BenchmarkServerGet4KiBDuringBigPuts measures small GETs while another
// client keeps uploading 32 MiB objects: a server that hashes or copies
// under a global lock (s3mem) stalls every GET behind each upload.
func BenchmarkServerGet4KiBDuringBigPuts(b *testing.B) {
	small, big := payload(4<<10, 5), payload(32<<20, 6)
	for _, tg := range targets(b) {
		b.Run(tg.name, func(b *testing.B) {
			c := benchClient()
			u := tg.endpoint + "/" + bucket + "/small"
			send(b, c, "PUT", u, small, nil)
			ctx, cancel := context.WithCancel(b.Context())
			var bg errgroup.Group
			bg.Go(func() error { return putUntilDone(ctx, c, tg.endpoint+"/"+bucket+"/big", big) })
			b.ReportAllocs()
			b.SetParallelism(4)
			b.RunParallel(func(pb *testing.PB) {
				buf := make([]byte, 8<<10)
				for pb.Next() {
					send(b, c, "GET", u, nil, buf)
				}
			})
			b.StopTimer()
			cancel()
			if err := bg.Wait(); err != nil {
				b.Fatal(err)
			}
		})
	}
}

func putUntilDone(ctx context.Context, c *http.Client, u string, data []byte) error {
	for ctx.Err() == nil {
		req, err := http.NewRequestWithContext(ctx, "PUT", u, bytes.NewReader(data))
		if err != nil {
			return err
		}
		resp, err := c.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("background put: %s", resp.Status)
		}
	}
	return nil
}
