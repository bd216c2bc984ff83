package s3server

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// benchKeys returns n object keys the way benchmarks name them: in order
// ("seq"), or in a random order ("random": hashed names, a directory
// copied file by file in no particular order).
func benchKeys(n int, order string) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("objbench/run-1/d%03d/%08d", i%100, i)
	}
	if order == "random" {
		rand.New(rand.NewPCG(1, 2)).Shuffle(n, func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	}
	return keys
}

func indexedBucket(keys []string) *bucket {
	bk := newBucket("b", time.Time{})
	for _, k := range keys {
		bk.add(&object{key: k})
	}
	return bk
}

// BenchmarkBucketOrder measures the bucket's key index on the paths it
// serves: a PUT of a new key (insert), a DELETE (remove), a 1,000-key LIST
// page from a random point of a 100,000-key bucket, and a delimited LIST
// that rolls 100,000 keys up into 100 common prefixes (a seek per prefix).
func BenchmarkBucketOrder(b *testing.B) {
	for _, order := range []string{"seq", "random"} {
		b.Run("insert/"+order, func(b *testing.B) {
			keys := benchKeys(b.N, order)
			bk := newBucket("b", time.Time{})
			b.ReportAllocs()
			b.ResetTimer()
			for _, k := range keys {
				bk.add(&object{key: k})
			}
		})
		b.Run("remove/"+order, func(b *testing.B) {
			keys := benchKeys(b.N, order)
			bk := indexedBucket(keys)
			b.ReportAllocs()
			b.ResetTimer()
			for _, k := range keys {
				bk.remove(bk.current(k))
			}
		})
	}
	keys := benchKeys(100_000, "seq")
	bk := indexedBucket(keys)
	slices.Sort(keys)
	b.Run("list1000", func(b *testing.B) {
		rng := rand.New(rand.NewPCG(3, 4))
		b.ReportAllocs()
		for b.Loop() {
			n := 0
			p := listPage{start: keys[rng.IntN(len(keys)-1000)]}
			bk.scan(p, currentVisible, func(string, *versions, string) bool {
				n++
				return n < 1000
			})
			if n != 1000 {
				b.Fatalf("listed %d keys, want 1000", n)
			}
		}
	})
	b.Run("list-delimited", func(b *testing.B) {
		p := listPage{prefix: "objbench/run-1/", delimiter: "/"}
		b.ReportAllocs()
		for b.Loop() {
			n := 0
			bk.scan(p, currentVisible, func(string, *versions, string) bool { n++; return true })
			if n != 100 {
				b.Fatalf("listed %d prefixes, want 100", n)
			}
		}
	})
}
