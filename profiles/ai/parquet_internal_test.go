package ai

import (
	"testing"

	"github.com/objbench/objbench/storage"
)

// dlrm's files (dlrm_b200.yaml): 4718592 rows of 761 bytes in 768 row
// groups of 6144; the footer (estimated: 512 + 32 x 200 + 96 x 768 x 200
// bytes) is larger than the 64 KiB read first, so an open is two GETs:
// the last 64 KiB, then the rest of the footer and its tail.
//
// An epoch on 8 B200s, by hand: a batch of 16384 rows covers row groups
// 0-2, the next 2-5, the next 5-7 (3 batches are 8 groups), 10 GETs per
// 3 batches, as batches next to each other go to different threads (4),
// which each fetch the group they share: 960 a file; each file's 288
// batches reach all 4 threads, 4 opens of 2 GETs: 1024 x (960 + 8).
func TestDLRMLayoutAndEpochByHand(t *testing.T) {
	w, _ := Lookup("dlrm", "b200")
	ds := NewDataset(w, 0, "")
	l := ds.pq
	footer := int64(512 + 32*200 + 96*768*200)
	size := 4 + 4718592*761 + footer + 8
	if l.groups != 768 || l.footer != footer || l.fileBytes != size || ds.FileBytes() != size {
		t.Fatalf("layout %+v, want 768 groups, footer %d, file %d", *l, footer, size)
	}
	want := []storage.Range{{Offset: size - 65536, Length: 65536}, {Offset: size - footer - 8, Length: footer + 8 - 65536}}
	if got := l.footerRanges(); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("open reads %+v, want %+v", got, want)
	}
	// The read columns run from feature_011 to feature_195: the span
	// starts after columns 0-10 and ends before 196-199.
	var before, after int64
	for c, col := range w.Parquet.Columns {
		if c < 11 {
			before += col.Bytes
		} else if c > 195 {
			after += col.Bytes
		}
	}
	if g := l.groupRange(1); g.Offset != 4+6144*761+6144*before || g.Length != 6144*(761-before-after) {
		t.Errorf("row group 1's read %+v", g)
	}
	if reqs, _ := parquetEpoch(ds, DefaultSeed, 1, 8, w.BatchSize, w.ReadThreads); reqs != 1024*(960+8) {
		t.Errorf("an epoch on 8 accelerators: %d GETs, want %d", reqs, 1024*(960+8))
	}
}
