package distributed

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/objbench/objbench/storage"
)

// Rendezvous is how the workers of one run meet through the store under
// test: at each meeting point every worker writes an empty marker whose
// name carries its rank, its arrival in the store's clock and its clock
// offset, and lists the point's markers until all N are there. Everyone
// reads the same names, so everyone derives the same start instant: the
// latest arrival plus Margin, in the store's clock. No coordinator, port
// or extra service.
type Rendezvous struct {
	Store  storage.Store
	Prefix string // the run's namespace + MarkerDir
	Worker Worker
	Clock  Offset // this worker's clock against the store's
	// Timeout bounds each meeting (default 2 min); Poll is the time
	// between listings (default 100 ms); Margin is how long after the
	// last arrival the workers start (default 500 ms), time for each to
	// see the last marker.
	Timeout, Poll, Margin time.Duration
	// MaxSkew refuses to start when the workers' clocks disagree by more
	// (0: no check).
	MaxSkew time.Duration

	done []string // points passed, whose own markers can go
}

// Arrival is one worker's marker at a meeting point.
type Arrival struct {
	Rank    int
	Arrived time.Time     // in the store's clock
	Offset  time.Duration // the worker's store-minus-local offset
}

// markerName encodes an arrival in a key: rank-R.ARRIVED-UNIX-NS.OFFSET-NS.
func markerName(a Arrival) string {
	return fmt.Sprintf("rank-%06d.%d.%d", a.Rank, a.Arrived.UnixNano(), int64(a.Offset))
}

func parseMarker(name string) (Arrival, bool) {
	rest, ok := strings.CutPrefix(name, "rank-")
	f := strings.Split(rest, ".")
	if !ok || len(f) != 3 {
		return Arrival{}, false
	}
	rank, e1 := strconv.Atoi(f[0])
	at, e2 := strconv.ParseInt(f[1], 10, 64)
	off, e3 := strconv.ParseInt(f[2], 10, 64)
	if e1 != nil || e2 != nil || e3 != nil {
		return Arrival{}, false
	}
	return Arrival{Rank: rank, Arrived: time.Unix(0, at), Offset: time.Duration(off)}, true
}

// MissingError names the workers that did not come to a meeting in time.
type MissingError struct {
	Point   string
	Missing []int
	After   time.Duration
}

func (e *MissingError) Error() string {
	ranks := make([]string, len(e.Missing))
	for i, r := range e.Missing {
		ranks[i] = strconv.Itoa(r)
	}
	return fmt.Sprintf("worker(s) %s did not reach %s within %v (--rendezvous-timeout): the run stops on every worker",
		strings.Join(ranks, ", "), e.Point, e.After)
}

// Meet waits at point until every worker is there and returns the local
// instant all of them start at, and the arrivals (for their clocks). A
// single worker meets nobody: it starts now.
func (r *Rendezvous) Meet(ctx context.Context, point string) (time.Time, []Arrival, error) {
	if r.Worker.Solo() {
		return time.Now(), nil, nil
	}
	timeout, poll, margin := cmp(r.Timeout, 2*time.Minute), cmp(r.Poll, 100*time.Millisecond), cmp(r.Margin, 500*time.Millisecond)
	dir := r.Prefix + point + "/"
	me := Arrival{Rank: r.Worker.Rank, Arrived: time.Now().Add(r.Clock.Offset), Offset: r.Clock.Offset}
	if _, err := r.Store.Put(ctx, dir+markerName(me), strings.NewReader(""), 0, storage.PutOptions{}); err != nil {
		return time.Time{}, nil, fmt.Errorf("rendezvous at %s: write this worker's marker: %w", point, err)
	}
	deadline := time.Now().Add(timeout)
	for {
		arrivals, err := r.list(ctx, dir)
		if err != nil {
			return time.Time{}, nil, fmt.Errorf("rendezvous at %s: %w", point, err)
		}
		if len(arrivals) == r.Worker.N() {
			r.forgetBefore(ctx, point)
			return r.start(arrivals, margin)
		}
		if time.Now().After(deadline) {
			return time.Time{}, arrivals, &MissingError{Point: point, Missing: missing(arrivals, r.Worker.N()), After: timeout}
		}
		t := time.NewTimer(poll)
		select {
		case <-ctx.Done():
			t.Stop()
			return time.Time{}, arrivals, ctx.Err()
		case <-t.C:
		}
	}
}

// start is the agreed instant, converted to this machine's clock, after
// the skew check.
func (r *Rendezvous) start(arrivals []Arrival, margin time.Duration) (time.Time, []Arrival, error) {
	last := arrivals[0].Arrived
	lo, hi := arrivals[0], arrivals[0]
	for _, a := range arrivals {
		if a.Arrived.After(last) {
			last = a.Arrived
		}
		if a.Offset < lo.Offset {
			lo = a
		}
		if a.Offset > hi.Offset {
			hi = a
		}
	}
	if skew := hi.Offset - lo.Offset; r.MaxSkew > 0 && skew > r.MaxSkew {
		return time.Time{}, arrivals, fmt.Errorf("the workers' clocks disagree by %v (worker %d against worker %d), more than --max-skew %v: "+
			"synchronise them (NTP) or raise --max-skew", skew.Round(time.Millisecond), hi.Rank, lo.Rank, r.MaxSkew)
	}
	return last.Add(margin).Add(-r.Clock.Offset), arrivals, nil
}

// list reads the markers under dir, one per rank, trusting no name the
// listing returns outside dir.
func (r *Rendezvous) list(ctx context.Context, dir string) ([]Arrival, error) {
	byRank := map[int]Arrival{}
	err := storage.ListUnder(ctx, r.Store, dir, func(o storage.ObjectInfo) error {
		name := strings.TrimPrefix(o.Key, dir)
		if a, ok := parseMarker(name); ok && a.Rank >= 0 && a.Rank < r.Worker.N() {
			byRank[a.Rank] = a
		}
		return nil
	})
	out := make([]Arrival, 0, len(byRank))
	for _, a := range byRank {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Rank < out[j].Rank })
	return out, err
}

// forgetBefore removes this worker's markers of earlier points: every
// worker has passed them, since all are at point now.
func (r *Rendezvous) forgetBefore(ctx context.Context, point string) {
	for _, p := range r.done {
		_ = r.deleteUnder(ctx, r.Prefix+p+"/"+fmt.Sprintf("rank-%06d.", r.Worker.Rank))
	}
	r.done = append(r.done[:0], point)
}

// Leave ends this worker's part: its last markers go once every worker
// has left (the last to leave removes what is left of the meeting).
func (r *Rendezvous) Leave(ctx context.Context) error {
	if r.Worker.Solo() {
		return nil
	}
	dir := r.Prefix + "left/"
	me := Arrival{Rank: r.Worker.Rank, Arrived: time.Now().Add(r.Clock.Offset), Offset: r.Clock.Offset}
	if _, err := r.Store.Put(ctx, dir+markerName(me), strings.NewReader(""), 0, storage.PutOptions{}); err != nil {
		return err
	}
	left, err := r.list(ctx, dir)
	if err != nil || len(left) < r.Worker.N() {
		return err
	}
	return r.deleteUnder(ctx, r.Prefix)
}

// deleteUnder deletes the keys listed under prefix, and nothing the
// listing returns outside it.
func (r *Rendezvous) deleteUnder(ctx context.Context, prefix string) error {
	keys, err := storage.KeysUnder(ctx, r.Store, prefix)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := r.Store.Delete(ctx, k); err != nil {
			return err
		}
	}
	return nil
}

func missing(arrivals []Arrival, n int) []int {
	here := map[int]bool{}
	for _, a := range arrivals {
		here[a.Rank] = true
	}
	var out []int
	for i := range n {
		if !here[i] {
			out = append(out, i)
		}
	}
	return out
}

func cmp(v, def time.Duration) time.Duration {
	if v > 0 {
		return v
	}
	return def
}
