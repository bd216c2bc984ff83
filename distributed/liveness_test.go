package distributed_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/objbench/objbench/distributed"
	"github.com/objbench/objbench/storage"
)

const prefix = "objbench/live/_workers/"

// worker is a rendezvous of rank r of n on st with quick beats.
func worker(st storage.Store, r, n int, plan, host string) *distributed.Rendezvous {
	return &distributed.Rendezvous{Store: st, Prefix: prefix, Worker: distributed.Worker{Rank: r, Size: n}, Plan: plan, Host: host,
		Poll: 10 * time.Millisecond, Margin: 20 * time.Millisecond, Timeout: 20 * time.Second,
		Beat: 20 * time.Millisecond, DeadAfter: 300 * time.Millisecond}
}

// joinAll joins rvs side by side and returns their errors.
func joinAll(rvs []*distributed.Rendezvous) []error {
	errs := make([]error, len(rvs))
	var wg sync.WaitGroup
	for i, rv := range rvs {
		wg.Go(func() { _, _, errs[i] = rv.Join(context.Background()) })
	}
	wg.Wait()
	return errs
}

// Two processes launched as rank 0 of 3 (a launcher's mistake): the
// second claimant is refused before any load, naming both hosts; the
// run of the others goes on and its rank 0 knows of the refused one.
func TestSecondClaimantOfARankIsRefused(t *testing.T) {
	st := embedded(t)
	first := worker(st, 0, 3, "p1", "node-a")
	// node-a claims rank 0 first; node-b claims it again while the
	// others have not come yet.
	done := make(chan error, 1)
	go func() { _, _, err := first.Join(context.Background()); done <- err }()
	waitFor(t, func() bool { return len(keysUnder(t, st, prefix+"claims/")) == 1 })
	_, _, err := worker(st, 0, 3, "p1", "node-b").Join(context.Background())
	var dup *distributed.DuplicateError
	if !errors.As(err, &dup) || !strings.Contains(err.Error(), "host node-a") || !strings.Contains(err.Error(), "host node-b") {
		t.Fatalf("second rank 0: %v; want it refused, naming node-a and node-b", err)
	}
	rest := joinAll([]*distributed.Rendezvous{worker(st, 1, 3, "p1", "node-c"), worker(st, 2, 3, "p1", "node-d")})
	if err := <-done; err != nil || rest[0] != nil || rest[1] != nil {
		t.Fatalf("the others' join: %v, %v, %v", err, rest[0], rest[1])
	}
	if len(first.Duplicates) != 1 || first.Duplicates[0].Host != "node-b" {
		t.Errorf("rank 0 saw duplicates %+v, want node-b's claim", first.Duplicates)
	}
}

// Workers started with different plans all refuse to start, each
// naming who differs.
func TestWorkersWithDifferentPlansRefuse(t *testing.T) {
	st := embedded(t)
	rvs := []*distributed.Rendezvous{worker(st, 0, 3, "aaaa", "h0"), worker(st, 1, 3, "aaaa", "h1"), worker(st, 2, 3, "bbbb", "h2")}
	for i, err := range joinAll(rvs) {
		var pe *distributed.PlanError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), "host h") {
			t.Errorf("worker %d: %v; want a plan error", i, err)
		}
	}
	for _, rv := range rvs {
		_ = rv.Leave(context.Background(), nil)
	}
}

// mute is a store on which one worker's signs of life stop, as if its
// process were killed.
type mute struct {
	storage.Store
	rank string
	dead atomic.Bool
}

func (m *mute) Put(ctx context.Context, key string, body io.Reader, size int64, o storage.PutOptions) (storage.ObjectInfo, error) {
	if m.dead.Load() && strings.Contains(key, "rank-"+m.rank) {
		return storage.ObjectInfo{}, errors.New("killed")
	}
	return m.Store.Put(ctx, key, body, size, o)
}

// A worker that dies after joining is named within a few of its beats
// by the others waiting for it: a step's meeting fails at once, and a
// cleanup meeting goes on without it, naming it gone.
func TestADeadWorkerIsFoundWithinSeconds(t *testing.T) {
	st := &mute{Store: embedded(t), rank: "000002"}
	rvs := []*distributed.Rendezvous{worker(st, 0, 3, "p", "h0"), worker(st, 1, 3, "p", "h1"), worker(st, 2, 3, "p", "h2")}
	for i, err := range joinAll(rvs) {
		if err != nil {
			t.Fatalf("join %d: %v", i, err)
		}
	}
	st.dead.Store(true) // worker 2 is killed: no more beats, no more markers
	began := time.Now()
	_, _, err := rvs[0].Meet(context.Background(), "main.1.2")
	var me *distributed.MissingError
	if !errors.As(err, &me) || me.Gone[2] == "" || !strings.Contains(err.Error(), "no sign of life") {
		t.Fatalf("meeting without worker 2: %v", err)
	}
	if waited := time.Since(began); waited > 10*time.Second {
		t.Errorf("found the dead worker after %v; its beats stopped 300 ms after it died", waited)
	}
	gone := make([][]int, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() { _, gone[i], errs[i] = rvs[i].MeetToClean(context.Background(), "cleanup.1.1") })
	}
	wg.Wait()
	for i := range 2 {
		if errs[i] != nil || len(gone[i]) != 1 || gone[i][0] != 2 {
			t.Errorf("worker %d at cleanup: gone %v, %v; want worker 2 gone", i, gone[i], errs[i])
		}
	}
	for i := range 2 {
		if err := rvs[i].Leave(context.Background(), []int{2}); err != nil {
			t.Fatal(err)
		}
	}
	if left := keysUnder(t, st, prefix); len(left) != 0 {
		t.Errorf("markers left after the survivors left: %v", left)
	}
}

// A worker that fails says so, and the others stop waiting at once; at a
// cleanup meeting it is still waited for (it cleans up too).
func TestAFailedWorkerEndsTheWaitAtOnce(t *testing.T) {
	st := embedded(t)
	rvs := []*distributed.Rendezvous{worker(st, 0, 2, "p", "h0"), worker(st, 1, 2, "p", "h1")}
	for i, err := range joinAll(rvs) {
		if err != nil {
			t.Fatalf("join %d: %v", i, err)
		}
	}
	if err := rvs[1].Fail(context.Background(), "interrupted"); err != nil {
		t.Fatal(err)
	}
	_, _, err := rvs[0].Meet(context.Background(), "main.1.2")
	if err == nil || !strings.Contains(err.Error(), "worker 1 stopped (interrupted)") {
		t.Fatalf("meeting a failed worker: %v", err)
	}
	gone := make([][]int, 2)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() { _, gone[i], _ = rvs[i].MeetToClean(context.Background(), "cleanup.1.1") })
	}
	wg.Wait()
	if len(gone[0])+len(gone[1]) != 0 {
		t.Errorf("the failed but living worker was left out of cleanup: %v", gone)
	}
}

func keysUnder(t *testing.T, st storage.Store, p string) []string {
	t.Helper()
	keys, err := storage.KeysUnder(context.Background(), st, p)
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 10 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
