package distributed

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/objbench/objbench/storage"
)

// Each worker claims its rank at Join with a marker under claims/ that
// names the claim's arrival (store clock), a nonce of this process, the
// digest of its plan and its host. The earliest claim of a rank holds it;
// a later one is refused, whenever it comes (the claims stay until the
// run's markers go). Once every rank has come to the join meeting, each
// worker compares the holders' plans with its own.

const claimsDir = "claims/"

// Claim is one process's claim of a rank.
type Claim struct {
	Rank    int
	Arrived time.Time // in the store's clock
	Nonce   string
	Plan    string
	Host    string
}

func claimName(c Claim) string {
	return fmt.Sprintf("rank-%06d.%d.%s.%s.%s", c.Rank, c.Arrived.UnixNano(), c.Nonce, c.Plan, c.Host)
}

func parseClaim(name string) (Claim, bool) {
	rest, ok := strings.CutPrefix(name, "rank-")
	f := strings.SplitN(rest, ".", 5)
	if !ok || len(f) != 5 {
		return Claim{}, false
	}
	rank, e1 := strconv.Atoi(f[0])
	at, e2 := strconv.ParseInt(f[1], 10, 64)
	if e1 != nil || e2 != nil {
		return Claim{}, false
	}
	return Claim{Rank: rank, Arrived: time.Unix(0, at), Nonce: f[2], Plan: f[3], Host: f[4]}, true
}

// before orders claims: the earlier arrival holds the rank, then the
// smaller nonce.
func (c Claim) before(o Claim) bool {
	if !c.Arrived.Equal(o.Arrived) {
		return c.Arrived.Before(o.Arrived)
	}
	return c.Nonce < o.Nonce
}

// DuplicateError: this process claimed a rank that another holds. It
// must not run: two processes of one rank write the same keys and the
// same result file.
type DuplicateError struct {
	Rank         int
	Mine, Holder Claim
}

func (e *DuplicateError) Error() string {
	return fmt.Sprintf("worker %d is already running on host %s (claimed %s); this process on host %s is a second worker %d and does not run: "+
		"check the launcher's ranks (each of 0..N-1 exactly once)", e.Rank, e.Holder.Host, e.Holder.Arrived.UTC().Format(time.RFC3339), e.Mine.Host, e.Rank)
}

// PlanError: the workers do not all run the same plan (a different
// workload, size, seed or flags).
type PlanError struct {
	Mine   Claim
	Differ []Claim
}

func (e *PlanError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the workers do not run the same plan: this worker %d (host %s) has plan %s, but", e.Mine.Rank, e.Mine.Host, e.Mine.Plan)
	for i, c := range e.Differ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, " worker %d (host %s) has %s", c.Rank, c.Host, c.Plan)
	}
	b.WriteString(": start every worker with the same command, workload file, --seed and number of workers")
	return b.String()
}

// PlanDigest is a short digest of what a worker runs: the workload as
// encoded, and whatever else every worker must agree on.
func PlanDigest(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:", len(p))
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// Join is the first meeting: it claims this worker's rank, starts its
// signs of life, meets every other worker and checks that all run the
// same plan. A second claimant of a rank gets a DuplicateError; workers
// with different plans all get a PlanError. After an error, Leave(nil)
// still stops the signs of life.
func (r *Rendezvous) Join(ctx context.Context) (time.Time, []Arrival, error) {
	if r.Worker.Solo() {
		return time.Now(), nil, nil
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	r.nonce = hex.EncodeToString(b[:])
	mine := Claim{Rank: r.Worker.Rank, Arrived: time.Now().Add(r.Clock.Offset), Nonce: r.nonce, Plan: safeWord(r.Plan), Host: hostWord(r.Host)}
	if _, err := r.Store.Put(ctx, r.Prefix+claimsDir+claimName(mine), strings.NewReader(""), 0, storage.PutOptions{}); err != nil {
		return time.Time{}, nil, fmt.Errorf("claim rank %d: %w", r.Worker.Rank, err)
	}
	holders, err := r.claims(ctx)
	if err != nil {
		return time.Time{}, nil, err
	}
	if h := holders[r.Worker.Rank]; h.Nonce != mine.Nonce {
		return time.Time{}, nil, &DuplicateError{Rank: r.Worker.Rank, Mine: mine, Holder: h}
	}
	if err := r.startBeat(ctx); err != nil {
		return time.Time{}, nil, err
	}
	start, arrivals, err := r.Meet(ctx, "join")
	if err != nil {
		return start, arrivals, err
	}
	if holders, err = r.claims(ctx); err != nil {
		return time.Time{}, nil, err
	}
	if h := holders[r.Worker.Rank]; h.Nonce != mine.Nonce { // two claims that crossed: now every worker sees both
		return time.Time{}, nil, &DuplicateError{Rank: r.Worker.Rank, Mine: mine, Holder: h}
	}
	var differ []Claim
	for rank := range r.Worker.N() {
		if h, ok := holders[rank]; ok && h.Plan != mine.Plan {
			differ = append(differ, h)
		}
	}
	if len(differ) > 0 {
		return time.Time{}, nil, &PlanError{Mine: mine, Differ: differ}
	}
	return start, arrivals, nil
}

// claims lists the claims: each rank's holder, and the refused second
// claimants in r.Duplicates.
func (r *Rendezvous) claims(ctx context.Context) (map[int]Claim, error) {
	dir := r.Prefix + claimsDir
	var all []Claim
	err := storage.ListUnder(ctx, r.Store, dir, func(o storage.ObjectInfo) error {
		if c, ok := parseClaim(strings.TrimPrefix(o.Key, dir)); ok && c.Rank >= 0 && c.Rank < r.Worker.N() {
			all = append(all, c)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list the workers' claims: %w", err)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].before(all[j]) })
	holders := map[int]Claim{}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Duplicates = r.Duplicates[:0]
	for _, c := range all {
		if _, held := holders[c.Rank]; held {
			r.Duplicates = append(r.Duplicates, c)
			continue
		}
		holders[c.Rank] = c
	}
	return holders, nil
}

// hostWord keeps a host name to letters, digits, '-' and '.', at most 63
// characters ("unknown" when empty).
func hostWord(h string) string {
	if h == "" {
		return "unknown"
	}
	b := []byte(h)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			b[i] = '-'
		}
	}
	return string(b[:min(len(b), 63)])
}
