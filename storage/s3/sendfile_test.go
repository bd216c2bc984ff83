package s3_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/testenv"
	pl "github.com/objbench/objbench/payload"
	"github.com/objbench/objbench/s3server"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// sendfileMin is the threshold the tests set (s3.SetSendfileMin): small,
// so bodies on both sides of it and of a small block's wrap are cheap.
const sendfileMin = 16 << 10

// fromFiles is how many of size body bytes a PUT should send with
// sendfile(2): all of a large payload body on Linux, by the direct client,
// over plain TCP, with nothing to read on the way (no trailer).
func fromFiles(client string, tls, trailer bool, size int64) uint64 {
	if runtime.GOOS != "linux" || client != "direct" || tls || trailer || size < sendfileMin {
		return 0
	}
	return uint64(size)
}

// putPayload PUTs size bytes of block as key (seed) and checks that the
// sendfile count moved by want.
func putPayload(t *testing.T, s *s3.Store, r *pl.Reader, key string, seed uint64, size int64, o storage.PutOptions, want uint64) {
	t.Helper()
	before := s3.FileBytes(s)
	r.Reset(seed, size)
	if _, err := s.Put(context.Background(), key, r, size, o); err != nil {
		t.Fatalf("PUT %s (%d bytes): %v", key, size, err)
	}
	if got := s3.FileBytes(s) - before; got != want {
		t.Errorf("PUT %s (%d bytes): %d bytes sent with sendfile, want %d", key, size, got, want)
	}
}

// checkPayload GETs key and compares every byte with the block's.
func checkPayload(t *testing.T, s *s3.Store, v *pl.Verifier, key string, seed uint64, size int64) {
	t.Helper()
	v.Reset(seed, 0)
	n, err := s.Get(context.Background(), key, storage.GetOptions{}, v)
	if err != nil || n != size || v.Checked() != size || v.Mismatch() >= 0 {
		t.Errorf("GET %s: %d bytes, %v; checked %d of %d, first wrong byte at %d", key, n, err, v.Checked(), size, v.Mismatch())
	}
}

// Sizes about a 1 MiB block: under and over the sendfile threshold, and
// across the block's wrap once and several times.
var payloadSizes = []int64{1, 4096, sendfileMin - 1, sendfileMin, 1<<20 - 3, 1<<20 + 5, 3<<20 + 777}

// Payload bodies of every size, from a random block and a letters block,
// by both clients, reach the embedded server (plain and TLS) and MinIO
// (plain, with a checksum in a header, which MinIO checks, and as a
// trailer) byte for byte; the direct client sends exactly the large plain
// ones with sendfile.
func TestPayloadPutsArriveWhole(t *testing.T) {
	emb := startEmbedded(t, "files")
	embTLS, err := s3server.Start(context.Background(), s3server.Config{TLS: true, Buckets: []string{"files"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = embTLS.Close(context.Background()) })
	m := testenv.StartMinIO(t)
	targets := []struct {
		name    string
		c       s3.Config
		tls     bool
		o       storage.PutOptions
		trailer bool
	}{
		{"embedded", s3.Config{Endpoint: emb.Endpoint(), AccessKey: emb.AccessKey(), SecretKey: emb.SecretKey()}, false, storage.PutOptions{}, false},
		{"embedded-tls", s3.Config{Endpoint: embTLS.Endpoint(), AccessKey: embTLS.AccessKey(), SecretKey: embTLS.SecretKey(), CABundle: embTLS.CAFile()}, true, storage.PutOptions{}, false},
		{"minio", s3.Config{Endpoint: m.Endpoint, AccessKey: m.AccessKey, SecretKey: m.SecretKey}, false, storage.PutOptions{}, false},
		{"minio-crc32c-header", s3.Config{Endpoint: m.Endpoint, AccessKey: m.AccessKey, SecretKey: m.SecretKey}, false, storage.PutOptions{Checksum: storage.ChecksumCRC32C}, false},
		{"minio-crc32c-trailer", s3.Config{Endpoint: m.Endpoint, AccessKey: m.AccessKey, SecretKey: m.SecretKey}, false, storage.PutOptions{Checksum: storage.ChecksumCRC32C, ChecksumTrailer: true}, true},
	}
	random, err := pl.NewBlock(1<<20, 42, 0)
	if err != nil {
		t.Fatal(err)
	}
	letters, err := pl.NewLettersBlock(1<<20, 42)
	if err != nil {
		t.Fatal(err)
	}
	blocks := map[string]*pl.Block{"random": random, "letters": letters}
	for _, tg := range targets {
		for _, client := range clients {
			t.Run(tg.name+"/"+client, func(t *testing.T) {
				c := tg.c
				c.Bucket, c.HTTPClient = "files", client
				s := connect(t, c)
				s3.SetSendfileMin(s, sendfileMin)
				if err := s.CreateBucket(context.Background()); err != nil {
					t.Fatal(err)
				}
				for bname, b := range blocks {
					r, v := pl.NewReader(b), pl.NewVerifier(b)
					for i, size := range payloadSizes {
						key := fmt.Sprintf("%s/%d", bname, size)
						seed := uint64(i*7919 + 1)
						putPayload(t, s, r, key, seed, size, tg.o, fromFiles(client, tg.tls, tg.trailer, size))
						checkPayload(t, s, v, key, seed, size)
					}
				}
			})
		}
	}
}

// A multipart upload's parts, each a payload Reader reset at its offset
// in the object (as loadgen sends them), go out with sendfile and make up
// the whole object, checked byte for byte against the embedded server
// and MinIO.
func TestPayloadPartsArriveWhole(t *testing.T) {
	emb := startEmbedded(t, "parts")
	m := testenv.StartMinIO(t)
	b, err := pl.NewBlock(1<<20, 7, 0)
	if err != nil {
		t.Fatal(err)
	}
	const part, size = 5 << 20, 11<<20 + 12345 // MinIO's smallest part; the last one short
	const seed = 99
	for name, c := range map[string]s3.Config{
		"embedded": {Endpoint: emb.Endpoint(), AccessKey: emb.AccessKey(), SecretKey: emb.SecretKey()},
		"minio":    {Endpoint: m.Endpoint, AccessKey: m.AccessKey, SecretKey: m.SecretKey},
	} {
		t.Run(name, func(t *testing.T) {
			c.Bucket = "parts"
			s := connect(t, c)
			s3.SetSendfileMin(s, sendfileMin)
			ctx := context.Background()
			if err := s.CreateBucket(ctx); err != nil {
				t.Fatal(err)
			}
			id, err := s.CreateMultipart(ctx, "mp")
			if err != nil {
				t.Fatal(err)
			}
			r := pl.NewReader(b)
			var parts []storage.Part
			before := s3.FileBytes(s)
			for n, off := 1, int64(0); off < size; n++ {
				k := min(part, size-off)
				r.ResetAt(seed, off, k)
				p, err := s.UploadPart(ctx, "mp", id, n, r, k, storage.PutOptions{})
				if err != nil {
					t.Fatalf("part %d: %v", n, err)
				}
				parts = append(parts, p)
				off += k
			}
			if _, err := s.CompleteMultipart(ctx, "mp", id, parts); err != nil {
				t.Fatal(err)
			}
			if got, want := s3.FileBytes(s)-before, fromFiles("direct", false, false, size); got != want {
				t.Errorf("%d bytes of the parts sent with sendfile, want %d", got, want)
			}
			checkPayload(t, s, pl.NewVerifier(b), "mp", seed, size)
		})
	}
}

// A server that closes the connection part-way through a large body
// ends the PUT with an error, well before the request's deadline: the
// sendfile fails as a write does and does not wait on the dead socket.
func TestPayloadPutServerClosesMidBody(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	const readFirst = 1 << 20
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			// Read the head and a MiB of the body, then hang up with
			// unread bytes queued: the client's socket is reset.
			_, _ = io.CopyN(io.Discard, c, readFirst)
			c.Close()
		}
	}()
	s := newStore(t, "http://"+l.Addr().String())
	s3.SetSendfileMin(s, sendfileMin)
	b, err := pl.NewBlock(1<<20, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := pl.NewReader(b)
	const size = 256 << 20 // far more than the socket buffers hold
	r.Reset(1, size)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = s.Put(ctx, "k", r, size, storage.PutOptions{})
	if err == nil || ctx.Err() != nil {
		t.Fatalf("PUT to a server that hung up: %v (context: %v), want the connection's error before the deadline", err, ctx.Err())
	}
	sent := s3.FileBytes(s)
	if runtime.GOOS == "linux" && (sent == 0 || sent >= size) {
		t.Errorf("%d bytes sent with sendfile before the failure, want some and not all %d", sent, size)
	}
	if c := s.Connections(); c.Opened != 1 {
		t.Errorf("connections: %+v, want the one, not retried", c)
	}
}

// By default only bodies of 32 MiB and more go out with sendfile: below
// that write(2) costs the client less (docs/design/003-large-puts-sendfile.md).
func TestSendfileDefaultThreshold(t *testing.T) {
	emb := startEmbedded(t, "threshold")
	s := connect(t, s3.Config{Endpoint: emb.Endpoint(), Bucket: "threshold", AccessKey: emb.AccessKey(), SecretKey: emb.SecretKey()})
	b, err := pl.NewBlock(1<<20, 11, 0)
	if err != nil {
		t.Fatal(err)
	}
	r, v := pl.NewReader(b), pl.NewVerifier(b)
	for i, size := range []int64{32<<20 - 1, 32 << 20} {
		key := fmt.Sprint(size)
		var want uint64
		if size >= 32<<20 {
			want = fromFiles("direct", false, false, size)
		}
		putPayload(t, s, r, key, uint64(i+1), size, storage.PutOptions{}, want)
		checkPayload(t, s, v, key, uint64(i+1), size)
	}
}
