package ai

import (
	"slices"
	"testing"
)

// The shuffle is a permutation of every data set size, the same for the
// same seed and epoch in any process, and another for another epoch.
func TestPermIsASeededReproduciblePermutation(t *testing.T) {
	for _, n := range []uint64{1, 2, 3, 7, 64, 100, 1000, 4097} {
		seen := make([]bool, n)
		p, again := newPerm(n, 123, 1), newPerm(n, 123, 1)
		for i := range n {
			v := p.at(i)
			if v >= n || seen[v] {
				t.Fatalf("n=%d: position %d gives %d (out of range or twice)", n, i, v)
			}
			seen[v] = true
			if again.at(i) != v {
				t.Fatalf("n=%d: the same seed and epoch disagree at %d", n, i)
			}
		}
	}
	order := func(seed uint64, epoch int) []uint64 {
		p := newPerm(1000, seed, epoch)
		out := make([]uint64, 1000)
		for i := range out {
			out[i] = p.at(uint64(i))
		}
		return out
	}
	if slices.Equal(order(123, 1), order(123, 2)) || slices.Equal(order(123, 1), order(124, 1)) {
		t.Error("another epoch or seed gives the same order")
	}
	id := 0
	for i, v := range order(123, 1) {
		if uint64(i) == v {
			id++
		}
	}
	if id > 20 { // a shuffle of 1000 leaves about one element in place
		t.Errorf("%d of 1000 samples stayed in place: not shuffled", id)
	}
}

// Each accelerator's shard is its own: together the shards of an epoch
// hold every sample at most once, all of them when the batches divide
// the data set, and each shard is whole batches.
func TestShardsCoverTheEpochOnce(t *testing.T) {
	cases := []struct {
		n, spf        int64 // spf > 1: files of spf samples, shuffled in file order
		accels, batch int
		read          int64
	}{
		{168, 1, 1, 7, 168}, {168, 1, 4, 7, 168}, {168, 1, 5, 7, 140}, {1000, 1, 3, 4, 996}, {10, 1, 3, 2, 6}, {60, 6, 3, 4, 60}, {60, 6, 4, 4, 48},
	}
	for _, c := range cases {
		ds := Dataset{Files: c.n / c.spf, SamplesPerFile: int(c.spf), FileOrder: c.spf > 1}
		deal := newEpochBatches(ds, 9, 2, c.accels, c.batch)
		seen := map[int64]int{}
		for g := range c.accels {
			buf := make([]int64, c.batch)
			for k := range deal.steps() {
				deal.fill(g, k, buf)
				for _, s := range buf {
					seen[s]++
				}
			}
		}
		var total int64
		for s, k := range seen {
			if k != 1 || s < 0 || s >= c.n {
				t.Errorf("%+v: sample %d read %d times", c, s, k)
			}
			total++
		}
		if total != c.read {
			t.Errorf("%+v: %d samples read, want %d", c, total, c.read)
		}
	}
}

// A find-max round deals whole epochs batch by batch: the first n/batch
// batches (in the accelerators' turn) are one epoch, each sample once.
func TestRoundBatchesDealWholeEpochs(t *testing.T) {
	r := roundBatches{ds: Dataset{Files: 12, SamplesPerFile: 1}, seed: 5, accels: 3, batch: 2}
	seen := map[int64]int{}
	buf := make([]int64, 2)
	for k := range 2 { // 2 batches x 3 accelerators x 2 samples = 12: one epoch
		for g := range 3 {
			r.fill(g, k, buf)
			for _, s := range buf {
				seen[s]++
			}
		}
	}
	if len(seen) != 12 {
		t.Fatalf("one epoch's batches read %d distinct samples of 12: %v", len(seen), seen)
	}
	r.fill(0, 2, buf) // the next epoch: its own shuffle
	p2 := newPerm(12, 5, 2)
	if buf[0] != int64(p2.at(0)) || buf[1] != int64(p2.at(1)) {
		t.Errorf("the second epoch's first batch is %v, want its shuffle's first two (%d, %d)", buf, p2.at(0), p2.at(1))
	}
}

// With files only shuffled (the parquet configurations), an epoch reads
// the files in a seeded order and each file's samples one after another,
// in the file's order.
func TestFileOrderReadsEachFileInOrder(t *testing.T) {
	ds := Dataset{Files: 7, SamplesPerFile: 5, FileOrder: true}
	o := newOrder(ds, 3, 1)
	files := map[int64]bool{}
	for i := int64(0); i < 35; i++ {
		s := o.at(i)
		if s%5 != i%5 || (i%5 > 0 && s != o.at(i-1)+1) {
			t.Fatalf("position %d holds sample %d: want file order", i, s)
		}
		files[s/5] = true
	}
	if len(files) != 7 || o.at(0) == newOrder(ds, 3, 2).at(0) && o.at(5) == newOrder(ds, 3, 2).at(5) {
		t.Errorf("%d files, or epochs 1 and 2 start alike", len(files))
	}
}
