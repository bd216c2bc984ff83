package storagetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	mrand "math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/storage"
)

// Run runs the conformance suite. newStore is called once per subtest; it may
// return a fresh store (t.TempDir()) or the same shared one: every subtest
// works under its own unique key prefix and deletes what it wrote.
//
// Keys used by the suite never use one key as the "directory" of another
// ("a" and "a/b"), because file stores cannot hold both.
func Run(t *testing.T, newStore func(t *testing.T) storage.Store) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, f *fixture)
	}{
		{"RoundTrip", testRoundTrip},
		{"PutReplaces", testPutReplaces},
		{"PutShortBody", testPutShortBody},
		{"RangedGet", testRangedGet},
		{"Stat", testStat},
		{"GetMissing", testGetMissing},
		{"Delete", testDelete},
		{"List", testList},
		{"ListStops", testListStops},
		{"OddKeys", testOddKeys},
		{"Concurrent", testConcurrent},
		{"Canceled", testCanceled},
		{"Multipart", testMultipart},
		{"MultipartAbort", testMultipartAbort},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.fn(t, newFixture(t, newStore))
		})
	}
}

// fixture is one subtest's view of the store: a unique key prefix and
// helpers that fail the test on unexpected errors.
type fixture struct {
	t      *testing.T
	s      storage.Store
	prefix string
}

func newFixture(t *testing.T, newStore func(t *testing.T) storage.Store) *fixture {
	t.Helper()
	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		t.Fatal(err)
	}
	name := strings.ReplaceAll(t.Name(), "/", "-")
	f := &fixture{
		t:      t,
		s:      newStore(t),
		prefix: "storagetest-" + hex.EncodeToString(rnd[:]) + "/" + name + "/",
	}
	t.Cleanup(f.cleanup)
	return f
}

// cleanup deletes everything under the prefix. It uses its own context:
// t.Context() is already canceled when cleanups run.
func (f *fixture) cleanup() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var keys []string
	err := f.s.List(ctx, f.prefix, func(oi storage.ObjectInfo) error {
		keys = append(keys, oi.Key)
		return nil
	})
	if err != nil {
		f.t.Errorf("cleanup: list %q: %v", f.prefix, err)
		return
	}
	for _, k := range keys {
		if err := f.s.Delete(ctx, k); err != nil {
			f.t.Errorf("cleanup: delete %q: %v", k, err)
		}
	}
}

func (f *fixture) key(name string) string { return f.prefix + name }

func (f *fixture) put(key string, data []byte) storage.ObjectInfo {
	f.t.Helper()
	oi, err := f.s.Put(f.t.Context(), key, bytes.NewReader(data), int64(len(data)), storage.PutOptions{})
	if err != nil {
		f.t.Fatalf("put %q (%d bytes): %v", key, len(data), err)
	}
	return oi
}

func (f *fixture) get(key string, o storage.GetOptions) []byte {
	f.t.Helper()
	var buf bytes.Buffer
	n, err := f.s.Get(f.t.Context(), key, o, &buf)
	if err != nil {
		f.t.Fatalf("get %q: %v", key, err)
	}
	if n != int64(buf.Len()) {
		f.t.Fatalf("get %q: returned n=%d but wrote %d bytes", key, n, buf.Len())
	}
	return buf.Bytes()
}

func (f *fixture) stat(key string) storage.ObjectInfo {
	f.t.Helper()
	oi, err := f.s.Stat(f.t.Context(), key)
	if err != nil {
		f.t.Fatalf("stat %q: %v", key, err)
	}
	return oi
}

func (f *fixture) wantNotFound(key string) {
	f.t.Helper()
	_, err := f.s.Stat(f.t.Context(), key)
	if !errors.Is(err, storage.ErrNotFound) {
		f.t.Fatalf("stat %q: got err %v, want storage.ErrNotFound", key, err)
	}
}

// list returns what List reports under prefix, in the order reported.
func (f *fixture) list(prefix string) []storage.ObjectInfo {
	f.t.Helper()
	var got []storage.ObjectInfo
	err := f.s.List(f.t.Context(), prefix, func(oi storage.ObjectInfo) error {
		got = append(got, oi)
		return nil
	})
	if err != nil {
		f.t.Fatalf("list %q: %v", prefix, err)
	}
	return got
}

// payload returns n deterministic, incompressible bytes.
func payload(n int, seed uint64) []byte {
	b := make([]byte, n)
	var s [32]byte
	s[0], s[1] = byte(seed), byte(seed>>8)
	_, _ = mrand.NewChaCha8(s).Read(b) // ChaCha8.Read never fails
	return b
}

func equalBytes(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: got %d bytes, want %d bytes (contents differ: %v)",
			what, len(got), len(want), len(got) == len(want))
	}
}
