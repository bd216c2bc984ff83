package storagetest

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/objbench/objbench/storage"
)

func testRoundTrip(t *testing.T, f *fixture) {
	for i, size := range []int{0, 1, 4 << 10, 1<<20 + 3} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			key := f.key(fmt.Sprintf("obj-%d", size))
			data := payload(size, uint64(i))
			oi := f.put(key, data)
			if oi.Key != key || oi.Size != int64(size) {
				t.Errorf("put returned %+v, want key %q size %d", oi, key, size)
			}
			equalBytes(t, "get "+key, f.get(key, storage.GetOptions{}), data)
			if st := f.stat(key); st.Size != int64(size) {
				t.Errorf("stat size = %d, want %d", st.Size, size)
			}
		})
	}
}

func testPutReplaces(t *testing.T, f *fixture) {
	key := f.key("replaced")
	f.put(key, payload(1000, 1))
	second := payload(300, 2)
	f.put(key, second)
	equalBytes(t, "get after replace", f.get(key, storage.GetOptions{}), second)
	if st := f.stat(key); st.Size != 300 {
		t.Errorf("stat size after replace = %d, want 300", st.Size)
	}
}

// A body shorter than the announced size is a failed Put, never a silently
// truncated object.
func testPutShortBody(t *testing.T, f *fixture) {
	key := f.key("short")
	_, err := f.s.Put(t.Context(), key, bytes.NewReader(payload(5, 1)), 10, storage.PutOptions{})
	if err == nil {
		t.Fatal("put of 5 bytes announced as 10 succeeded, want an error")
	}
}

func testRangedGet(t *testing.T, f *fixture) {
	const size = 10000
	key := f.key("ranged")
	data := payload(size, 3)
	f.put(key, data)
	tests := []struct {
		name     string
		r        storage.Range
		from, to int // expected data[from:to]
	}{
		{"first byte", storage.Range{Offset: 0, Length: 1}, 0, 1},
		{"middle", storage.Range{Offset: 100, Length: 1000}, 100, 1100},
		{"open ended", storage.Range{Offset: 9000, Length: -1}, 9000, size},
		{"at end", storage.Range{Offset: size - 10, Length: 10}, size - 10, size},
		{"past end is clamped", storage.Range{Offset: size - 10, Length: 100}, size - 10, size},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.r
			got := f.get(key, storage.GetOptions{Range: &r})
			equalBytes(t, fmt.Sprintf("range %+v", tc.r), got, data[tc.from:tc.to])
		})
	}
}

func testStat(t *testing.T, f *fixture) {
	key := f.key("stat")
	f.put(key, payload(1234, 4))
	st := f.stat(key)
	if st.Key != key || st.Size != 1234 {
		t.Errorf("stat = %+v, want key %q size 1234", st, key)
	}
	if st.ModTime.IsZero() {
		t.Error("stat: ModTime is zero")
	}
	f.wantNotFound(f.key("missing"))
}

func testGetMissing(t *testing.T, f *fixture) {
	var buf bytes.Buffer
	_, err := f.s.Get(t.Context(), f.key("missing"), storage.GetOptions{}, &buf)
	if !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("get of missing key: err %v, want storage.ErrNotFound", err)
	}
}

func testDelete(t *testing.T, f *fixture) {
	key := f.key("deleted/obj")
	f.put(key, payload(10, 5))
	if err := f.s.Delete(t.Context(), key); err != nil {
		t.Fatalf("delete: %v", err)
	}
	f.wantNotFound(key)
	if got := f.list(f.key("deleted/")); len(got) != 0 {
		t.Errorf("list after delete: %v, want nothing", got)
	}
	if err := f.s.Delete(t.Context(), f.key("never-existed")); err != nil {
		t.Errorf("delete of missing key: %v, want nil", err)
	}
}

// testOddKeys checks that keys needing escaping in URLs, or looking like path
// syntax, survive every operation unchanged.
func testOddKeys(t *testing.T, f *fixture) {
	names := []string{
		"dir/sub/a b+c~d",
		"x=1&y=2;z,(1)'!*@$",
		"percent%2Fnot-a-slash",
		"üñí©ødé-日本",
		"trailing.dot.",
	}
	for i, name := range names {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			key := f.key("odd/" + name)
			data := payload(100+i, uint64(i))
			f.put(key, data)
			equalBytes(t, "get "+key, f.get(key, storage.GetOptions{}), data)
			if st := f.stat(key); st.Key != key || st.Size != int64(len(data)) {
				t.Errorf("stat = %+v, want key %q size %d", st, key, len(data))
			}
			got := f.list(key)
			if len(got) != 1 || got[0].Key != key {
				t.Errorf("list %q = %v, want exactly that key", key, got)
			}
			if err := f.s.Delete(t.Context(), key); err != nil {
				t.Fatalf("delete %q: %v", key, err)
			}
			f.wantNotFound(key)
		})
	}
}
