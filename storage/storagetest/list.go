package storagetest

import (
	"errors"
	"slices"
	"testing"

	"github.com/objbench/objbench/storage"
)

func testList(t *testing.T, f *fixture) {
	// '-' < '/' < '0': a file store that walks directories naively lists
	// "b/c" before "b-x" and fails here.
	names := []string{
		"list/a", "list/b-x", "list/b/c", "list/b/d", "list/b0", "list/c",
		"lis", "lisx", "other/list/a",
	}
	sizes := map[string]int64{}
	for i, name := range slices.Backward(names) { // insertion order must not matter
		sizes[f.key(name)] = int64(i + 1)
		f.put(f.key(name), payload(i+1, uint64(i)))
	}
	tests := []struct {
		prefix string
		want   []string
	}{
		{"list/", []string{"list/a", "list/b-x", "list/b/c", "list/b/d", "list/b0", "list/c"}},
		{"list/b", []string{"list/b-x", "list/b/c", "list/b/d", "list/b0"}},
		{"list/b/", []string{"list/b/c", "list/b/d"}},
		{"lis", []string{"lis", "list/a", "list/b-x", "list/b/c", "list/b/d", "list/b0", "list/c", "lisx"}},
		{"nothing", nil},
	}
	for _, tc := range tests {
		t.Run(tc.prefix, func(t *testing.T) {
			got := f.list(f.key(tc.prefix))
			var gotKeys []string
			for _, oi := range got {
				gotKeys = append(gotKeys, oi.Key)
				if want := sizes[oi.Key]; oi.Size != want {
					t.Errorf("list: %q has size %d, want %d", oi.Key, oi.Size, want)
				}
			}
			var want []string
			for _, name := range tc.want {
				want = append(want, f.key(name))
			}
			if !slices.Equal(gotKeys, want) {
				t.Errorf("list %q:\n got  %q\n want %q", tc.prefix, gotKeys, want)
			}
		})
	}
}

func testListStops(t *testing.T, f *fixture) {
	for _, name := range []string{"a", "b", "c"} {
		f.put(f.key(name), payload(1, 0))
	}
	stop := errors.New("stop here")
	calls := 0
	err := f.s.List(t.Context(), f.prefix, func(storage.ObjectInfo) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) {
		t.Errorf("list: err %v, want the callback's error", err)
	}
	if calls != 1 {
		t.Errorf("callback called %d times after returning an error, want 1", calls)
	}
}
