package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/objbench/objbench/distributed"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/retry"
	"github.com/objbench/objbench/workload"
)

// meeting is how a worker of a split run starts each step with the others;
// a nil meeting (a local run) starts each step at once.
type meeting struct {
	rv   *distributed.Rendezvous
	res  *result.Run
	warn func(string, ...any)
	seen map[string]int // times each stage name began: the same in every worker, even when one failed a step

	mu      sync.Mutex
	gone    []int // ranks found dead at a cleanup meeting
	adopted []int // of those, the ones this worker cleans up for
	failed  bool
}

// rendezvous measures this worker's clock against the store's, sets up
// its meetings and joins the others (every rank once, one plan),
// recording what it learnt in res; nil for a local run.
func rendezvous(ctx context.Context, tgt *Target, res *result.Run, sp workload.Spec, o Options, note, warn func(string, ...any)) (*meeting, error) {
	if o.Worker.Solo() {
		return nil, nil
	}
	if err := o.Worker.Valid(); err != nil {
		return nil, err
	}
	res.Worker = &result.Worker{Rank: o.Worker.Rank, Size: o.Worker.N(), Engine: o.Engine}
	var off distributed.Offset
	if c, ok := tgt.Store.(storage.Clock); ok {
		var err error
		if off, err = distributed.MeasureOffset(ctx, c); err != nil {
			return nil, fmt.Errorf("worker %v: the store's clock: %w", o.Worker, err)
		}
	}
	res.Worker.ClockOffset, res.Worker.ClockError = off.Offset, off.Error
	host, _ := os.Hostname()
	m := &meeting{res: res, warn: warn, seen: map[string]int{}, rv: &distributed.Rendezvous{Store: bookkeeping(tgt.Store),
		Prefix: res.Target.Namespace + distributed.MarkerDir, Worker: o.Worker, Clock: off, Timeout: o.RendezvousTimeout,
		MaxSkew: o.MaxSkew, Plan: planDigest(sp, o), Host: host + "-pid" + strconv.Itoa(os.Getpid())}}
	m.rv.Waiting = func(w distributed.Wait) {
		note("worker %v: waiting at %s for worker(s) %s (%v of at most %v; a worker that died is named within %v)",
			o.Worker, w.Point, distributed.RankList(w.Missing), w.Waited.Round(time.Second), w.Timeout, distributed.DefaultDeadAfter)
	}
	if _, _, err := m.rv.Join(ctx); err != nil {
		return m, err
	}
	for _, d := range m.rv.Duplicates {
		if d.Rank != o.Worker.Rank {
			continue // its rank's holder says so
		}
		res.Worker.Refused = append(res.Worker.Refused, d.Host)
		warn("a second process (host %s) claimed worker %d's rank and was refused: check the launcher's ranks", d.Host, d.Rank)
	}
	return m, nil
}

// bookkeeping is st for the run's own records (markers, manifests): their
// requests are tried again while they fail transiently (a 503 SlowDown),
// as cleanup's are, so that a store's passing trouble does not fail the
// run.
func bookkeeping(st storage.Store) storage.Store { return retry.New(st, retry.Around(6)) }

// planDigest is what every worker must agree on: the workload, the
// number of workers, the seed and what shapes the steps.
func planDigest(sp workload.Spec, o Options) string {
	spec, _ := json.Marshal(sp)
	return distributed.PlanDigest(spec, []byte(fmt.Sprintf("n=%d seed=%d repeat=%d nocleanup=%v", o.Worker.N(), o.Seed, o.Repeat, o.NoCleanup)))
}

// beforeStep meets the other workers and waits for the instant they agreed
// on, so every worker starts the step together. At a cleanup or dispose
// step a worker that died is left out: the lowest living rank cleans up
// for it.
func (m *meeting) beforeStep(ctx context.Context, st workload.Stage, i int) error {
	if m == nil {
		return nil
	}
	if i == 0 {
		m.seen[st.Name]++
	}
	point := fmt.Sprintf("%s.%d.%d", safeName(st.Name), m.seen[st.Name], i+1)
	var start time.Time
	var err error
	if st.Kind == workload.KindCleanup || st.Kind == workload.KindDispose {
		var gone []int
		start, gone, err = m.rv.MeetToClean(ctx, point)
		m.dead(gone)
	} else {
		start, _, err = m.rv.Meet(ctx, point)
	}
	var missing *distributed.MissingError
	switch {
	case errors.As(err, &missing) && (st.Kind == workload.KindCleanup || st.Kind == workload.KindDispose):
		return nil // a worker that does not come still lets the others clean up what they wrote
	case err != nil:
		return err
	}
	if d := time.Until(start); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}

// dead records ranks found dead at a cleanup meeting; the lowest living
// rank adopts them.
func (m *meeting) dead(gone []int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, g := range gone {
		if !slices.Contains(m.gone, g) {
			m.gone = append(m.gone, g)
			m.warn("worker %d is gone (it %s): the others clean up without it, and for it; the run's merge will be partial", g, m.rv.GoneWhy(g))
		}
	}
	slices.Sort(m.gone)
	lowest := 0
	for slices.Contains(m.gone, lowest) {
		lowest++
	}
	m.adopted = nil
	if lowest == m.rv.Worker.Rank {
		m.adopted = slices.Clone(m.gone)
	}
	m.res.Worker.Gone, m.res.Worker.Adopted = slices.Clone(m.gone), slices.Clone(m.adopted)
}

// adoptedRanks are the dead workers this one cleans up for.
func (m *meeting) adoptedRanks() []int {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.adopted)
}

// stopping tells the others that this worker comes to no more steps but
// cleanup.
func (m *meeting) stopping(why string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	already := m.failed
	m.failed = true
	m.mu.Unlock()
	if !already {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = m.rv.Fail(ctx, why) // the others still find it at the deadline
	}
}

// finish meets the others once every worker has cleaned up, checks that
// nothing of the run is left in the store (recording it in res when
// something is), and leaves: the last worker removes the markers.
func (m *meeting) finish(ctx context.Context, res *result.Run, st storage.Store) {
	if m == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
	defer cancel()
	if res.CleanedUp {
		_, gone, err := m.rv.MeetToClean(ctx, "end")
		if storage.ErrorClass(err) == storage.ClassNotFound || errors.Is(err, storage.ErrBucketNotFound) {
			return // the run disposed of its bucket, markers and all
		}
		m.dead(gone)
		left, lerr := leftOf(ctx, st, res.Target.Namespace)
		_ = err // a worker that did not come in time: what is left tells
		switch {
		case lerr != nil:
			res.CleanedUp, res.CleanupNote = false, "could not check that nothing of the run is left: "+lerr.Error()
		case left > 0:
			res.CleanedUp = false
			res.CleanupNote = fmt.Sprintf("%d objects of the run are left under %s (objbench clean --run %s deletes them)", left, res.Target.Namespace, res.RunID)
		}
	}
	m.mu.Lock()
	gone := slices.Clone(m.gone)
	m.mu.Unlock()
	_ = m.rv.Leave(ctx, gone) // leftover markers are a nuisance, not a failed run
}

// leftOf counts the objects under ns that are not the workers' markers.
func leftOf(ctx context.Context, st storage.Store, ns string) (int, error) {
	n := 0
	err := storage.ListUnder(ctx, st, ns, func(o storage.ObjectInfo) error {
		if !strings.HasPrefix(o.Key, ns+distributed.MarkerDir) {
			n++
		}
		return nil
	})
	return n, err
}

// leave stops this worker's signs of life after a failure, without the
// end meeting.
func (m *meeting) leave(ctx context.Context) {
	if m != nil {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_ = m.rv.Leave(cctx, nil)
	}
}

// safeName keeps a stage name to letters, digits, '-' and '_' for a key.
func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			b[i] = '_'
		}
	}
	return string(b)
}
