package distributed

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
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
//
// Join is the first meeting: each worker claims its rank (a second
// claimant is refused, both hosts named) and every worker checks that
// all run the same plan. From Join to Leave each worker shows it is alive
// (a marker rewritten every Beat), so that a worker waiting at a meeting
// learns within DeadAfter that another died, and one that fails or is
// interrupted says so (Fail) for the others to see at once.
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
	// Plan is a digest of what this worker runs (PlanDigest); Join
	// refuses to start unless every worker's is the same. Host names this
	// process in the others' messages.
	Plan, Host string
	// Beat is how often a joined worker shows it is alive (default 2 s);
	// a worker whose sign has not changed for DeadAfter (default 12 s)
	// while another waits for it is taken for dead.
	Beat, DeadAfter time.Duration
	// Waiting, if set, hears every few seconds of a meeting that waits.
	Waiting func(Wait)

	mu       sync.Mutex
	done     []string // points passed, whose own markers can go
	nonce    string
	signs    map[int]sign   // the others' signs of life, as last seen
	dead     map[int]string // ranks left out of a cleanup meeting, and why: not waited for again
	stopBeat func()
	beatDone chan struct{}
	// Duplicates are the second claimants of ranks that Join saw: they
	// were refused, and this worker's run is sound; say so.
	Duplicates []Claim
}

// Wait is a meeting that waits: the ranks not there yet, how long it has
// waited and at most will.
type Wait struct {
	Point           string
	Missing         []int
	Waited, Timeout time.Duration
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

// MissingError names the workers that did not come to a meeting: those
// known to have failed or died (Gone, with why) and those that did not
// come in time.
type MissingError struct {
	Point   string
	Missing []int
	Gone    map[int]string
	After   time.Duration
}

func (e *MissingError) Error() string {
	var parts []string
	for _, r := range e.Missing {
		if why, ok := e.Gone[r]; ok {
			parts = append(parts, fmt.Sprintf("worker %d %s", r, why))
		}
	}
	if len(parts) > 0 {
		return fmt.Sprintf("%s, before %s: the run stops on every worker (each still cleans up)", strings.Join(parts, "; "), e.Point)
	}
	return fmt.Sprintf("worker(s) %s did not reach %s within %v (the rendezvous timeout): the run stops on every worker",
		RankList(e.Missing), e.Point, e.After)
}

// RankList is ranks as messages list workers: "0, 2, 5".
func RankList(ranks []int) string {
	s := make([]string, len(ranks))
	for i, r := range ranks {
		s[i] = strconv.Itoa(r)
	}
	return strings.Join(s, ", ")
}

// SkewError: the workers' clocks disagree by more than MaxSkew.
type SkewError struct {
	Skew          time.Duration
	Ahead, Behind int // the ranks whose clocks are furthest apart
	Max           time.Duration
}

func (e *SkewError) Error() string {
	return fmt.Sprintf("the workers' clocks disagree by %v (worker %d against worker %d), more than the %v allowed: synchronise them (NTP) or allow more",
		e.Skew.Round(time.Millisecond), e.Ahead, e.Behind, e.Max)
}

// Meet waits at point until every worker is there and returns the local
// instant all of them start at, and the arrivals (for their clocks). A
// worker that failed or died ends the wait at once, with a MissingError
// that says so. A single worker meets nobody: it starts now.
func (r *Rendezvous) Meet(ctx context.Context, point string) (time.Time, []Arrival, error) {
	start, arrivals, _, err := r.meet(ctx, point, false)
	return start, arrivals, err
}

// MeetToClean is Meet for the cleanup steps: a worker that failed but
// lives still comes (it cleans up too), and one that died (or did not
// come within Timeout) is left out, its rank among the gone ones
// returned, so that the others clean up what it wrote.
func (r *Rendezvous) MeetToClean(ctx context.Context, point string) (time.Time, []int, error) {
	start, _, gone, err := r.meet(ctx, point, true)
	return start, gone, err
}

func (r *Rendezvous) meet(ctx context.Context, point string, cleaning bool) (time.Time, []Arrival, []int, error) {
	if r.Worker.Solo() {
		return time.Now(), nil, nil, nil
	}
	timeout, poll, margin := cmp(r.Timeout, 2*time.Minute), cmp(r.Poll, 100*time.Millisecond), cmp(r.Margin, 500*time.Millisecond)
	dir := r.Prefix + point + "/"
	me := Arrival{Rank: r.Worker.Rank, Arrived: time.Now().Add(r.Clock.Offset), Offset: r.Clock.Offset}
	if _, err := r.Store.Put(ctx, dir+markerName(me), strings.NewReader(""), 0, storage.PutOptions{}); err != nil {
		return time.Time{}, nil, nil, fmt.Errorf("rendezvous at %s: write this worker's marker: %w", point, err)
	}
	began := time.Now()
	deadline := began.Add(timeout)
	nextCheck, nextSay := began, began.Add(5*time.Second)
	for {
		arrivals, err := r.list(ctx, dir)
		if err != nil {
			return time.Time{}, nil, nil, fmt.Errorf("rendezvous at %s: %w", point, err)
		}
		missing := missing(arrivals, r.Worker.N())
		if cleaning {
			missing = r.notGone(missing)
		}
		if len(missing) == 0 {
			r.forgetBefore(ctx, point)
			start, arrivals, err := r.start(arrivals, margin)
			return start, arrivals, r.goneRanks(), err
		}
		now := time.Now()
		if now.After(nextCheck) {
			nextCheck = now.Add(cmp(r.Beat, defaultBeat))
			gone, err := r.gone(ctx, missing, cleaning)
			if err != nil {
				return time.Time{}, nil, nil, fmt.Errorf("rendezvous at %s: %w", point, err)
			}
			if len(gone) == len(missing) && cleaning {
				r.markGone(gone)
				start, arrivals, err := r.start(arrivals, margin)
				return start, arrivals, r.goneRanks(), err
			}
			if len(gone) > 0 && !cleaning {
				return time.Time{}, arrivals, nil, &MissingError{Point: point, Missing: missing, Gone: gone, After: now.Sub(began)}
			}
		}
		if now.After(deadline) {
			if cleaning { // the others clean up without it, and for it
				late := map[int]string{}
				for _, m := range missing {
					late[m] = fmt.Sprintf("did not come within %v", timeout)
				}
				r.markGone(late)
				start, arrivals, err := r.start(arrivals, margin)
				return start, arrivals, r.goneRanks(), err
			}
			return time.Time{}, arrivals, nil, &MissingError{Point: point, Missing: missing, After: timeout}
		}
		if now.After(nextSay) && r.Waiting != nil {
			nextSay = now.Add(5 * time.Second)
			r.Waiting(Wait{Point: point, Missing: missing, Waited: now.Sub(began), Timeout: timeout})
		}
		t := time.NewTimer(poll)
		select {
		case <-ctx.Done():
			t.Stop()
			return time.Time{}, arrivals, nil, ctx.Err()
		case <-t.C:
		}
	}
}

// start is the agreed instant, converted to this machine's clock, after
// the skew check.
func (r *Rendezvous) start(arrivals []Arrival, margin time.Duration) (time.Time, []Arrival, error) {
	if len(arrivals) == 0 {
		return time.Now(), arrivals, nil
	}
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
		return time.Time{}, arrivals, &SkewError{Skew: skew, Ahead: hi.Rank, Behind: lo.Rank, Max: r.MaxSkew}
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
		_ = r.deleteMarkers(ctx, r.Prefix+p+"/"+fmt.Sprintf("rank-%06d.", r.Worker.Rank))
	}
	r.done = append(r.done[:0], point)
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
