package distributed

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// Worker is one of the processes a run is split across: rank Rank of Size.
// The zero value is the single worker of a local run.
type Worker struct {
	Rank int `json:"rank"`
	Size int `json:"size"`
}

// Solo reports whether the run is not split (one worker).
func (w Worker) Solo() bool { return w.Size <= 1 }

// N is the number of workers (at least 1).
func (w Worker) N() int { return max(w.Size, 1) }

// String is "r/N".
func (w Worker) String() string { return strconv.Itoa(w.Rank) + "/" + strconv.Itoa(w.N()) }

// Valid checks 0 <= rank < size.
func (w Worker) Valid() error {
	if w.Size < 1 || w.Rank < 0 || w.Rank >= w.Size {
		return fmt.Errorf("worker %d/%d: want a rank from 0 to size-1 and a size of at least 1", w.Rank, w.Size)
	}
	return nil
}

// Parse reads "r/N" (rank r, counted from 0, of N workers).
func Parse(s string) (Worker, error) {
	r, n, ok := strings.Cut(strings.TrimSpace(s), "/")
	rank, err1 := strconv.Atoi(strings.TrimSpace(r))
	size, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil {
		return Worker{}, fmt.Errorf("bad worker %q: want RANK/SIZE, like 0/4 (ranks count from 0), or auto", s)
	}
	w := Worker{Rank: rank, Size: size}
	return w, w.Valid()
}

// Share is this worker's part of total: total/N, plus one for the first
// total%N ranks. The N shares sum to total exactly, and each grows (by 0
// or 1) when total grows by 1.
func (w Worker) Share(total int64) int64 {
	n := int64(w.N())
	q, rem := total/n, total%n
	if int64(w.Rank) < rem {
		q++
	}
	return q
}

// Range is this worker's contiguous part [lo, hi) of [0, total): the
// ranges of ranks 0..N-1 follow each other and cover it once.
func (w Worker) Range(total int64) (lo, hi int64) {
	n, r := int64(w.N()), int64(w.Rank)
	q, rem := total/n, total%n
	lo = q*r + min(r, rem)
	return lo, lo + w.Share(total)
}

// ShareBy is this worker's part of total when total follows another
// count already split by rank: of a stream's ops, in proportion to the
// workers (of a concurrency of by) this process runs. The parts of ranks
// 0..N-1 sum to total exactly, and a rank with no share of by gets none of
// total: no process is given ops without workers to issue them.
func (w Worker) ShareBy(total, by int64) int64 {
	if by <= 0 || total <= 0 {
		return 0
	}
	lo, hi := w.Range(by)
	return scaled(total, hi, by) - scaled(total, lo, by)
}

// scaled is floor(total*part/whole) for 0 <= part <= whole, without
// overflow.
func scaled(total, part, whole int64) int64 {
	hi, lo := bits.Mul64(uint64(total), uint64(part))
	q, _ := bits.Div64(hi, lo, uint64(whole))
	return int64(q)
}

// Owns reports whether item i of an interleaved split is this worker's:
// items r, r+N, r+2N... (open-loop slots, keys written by the main stage).
func (w Worker) Owns(i int64) bool { return i%int64(w.N()) == int64(w.Rank) }

// Nth is the global index of this worker's j-th item of an interleaved
// split: j*N + r.
func (w Worker) Nth(j int64) int64 { return j*int64(w.N()) + int64(w.Rank) }
