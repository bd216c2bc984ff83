package distributed

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/objbench/objbench/storage"
)

// A joined worker rewrites alive/rank-R every Beat with a counter, so
// its sign (ETag, time and size as a listing shows them) changes; a
// worker waiting at a meeting lists alive/ and failed/ and takes a
// worker whose sign has not changed for DeadAfter for dead. Signs are
// compared with themselves, never with this machine's clock, so a store
// whose times are coarse or off still tells. A worker that fails or is
// interrupted writes failed/rank-R.WHY: it comes to no more steps but
// cleanup.

const (
	defaultBeat = 2 * time.Second
	// DefaultDeadAfter is how long a worker waiting at a meeting lets
	// another's sign of life stand still before taking it for dead.
	DefaultDeadAfter = 12 * time.Second
)

const (
	aliveDir  = "alive/"
	failedDir = "failed/"
	leftDir   = "left/"
)

// sign is what a listing shows of a worker's alive marker, and when this
// worker first saw it so.
type sign struct {
	seen string
	at   time.Time
}

// startBeat writes this worker's alive marker now and then every Beat
// until stopBeat.
func (r *Rendezvous) startBeat(ctx context.Context) error {
	key := r.Prefix + aliveDir + fmt.Sprintf("rank-%06d", r.Worker.Rank)
	put := func(ctx context.Context, n int) error {
		s := strconv.Itoa(n)
		_, err := r.Store.Put(ctx, key, strings.NewReader(s), int64(len(s)), storage.PutOptions{})
		return err
	}
	if err := put(ctx, 0); err != nil {
		return fmt.Errorf("write this worker's sign of life: %w", err)
	}
	bctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	r.stopBeat, r.beatDone = cancel, done
	go func() {
		defer close(done)
		t := time.NewTicker(cmp(r.Beat, defaultBeat))
		defer t.Stop()
		for n := 1; ; n++ {
			select {
			case <-bctx.Done():
				return
			case <-t.C:
			}
			pctx, pcancel := context.WithTimeout(bctx, cmp(r.Beat, defaultBeat)*2)
			_ = put(pctx, n) // a beat lost to a passing fault is made good by the next
			pcancel()
		}
	}()
	return nil
}

// endBeat stops the beat and waits for its last write.
func (r *Rendezvous) endBeat() {
	if r.stopBeat != nil {
		r.stopBeat()
		<-r.beatDone
		r.stopBeat = nil
	}
}

// gone says which of the missing ranks will not come, and why: those
// that failed (unless cleaning: a failed worker still cleans up) and
// those whose sign of life stopped changing DeadAfter ago. A rank never
// seen alive is waited for until the meeting's timeout.
func (r *Rendezvous) gone(ctx context.Context, missing []int, cleaning bool) (map[int]string, error) {
	failed := map[int]string{}
	err := storage.ListUnder(ctx, r.Store, r.Prefix+failedDir, func(o storage.ObjectInfo) error {
		name := strings.TrimPrefix(o.Key, r.Prefix+failedDir)
		rest, ok := strings.CutPrefix(name, "rank-")
		rs, why, _ := strings.Cut(rest, ".")
		if rank, err := strconv.Atoi(rs); ok && err == nil {
			failed[rank] = strings.ReplaceAll(why, "_", " ")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	now := time.Now()
	alive := map[int]string{}
	err = storage.ListUnder(ctx, r.Store, r.Prefix+aliveDir, func(o storage.ObjectInfo) error {
		if rank, err := strconv.Atoi(strings.TrimPrefix(o.Key, r.Prefix+aliveDir+"rank-")); err == nil {
			alive[rank] = fmt.Sprintf("%s|%d|%d", o.ETag, o.ModTime.UnixNano(), o.Size)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.signs == nil {
		r.signs = map[int]sign{}
	}
	dead := cmp(r.DeadAfter, DefaultDeadAfter)
	out := map[int]string{}
	for _, rank := range missing {
		if why, ok := failed[rank]; ok && !cleaning {
			out[rank] = "stopped (" + why + ")"
			continue
		}
		s, ok := alive[rank]
		if !ok {
			continue
		}
		if last, seen := r.signs[rank]; !seen || last.seen != s {
			r.signs[rank] = sign{seen: s, at: now}
			continue
		}
		if quiet := now.Sub(r.signs[rank].at); quiet >= dead {
			out[rank] = fmt.Sprintf("gave no sign of life for %v (died?)", quiet.Round(time.Second))
		}
	}
	return out, nil
}

// Fail tells the other workers that this one comes to no more steps but
// cleanup, and why (a word or two: "interrupted", "failed").
func (r *Rendezvous) Fail(ctx context.Context, why string) error {
	if r.Worker.Solo() {
		return nil
	}
	key := r.Prefix + failedDir + fmt.Sprintf("rank-%06d.%s", r.Worker.Rank, safeWord(why))
	_, err := r.Store.Put(ctx, key, strings.NewReader(""), 0, storage.PutOptions{})
	return err
}

// safeWord keeps letters, digits and '-' of why, spaces as '_', at most
// 40 characters: a key's last part.
func safeWord(why string) string {
	b := []byte(why)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			b[i] = '_'
		}
	}
	return string(b[:min(len(b), 40)])
}

// Leave ends this worker's part, after its cleanup: it stops showing it
// is alive, and the last worker to leave (the ranks in gone aside: they
// died) removes the run's markers.
func (r *Rendezvous) Leave(ctx context.Context, gone []int) error {
	if r.Worker.Solo() {
		return nil
	}
	r.endBeat()
	dir := r.Prefix + leftDir
	me := Arrival{Rank: r.Worker.Rank, Arrived: time.Now().Add(r.Clock.Offset), Offset: r.Clock.Offset}
	if _, err := r.Store.Put(ctx, dir+markerName(me), strings.NewReader(""), 0, storage.PutOptions{}); err != nil {
		return err
	}
	left, err := r.list(ctx, dir)
	if err != nil || len(left)+len(gone) < r.Worker.N() {
		return err
	}
	return r.deleteMarkers(ctx, r.Prefix)
}

// deleteMarkers deletes the meeting markers listed under prefix: keys
// whose names are markers' (rank-..., a claim), and nothing else, nothing
// outside prefix; the run's manifests stay.
func (r *Rendezvous) deleteMarkers(ctx context.Context, prefix string) error {
	keys, err := storage.KeysUnder(ctx, r.Store, prefix)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if name := strings.TrimPrefix(k, r.Prefix); !IsMarker(name) || strings.HasPrefix(name, ManifestDir) {
			continue
		}
		if err := r.Store.Delete(ctx, k); err != nil && storage.ErrorClass(err) != storage.ClassNotFound {
			return err
		}
	}
	return nil
}

// IsMarker reports whether name (a key below a run's MarkerDir) is one of
// the markers its workers write: POINT/rank-..., alive/, failed/, left/
// and claims/ markers. Cleaning up a run deletes these and no other key
// below MarkerDir.
func IsMarker(name string) bool {
	dir, base, ok := strings.Cut(name, "/")
	if !ok || dir == "" || strings.Contains(base, "/") || strings.Contains(dir, "..") {
		return false
	}
	rest, ok := strings.CutPrefix(base, "rank-")
	if !ok || len(rest) < 6 {
		return false
	}
	for _, c := range rest[:6] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// markGone records ranks left out of a cleanup meeting, and why.
func (r *Rendezvous) markGone(gone map[int]string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.dead == nil {
		r.dead = map[int]string{}
	}
	for g, why := range gone {
		if _, ok := r.dead[g]; !ok {
			r.dead[g] = why
		}
	}
}

// goneRanks are the ranks left out of cleanup meetings so far, in order.
func (r *Rendezvous) goneRanks() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]int, 0, len(r.dead))
	for g := range r.dead {
		out = append(out, g)
	}
	slices.Sort(out)
	return out
}

// GoneWhy says why rank was left out of a cleanup meeting ("" if it was
// not).
func (r *Rendezvous) GoneWhy(rank int) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dead[rank]
}

// notGone is missing without the ranks already gone.
func (r *Rendezvous) notGone(missing []int) []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.DeleteFunc(missing, func(m int) bool { _, ok := r.dead[m]; return ok })
}
