package s3_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

const benchSize = 4 << 10

// The benchmarks run against two servers in this process: gofakes3 (a real
// S3 implementation; its own work dominates ns/op and allocs/op) and a
// canned HTTP/1.1 responder that allocates almost nothing per request, so
// allocs/op there is the client's cost.
func benchEndpoint(b *testing.B, name string) string {
	if name == "canned" {
		return cannedServer(b)
	}
	return fakeS3(b).URL
}

// benchStore is a store on the named benchmark server with its bucket made.
func benchStore(b *testing.B, name string) *s3.Store {
	s := newStore(b, benchEndpoint(b, name))
	if err := s.CreateBucket(context.Background()); err != nil {
		b.Fatal(err)
	}
	return s
}

func BenchmarkGet4KiB(b *testing.B) {
	for _, name := range []string{"gofakes3", "canned"} {
		b.Run(name, func(b *testing.B) {
			s, ctx := benchStore(b, name), context.Background()
			mustPut(b, s, "obj", payload(benchSize))
			var tr storage.Trace
			o := storage.GetOptions{Trace: &tr}
			b.SetBytes(benchSize)
			b.ReportAllocs()
			for b.Loop() {
				if n, err := s.Get(ctx, "obj", o, io.Discard); err != nil || n != benchSize {
					b.Fatalf("Get = %d, %v", n, err)
				}
			}
			reportConns(b, s)
		})
	}
}

func BenchmarkPut4KiB(b *testing.B) {
	for _, name := range []string{"gofakes3", "canned"} {
		b.Run(name, func(b *testing.B) {
			s, ctx := benchStore(b, name), context.Background()
			data := payload(benchSize)
			body := bytes.NewReader(data)
			var tr storage.Trace
			o := storage.PutOptions{Trace: &tr}
			b.SetBytes(benchSize)
			b.ReportAllocs()
			for b.Loop() {
				body.Reset(data)
				if _, err := s.Put(ctx, "obj", body, benchSize, o); err != nil {
					b.Fatal(err)
				}
			}
			reportConns(b, s)
		})
	}
}

// BenchmarkGetPresigned4KiB is a GET by presigned URL, not signed per
// request (a browser's or CDN origin's fetch), beside BenchmarkGet4KiB.
func BenchmarkGetPresigned4KiB(b *testing.B) {
	s, ctx := benchStore(b, "canned"), context.Background()
	u, err := s.Presign(ctx, "obj", time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	var tr storage.Trace
	o := storage.GetOptions{Trace: &tr}
	b.SetBytes(benchSize)
	b.ReportAllocs()
	for b.Loop() {
		if n, err := s.GetPresigned(ctx, u, o, io.Discard); err != nil || n != benchSize {
			b.Fatalf("GetPresigned = %d, %v", n, err)
		}
	}
}

// BenchmarkPutChecksum4KiB is a PUT with each checksum, in a header and
// as a trailer, beside BenchmarkPut4KiB (the canned server confirms
// nothing: the not-implemented answer is expected and costs one error).
func BenchmarkPutChecksum4KiB(b *testing.B) {
	for _, algo := range []storage.Checksum{storage.ChecksumCRC32, storage.ChecksumCRC64NVME, storage.ChecksumSHA256} {
		for _, trailer := range []bool{false, true} {
			b.Run(string(algo)+map[bool]string{false: "/header", true: "/trailer"}[trailer], func(b *testing.B) {
				s, ctx := benchStore(b, "canned"), context.Background()
				data := payload(benchSize)
				body := bytes.NewReader(data)
				o := storage.PutOptions{Checksum: algo, ChecksumTrailer: trailer}
				b.SetBytes(benchSize)
				b.ReportAllocs()
				for b.Loop() {
					body.Reset(data)
					if _, err := s.Put(ctx, "obj", body, benchSize, o); !errors.Is(err, storage.ErrNotImplemented) {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkRawGet4KiB is the floor: an unsigned net/http GET on the canned
// server, for comparison with BenchmarkGet4KiB/canned.
func BenchmarkRawGet4KiB(b *testing.B) {
	url := cannedServer(b) + "/bench/obj"
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}}
	b.Cleanup(client.CloseIdleConnections)
	b.SetBytes(benchSize)
	b.ReportAllocs()
	for b.Loop() {
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
}

func reportConns(b *testing.B, s *s3.Store) {
	dialed, requests := s.ConnStats()
	b.ReportMetric(float64(dialed), "dials")
	b.ReportMetric(float64(requests)/float64(b.N), "req/op")
}

// cannedServer answers GET with 4 KiB and anything else with an empty 200,
// reading requests with reused buffers.
func cannedServer(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	b.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() { defer wg.Done(); _ = serveCanned(c) }()
		}
	}()
	return "http://" + ln.Addr().String()
}

func serveCanned(c net.Conn) error {
	defer c.Close()
	getResp := append([]byte("HTTP/1.1 200 OK\r\nContent-Length: "+strconv.Itoa(benchSize)+
		"\r\nEtag: \"0123456789abcdef0123456789abcdef\"\r\n\r\n"), payload(benchSize)...)
	otherResp := []byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nEtag: \"0123456789abcdef0123456789abcdef\"\r\n\r\n")
	r := bufio.NewReaderSize(c, 64<<10)
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return err
		}
		isGet := bytes.HasPrefix(line, []byte("GET "))
		var length int64
		for {
			h, err := r.ReadSlice('\n')
			if err != nil {
				return err
			}
			if len(bytes.TrimSpace(h)) == 0 {
				break
			}
			if k, v, ok := bytes.Cut(h, []byte(":")); ok && bytes.EqualFold(k, []byte("Content-Length")) {
				length, _ = strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
			}
		}
		if _, err := r.Discard(int(length)); err != nil {
			return err
		}
		resp := otherResp
		if isGet {
			resp = getResp
		}
		if _, err := c.Write(resp); err != nil {
			return errors.Join(err, c.Close())
		}
	}
}
