package loadgen

import (
	"strings"
	"sync"
	"sync/atomic"

	"github.com/objbench/objbench/distributed"
)

// cleanupLedger is what a run owes the store at its end: whether it
// stored anything at all, which keys its cleanup may delete (its own,
// and those of the dead workers it adopts), and what it could not clean
// up. Cleanup (cleanup.go, cleanup_sweep.go), dispose (buckets.go) and
// COSBench's key layout (barekeys_clean.go) write to it; Run reads it into
// the outcome (CleanedUp, CleanupNote).
type cleanupLedger struct {
	namespace string
	worker    distributed.Worker
	// wroteAny: a write of this run succeeded, so there is something to
	// clean up. Set by the workers.
	wroteAny atomic.Bool
	// adopted are the ranks of dead workers whose objects this one deletes
	// besides its own (Config.Adopted, asked at each cleanup and dispose
	// step).
	adopted []int
	// stepNotes are notes for the cleanup step being built.
	stepNotes []string
	mu        sync.Mutex
	left      []string // what the run could not clean up, and why
}

func newCleanupLedger(namespace string, w distributed.Worker) *cleanupLedger {
	return &cleanupLedger{namespace: namespace, worker: w}
}

// stored notes that a write of this run succeeded (from the workers: a
// load before the store, so the line stays shared).
func (l *cleanupLedger) stored() {
	if !l.wroteAny.Load() {
		l.wroteAny.Store(true)
	}
}

// leftover records that the run could not leave the store as it found it.
func (l *cleanupLedger) leftover(why string) {
	l.mu.Lock()
	l.left = append(l.left, why)
	l.mu.Unlock()
}

// cleanedUp says whether the run left nothing behind it knows of, and
// else what, in one line.
func (l *cleanupLedger) cleanedUp() (ok bool, note string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.left) == 0, strings.Join(l.left, "; ")
}

// note adds a note to the cleanup step being built.
func (l *cleanupLedger) note(n string) { l.stepNotes = append(l.stepNotes, n) }

// takeNotes are the notes of the cleanup step being built, which starts
// afresh.
func (l *cleanupLedger) takeNotes() []string {
	n := l.stepNotes
	l.stepNotes = nil
	return n
}

// adopt sets the dead workers' ranks this one cleans up for.
func (l *cleanupLedger) adopt(ranks []int) { l.adopted = ranks }

// adopts reports whether this worker also deletes what worker rank
// wrote: that worker died, and this one cleans up for it.
func (l *cleanupLedger) adopts(rank int) bool {
	for _, a := range l.adopted {
		if a == rank && a != l.worker.Rank {
			return true
		}
	}
	return false
}

// ownKey reports whether cleanup deletes key: not a meeting marker of the
// run's workers (theirs to remove), and of a run split across processes
// one of the keys that hash to this worker or to one it adopts.
func (l *cleanupLedger) ownKey(key string) bool {
	if strings.HasPrefix(key, l.namespace+distributed.MarkerDir) {
		return false
	}
	h := int64(keySeed(key) >> 1)
	return l.worker.Owns(h) || l.adopts(int(h%int64(l.worker.N())))
}

// forRankZero says whether this worker does what worker 0 of a split
// run does alone (removing the buckets, deleting versions): it is worker
// 0, or cleans up for it.
func (l *cleanupLedger) forRankZero() bool { return l.worker.Rank == 0 || l.adopts(0) }
