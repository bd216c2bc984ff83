package distributed_test

import (
	"math/rand/v2"
	"testing"

	"github.com/objbench/objbench/distributed"
)

// Shares are exact for any N and any total: they sum to the total, each
// grows with it, and the ranges tile [0, total) in rank order.
func TestSharesSumExactlyAndGrowWithTheTotal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		n := 1 + rng.IntN(130)
		total := rng.Int64N(1 << uint(rng.IntN(62)+1))
		var sum, next int64
		for r := range n {
			w := distributed.Worker{Rank: r, Size: n}
			s := w.Share(total)
			sum += s
			if up := w.Share(total + 1); up != s && up != s+1 {
				t.Fatalf("%v: share of %d is %d, of %d is %d: not monotone by at most one", w, total, s, total+1, up)
			}
			lo, hi := w.Range(total)
			if lo != next || hi-lo != s {
				t.Fatalf("%v: range [%d,%d) of %d, want to start at %d with %d items", w, lo, hi, total, next, s)
			}
			next = hi
		}
		if sum != total || next != total {
			t.Fatalf("N=%d: shares of %d sum to %d, ranges end at %d", n, total, sum, next)
		}
	}
}

// An interleaved split gives every item to exactly one worker.
func TestInterleavedItemsHaveOneOwner(t *testing.T) {
	for n := 1; n <= 9; n++ {
		for i := int64(0); i < 100; i++ {
			owners := 0
			for r := range n {
				w := distributed.Worker{Rank: r, Size: n}
				if w.Owns(i) {
					owners++
					if w.Nth(i/int64(n)) != i {
						t.Errorf("%v: item %d is its %d-th, but Nth gives %d", w, i, i/int64(n), w.Nth(i/int64(n)))
					}
				}
			}
			if owners != 1 {
				t.Errorf("N=%d: item %d has %d owners", n, i, owners)
			}
		}
	}
}

func TestParseAndEnvironment(t *testing.T) {
	if w, err := distributed.Parse("2/4"); err != nil || w != (distributed.Worker{Rank: 2, Size: 4}) {
		t.Errorf("Parse 2/4 = %v, %v", w, err)
	}
	for _, bad := range []string{"4/4", "-1/2", "1", "a/b", "0/0"} {
		if _, err := distributed.Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, c := range []struct {
		env    map[string]string
		total  int
		want   distributed.Worker
		engine string
		bad    bool
	}{
		{map[string]string{"OMPI_COMM_WORLD_RANK": "3", "OMPI_COMM_WORLD_SIZE": "4"}, 0, distributed.Worker{Rank: 3, Size: 4}, "Open MPI", false},
		{map[string]string{"SLURM_PROCID": "1", "SLURM_NTASKS": "8"}, 0, distributed.Worker{Rank: 1, Size: 8}, "Slurm", false},
		{map[string]string{"PMI_RANK": "0", "PMI_SIZE": "2"}, 2, distributed.Worker{Rank: 0, Size: 2}, "PMI", false},
		{map[string]string{"JOB_COMPLETION_INDEX": "5"}, 16, distributed.Worker{Rank: 5, Size: 16}, "Kubernetes", false},
		{map[string]string{"JOB_COMPLETION_INDEX": "5"}, 0, distributed.Worker{}, "Kubernetes", true}, // needs --workers-total
		{map[string]string{"SLURM_PROCID": "1", "SLURM_NTASKS": "8"}, 4, distributed.Worker{}, "Slurm", true},
		{map[string]string{"OMPI_COMM_WORLD_RANK": "4", "OMPI_COMM_WORLD_SIZE": "4"}, 0, distributed.Worker{}, "Open MPI", true},
		{map[string]string{}, 0, distributed.Worker{}, "", true},
	} {
		w, engine, err := distributed.FromEnv(env(c.env), c.total)
		if (err != nil) != c.bad || (!c.bad && w != c.want) || (c.engine != "" && len(engine) < len(c.engine)) {
			t.Errorf("%v total %d: %v %q %v", c.env, c.total, w, engine, err)
		}
	}
	if id := distributed.JobID(env(map[string]string{"PMIX_NAMESPACE": "prterun-host-123@1"})); id != "prterun-host-123-1" {
		t.Errorf("JobID = %q", id)
	}
}

// A count split in proportion to another (ops following workers) sums to
// the total, and a rank without workers gets nothing.
func TestShareByFollowsTheWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		n := 1 + rng.IntN(40)
		by := rng.Int64N(100)
		total := rng.Int64N(1 << uint(rng.IntN(62)+1))
		var sum int64
		for r := range n {
			w := distributed.Worker{Rank: r, Size: n}
			s := w.ShareBy(total, by)
			sum += s
			if w.Share(by) == 0 && s != 0 {
				t.Fatalf("%v: no share of %d workers, but %d of %d ops", w, by, s, total)
			}
		}
		if by > 0 && sum != total {
			t.Fatalf("N=%d: shares of %d by %d sum to %d", n, total, by, sum)
		}
	}
	// Concurrency 4 over 3 processes is 2/1/1: 300 ops are 150/75/75.
	for r, want := range []int64{150, 75, 75} {
		if got := (distributed.Worker{Rank: r, Size: 3}).ShareBy(300, 4); got != want {
			t.Errorf("rank %d: %d ops, want %d", r, got, want)
		}
	}
}
