// Command floor measures the client CPU one 4 KiB GET costs against an S3
// endpoint, four ways, so objbench's own cost can be read against floors:
//
//	nethttp   one signed GET, replayed, with Go's net/http client
//	ownloop   the same signed GET written and read on the calling
//	          goroutine, no HTTP library: the machine's floor
//
// The floors replay one request signed at the start (valid for the
// store's 15 minutes of allowed skew), so the server does the same work
// for each of the four (checks the signature, reads the 4 KiB object)
// and the client does none but HTTP. An earlier floor sent unsigned
// requests that the server refused with a short 403: less work on both
// sides, which made objbench look 1.7x the floor where it is not.
//
//	direct    objbench's S3 store, signed, its direct HTTP/1.1 client
//	std       objbench's S3 store, signed, over net/http's Transport
//
// Usage: floor ENDPOINT ACCESS_KEY SECRET_KEY CONCURRENCY [get|put]
// (bench/floor-minio.sh and bench/efficiency.sh run it). put measures a
// 4 KiB PUT the same four ways. FLOOR_MODES=ownloop,direct (say) runs
// only those; FLOOR_OPS=N makes N requests a mode (default 6000).
package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/objbench/objbench/internal/cputime"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// ops is how many requests each mode makes: FLOOR_OPS, default 6000.
var ops = 6000

func main() {
	if v := os.Getenv("FLOOR_OPS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			fmt.Fprintln(os.Stderr, "bad FLOOR_OPS", v)
			os.Exit(2)
		}
		ops = n
	}
	all := []string{"nethttp", "ownloop", "direct", "std"}
	modes := all
	if v := os.Getenv("FLOOR_MODES"); v != "" { // a comma list of the modes to run
		modes = strings.Split(v, ",")
		for _, m := range modes {
			if !slices.Contains(all, m) {
				fmt.Fprintln(os.Stderr, "bad FLOOR_MODES", v)
				os.Exit(2)
			}
		}
	}
	if len(os.Args) != 5 && len(os.Args) != 6 {
		fmt.Fprintln(os.Stderr, "usage: floor ENDPOINT ACCESS_KEY SECRET_KEY CONCURRENCY [get|put]")
		os.Exit(2)
	}
	method := http.MethodGet
	if len(os.Args) == 6 && os.Args[5] == "put" {
		method = http.MethodPut
	}
	ep, ak, sk := os.Args[1], os.Args[2], os.Args[3]
	conc, err := strconv.Atoi(os.Args[4])
	if err != nil || conc < 1 {
		fmt.Fprintln(os.Stderr, "bad concurrency")
		os.Exit(2)
	}
	ctx := context.Background()
	stores := map[string]*s3.Store{}
	for _, client := range []string{"direct", "std"} {
		st, err := s3.New(ctx, s3.Config{Endpoint: ep, Bucket: "floor", PathStyle: true, Region: "us-east-1",
			AccessKey: ak, SecretKey: sk, MaxConns: conc, HTTPClient: client})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		stores[client] = st
	}
	if err := stores["direct"].CreateBucket(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	body := strings.Repeat("x", 4096)
	if _, err := stores["direct"].Put(ctx, "obj", strings.NewReader(body), 4096, storage.PutOptions{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer func() { _ = stores["direct"].Delete(ctx, "obj"); _ = stores["direct"].DeleteBucket(ctx) }()
	signed, err := stores["direct"].SignedRequest(ctx, method, "obj")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if method == http.MethodPut {
		signed.ContentLength = int64(len(body))
		signed.Body = io.NopCloser(strings.NewReader(body))
		signed.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(body)), nil }
	}
	var head bytes.Buffer // the whole request, body included, to replay
	if err := signed.Write(&head); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	u, _ := url.Parse(ep)
	for _, mode := range modes {
		var op func() error
		switch mode {
		case "nethttp":
			cl := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc, DisableCompression: true}}
			op = func() error {
				req := signed.Clone(ctx)
				if method == http.MethodPut {
					req.Body, _ = signed.GetBody()
				}
				resp, err := cl.Do(req)
				if err != nil {
					return err
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				if resp.StatusCode != http.StatusOK {
					return fmt.Errorf("nethttp: %s", resp.Status)
				}
				return resp.Body.Close()
			}
		case "ownloop":
			op = nil // per-worker connections, below
		default:
			st := stores[mode]
			op = func() error { _, err := st.Get(ctx, "obj", storage.GetOptions{}, io.Discard); return err }
			if method == http.MethodPut {
				op = func() error {
					_, err := st.Put(ctx, "obj", strings.NewReader(body), int64(len(body)), storage.PutOptions{})
					return err
				}
			}
		}
		cpu, wall, err := run(conc, op, u.Host, head.Bytes())
		if err != nil {
			fmt.Fprintln(os.Stderr, mode, err)
			os.Exit(1)
		}
		fmt.Printf("%-8s %s conc %-3d %7.0f ops/s  %6.1f µs client CPU/op\n", mode, method, conc, float64(ops)/wall.Seconds(),
			float64(cpu.Microseconds())/float64(ops))
	}
}

// run does ops GETs with conc workers and returns the process CPU and wall time.
func run(conc int, op func() error, host string, head []byte) (time.Duration, time.Duration, error) {
	var wg sync.WaitGroup
	errs := make(chan error, conc)
	c0, t0 := cpuTime(), time.Now()
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := op
			if f == nil {
				var err error
				if f, err = ownLoop(host, head); err != nil {
					errs <- err
					return
				}
			}
			for range ops / conc {
				if err := f(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return cpuTime() - c0, time.Since(t0), <-errs
}

// ownLoop is one connection replaying the signed GET req on the calling
// goroutine.
func ownLoop(host string, req []byte) (func() error, error) {
	c, err := net.Dial("tcp", host)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(c, 32<<10)
	tp := textproto.NewReader(br)
	return func() error {
		if _, err := c.Write(req); err != nil {
			return err
		}
		status, err := tp.ReadLine()
		if err != nil {
			return err
		}
		if !strings.Contains(status, " 200 ") {
			return fmt.Errorf("ownloop: %s", status)
		}
		h, err := tp.ReadMIMEHeader()
		if err != nil {
			return err
		}
		n, _ := strconv.ParseInt(h.Get("Content-Length"), 10, 64)
		_, err = io.CopyN(io.Discard, br, n)
		return err
	}, nil
}

func cpuTime() time.Duration {
	u, s := cputime.Process()
	return u + s
}
