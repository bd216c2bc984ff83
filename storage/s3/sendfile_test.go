package s3_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/objbench/objbench/internal/testenv"
	pl "github.com/objbench/objbench/payload"
	"github.com/objbench/objbench/s3server"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// sendfileMin mirrors the transport's threshold (directBufSize).
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
