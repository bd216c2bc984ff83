package sysmon

import (
	"context"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

// Config says what a Sampler watches.
type Config struct {
	// Interval between samples (default one second).
	Interval time.Duration
	// Loopback counts the lo interface: the target is on this machine and
	// its traffic goes nowhere else.
	Loopback bool
	// Process also samples this process (objbench itself): CPU, threads,
	// RSS, GC pauses, Go scheduler latency, open connections.
	Process bool
	// Conns picks the connections counted as open (with Process): those
	// to the target's address.
	Conns ConnFilter
	// TargetProcess finds the process on this machine that listens on
	// Conns' port (a local server of its own, not this process) and
	// samples its CPU too, so the verdict can tell the target's CPU from
	// other processes'.
	TargetProcess bool
	// Root holds the proc and sys trees ("" is "/"); tests point it at
	// recorded fixtures.
	Root string
	// OnSample, if set, is called with each sample as it is taken, from
	// the sampler's goroutine.
	OnSample func(Sample)
}

func (c Config) root(tree string) string {
	if c.Root == "" {
		return "/" + tree
	}
	return filepath.Join(c.Root, tree)
}

// minCut is the shortest interval Align cuts: a shorter one would give
// rates from a handful of clock ticks, so the boundary moves instead.
const minCut = 10 * time.Millisecond

// Sampler takes a sample every interval on a ticker aligned to a start
// instant, so its intervals are the same seconds as a step's op records.
type Sampler struct {
	cfg     Config
	r       *reader
	mu      sync.Mutex
	samples []Sample
	align   time.Time
	wake    chan struct{}
	cancel  context.CancelFunc
	g       errgroup.Group
}

// NewSampler prepares a sampler. It fails only when the machine has no
// readable CPU counters (no /proc); any other missing counter is noted in
// the timeline and its columns stay empty.
func NewSampler(cfg Config) (*Sampler, error) {
	if cfg.Interval <= 0 {
		cfg.Interval = time.Second
	}
	r, err := newReader(cfg)
	if err != nil {
		return nil, err
	}
	return &Sampler{cfg: cfg, r: r, wake: make(chan struct{}, 1), cancel: func() {}}, nil
}

// Missing names the counters this machine lacks (their columns stay
// empty).
func (s *Sampler) Missing() []string { return s.r.missing }

// Notes explain what is missing or approximated.
func (s *Sampler) Notes() []string { return s.r.notes }

// Start begins sampling: intervals end at start + k*interval. Sampling
// runs until ctx ends or Stop is called.
func (s *Sampler) Start(ctx context.Context, start time.Time) {
	ctx, s.cancel = context.WithCancel(ctx)
	first := s.r.read(time.Now()) // here, not in the goroutine: an Align right after Start must find it
	s.g.Go(func() error { return s.loop(ctx, start, first) })
}

// Align ends the current interval now and moves the ticker so intervals
// end at t + k*interval: each step's seconds start at its own instant.
func (s *Sampler) Align(t time.Time) {
	s.mu.Lock()
	s.align = t
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default: // a wake-up is already pending; it will read the newest instant
	}
}

// Stop ends sampling, taking a last (partial) sample, and returns the
// timeline.
func (s *Sampler) Stop() (Timeline, error) {
	s.cancel()
	err := s.g.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	devs, ifs := s.r.countedNames()
	return Timeline{
		Interval: s.cfg.Interval.Seconds(), Samples: s.samples, Devices: devs, Interfaces: ifs,
		Missing: s.r.missing, Notes: s.r.notes, TargetProcess: s.r.targetInfo,
	}, err
}

func (s *Sampler) loop(ctx context.Context, start time.Time, prev snapshot) error {
	iv := s.cfg.Interval
	next := after(start, iv, prev.at)
	timer := time.NewTimer(time.Until(next))
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			s.take(prev, time.Now())
			return nil
		case <-timer.C:
			prev = s.take(prev, time.Now())
			next = after(next, iv, prev.at)
		case <-s.wake:
			s.mu.Lock()
			t := s.align
			s.mu.Unlock()
			if now := time.Now(); now.Sub(prev.at) >= minCut {
				prev = s.take(prev, now)
			}
			next = after(t, iv, time.Now())
		}
		timer.Reset(time.Until(next))
	}
}

// after is the first instant base + k*iv (k >= 1) later than now, so ticks
// missed while the machine was too busy are skipped, not bunched up.
func after(base time.Time, iv time.Duration, now time.Time) time.Time {
	next := base.Add(iv)
	if !next.After(now) {
		next = next.Add((now.Sub(next)/iv + 1) * iv)
	}
	return next
}

// take reads a snapshot at now, records the sample since prev and returns
// the new snapshot.
func (s *Sampler) take(prev snapshot, now time.Time) snapshot {
	cur := s.r.read(now)
	smp := delta(prev, cur, s.r.counted, s.r.pageSize)
	s.mu.Lock()
	s.samples = append(s.samples, smp)
	s.mu.Unlock()
	if s.cfg.OnSample != nil {
		s.cfg.OnSample(smp)
	}
	return cur
}
