package spill

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"testing"
)

// TestSortsAcrossRuns adds records in a shuffled order, from several
// goroutines, with runs small enough that there are more than fanIn of
// them (a merge of merges), and reads them back in (key, tag) order twice,
// every record once. No file is ever seen in the directory (a process
// killed mid-sort leaves nothing), and at most 2*fanIn are open.
func TestSortsAcrossRuns(t *testing.T) {
	for _, c := range []struct {
		name     string
		n        int
		runBytes int
		runs     bool
	}{
		{"in memory", 500, 0, false},
		{"a few runs", 2000, 20_000, true},
		{"more runs than one merge reads", 5000, 2_000, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			parent := t.TempDir()
			s := New(parent, c.runBytes)
			var want []Record
			for i := range c.n {
				want = append(want, Record{Key: fmt.Sprintf("k/%05d", i/2), Size: int64(i), ETag: fmt.Sprint("e", i), Tag: i % 2})
			}
			shuffled := slices.Clone(want)
			rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			var wg sync.WaitGroup
			errs := make(chan error, 4)
			for w := range 4 {
				wg.Go(func() {
					for i := w; i < len(shuffled); i += 4 {
						if err := s.Add(shuffled[i]); err != nil {
							errs <- err
							return
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			if c.runs != (s.Runs() > 0) || (c.runBytes == 2_000 && s.Runs() <= fanIn) || s.Runs() >= 2*fanIn {
				t.Fatalf("%d runs spilled", s.Runs())
			}
			if seen, _ := os.ReadDir(parent); len(seen) != 0 {
				t.Fatalf("files in the directory while sorting: %v", seen)
			}
			for pass := range 2 {
				var got []Record
				if err := s.Each(func(r Record) error { got = append(got, r); return nil }); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) || s.Len() != int64(c.n) {
					t.Fatalf("pass %d: %d records (Len %d), want %d in order; first %v", pass, len(got), s.Len(), len(want), got[:min(3, len(got))])
				}
			}
			if err := s.Add(Record{Key: "late"}); err == nil {
				t.Error("a record added after reading was taken")
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if left, _ := os.ReadDir(parent); len(left) != 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}

// TestEqualRecordsKeepTheirOrder: records of the same key and tag come back
// in the order they were added, across runs.
func TestEqualRecordsKeepTheirOrder(t *testing.T) {
	s := New(t.TempDir(), 300)
	defer func() { _ = s.Close() }()
	for i := range 100 {
		if err := s.Add(Record{Key: "same", Size: int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	i := int64(0)
	err := s.Each(func(r Record) error {
		if r.Size != i {
			return fmt.Errorf("record %d came as %d", i, r.Size)
		}
		i++
		return nil
	})
	if err != nil || i != 100 || s.Runs() < 2 {
		t.Fatalf("%v after %d records, %d runs", err, i, s.Runs())
	}
}

// TestDamagedRunIsAnError: a run file cut short is reported, not read as
// fewer records.
func TestDamagedRunIsAnError(t *testing.T) {
	s := New(t.TempDir(), 200)
	defer func() { _ = s.Close() }()
	for i := range 20 {
		if err := s.Add(Record{Key: fmt.Sprint("key-", i), ETag: "etag"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Open(); err != nil { // ends adding: every run on disk
		t.Fatal(err)
	}
	if len(s.runs) == 0 {
		t.Fatal("nothing spilled")
	}
	if err := s.runs[0].f.Truncate(s.runs[0].size - 2); err != nil {
		t.Fatal(err)
	}
	if err := s.Each(func(Record) error { return nil }); err == nil {
		t.Fatal("a damaged run read without an error")
	}
}
