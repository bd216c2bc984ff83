package retry

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/objbench/objbench/storage"
)

// Op names, as Retry and OnSuccess report them.
const (
	OpPut               = "put"
	OpGet               = "get"
	OpStat              = "stat"
	OpDelete            = "delete"
	OpList              = "list"
	OpCreateMultipart   = "create-multipart"
	OpUploadPart        = "upload-part"
	OpCompleteMultipart = "complete-multipart"
	OpAbortMultipart    = "abort-multipart"
)

// DefaultRetries is how many times a failed op is tried again when
// Policy.Retries is 0.
const DefaultRetries = 3

// Policy says which failures are retried, how often and how far apart.
type Policy struct {
	// Retries is how many times a failed op is tried again; 0 means
	// DefaultRetries, < 0 none.
	Retries int
	// Backoff is the wait before retry n (1-based); nil: Backoff.
	Backoff func(n int) time.Duration
	// Retryable says whether an error may pass on another try; nil:
	// Retryable.
	Retryable func(error) bool
	// OnRetry, if set, is called before each wait.
	OnRetry func(Retry)
	// OnSuccess, if set, is called when an op succeeds, with how long its
	// successful attempt took (waits and failed attempts not included).
	OnSuccess func(op, key string, took time.Duration)
}

// Retry describes one failed attempt that is about to be tried again.
type Retry struct {
	Op, Key string
	Attempt int // the attempt that failed, 1-based
	Err     error
	Wait    time.Duration // before the next attempt
}

// Backoff is the default wait before retry n (1-based): 100 ms doubling,
// at most 2 s, each wait drawn uniformly from its upper half so that
// clients failing together do not retry together.
func Backoff(n int) time.Duration {
	d := min(100*time.Millisecond<<min(n-1, 5), 2*time.Second)
	return d/2 + rand.N(d/2+1)
}

// Retryable is the default test of whether err may pass on another try:
// network failures, timeouts and server-side (5xx, 408, 429) answers; not a
// missing object, denied access, a local file's failure or a cancellation.
func Retryable(err error) bool {
	var se *storage.StatusError
	if errors.As(err, &se) {
		return se.StatusCode >= 500 || se.StatusCode == 408 || se.StatusCode == 429
	}
	switch storage.ErrorClass(err) {
	case storage.ClassNotFound, storage.ClassDenied, storage.ClassCanceled, storage.ClassIO:
		return false
	}
	return true
}

// Store is a storage.Store whose ops are retried by a Policy.
type Store struct {
	st      storage.Store
	p       Policy
	retries atomic.Int64
}

var _ storage.Store = (*Store)(nil)

// New wraps st. The result is a storage.Multiparter, with its multipart
// ops retried too, exactly when st is one.
func New(st storage.Store, p Policy) storage.Store {
	s := &Store{st: st, p: p.withDefaults()}
	if mp, ok := st.(storage.Multiparter); ok {
		return &multipartStore{Store: s, mp: mp}
	}
	return s
}

func (p Policy) withDefaults() Policy {
	if p.Retries == 0 {
		p.Retries = DefaultRetries
	}
	if p.Backoff == nil {
		p.Backoff = Backoff
	}
	if p.Retryable == nil {
		p.Retryable = Retryable
	}
	return p
}

// Do calls fn until it succeeds, fails for good, runs out of retries or
// ctx ends, as p says, and returns fn's last error.
func Do(ctx context.Context, p Policy, fn func() error) error {
	return run(ctx, p.withDefaults(), "", "", nil, fn, nil)
}

// Around is the policy for the requests around a measurement (bucket
// checks, cleanup's listings and deletes; never measured ops, which
// count every failure): tries attempts in all, retrying only what
// storage.Transient says may pass.
func Around(tries int) Policy {
	if tries <= 1 {
		return Policy{Retries: -1, Retryable: storage.Transient}
	}
	return Policy{Retries: tries - 1, Retryable: storage.Transient}
}

// Unwrap returns the wrapped store.
func (s *Store) Unwrap() storage.Store { return s.st }

// Retries is how many retries the store has made so far.
func (s *Store) Retries() int64 { return s.retries.Load() }

// do runs attempt until it succeeds, fails for good, runs out of retries
// or ctx ends. rewind, called before each retry, says whether the op can
// be repeated (and prepares it to be); nil means it always can.
func (s *Store) do(ctx context.Context, op, key string, rewind func() bool, attempt func() error) error {
	return run(ctx, s.p, op, key, rewind, attempt, &s.retries)
}

// run is Do and Store.do: p has its defaults; retries (unless nil)
// counts the retries made.
func run(ctx context.Context, p Policy, op, key string, rewind func() bool, attempt func() error, retries *atomic.Int64) error {
	for n := 1; ; n++ {
		start := time.Now()
		err := attempt()
		if err == nil {
			if p.OnSuccess != nil {
				p.OnSuccess(op, key, time.Since(start))
			}
			return nil
		}
		if n > p.Retries || ctx.Err() != nil || !p.Retryable(err) || (rewind != nil && !rewind()) {
			return err
		}
		wait := p.Backoff(n)
		if retries != nil {
			retries.Add(1)
		}
		if p.OnRetry != nil {
			p.OnRetry(Retry{Op: op, Key: key, Attempt: n, Err: err, Wait: wait})
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}

// Put stores body under key, rewinding a seekable body for each retry.
func (s *Store) Put(ctx context.Context, key string, body io.Reader, size int64, o storage.PutOptions) (storage.ObjectInfo, error) {
	var info storage.ObjectInfo
	err := s.do(ctx, OpPut, key, rewinder(body), func() (err error) {
		info, err = s.st.Put(ctx, key, body, size, o)
		return err
	})
	return info, err
}

// Get writes the object to w; a retry after bytes were written rewinds a
// seekable w (io.Discard needs none).
func (s *Store) Get(ctx context.Context, key string, o storage.GetOptions, w io.Writer) (int64, error) {
	var n int64
	rewind := rewinder(w) // nil: nothing to rewind
	if w == io.Discard {
		rewind = nil
	}
	err := s.do(ctx, OpGet, key, func() bool { return n == 0 || rewind == nil || rewind() }, func() (err error) {
		n, err = s.st.Get(ctx, key, o, w)
		return err
	})
	return n, err
}

// Stat returns key's metadata.
func (s *Store) Stat(ctx context.Context, key string) (storage.ObjectInfo, error) {
	var info storage.ObjectInfo
	err := s.do(ctx, OpStat, key, nil, func() (err error) {
		info, err = s.st.Stat(ctx, key)
		return err
	})
	return info, err
}

// Delete removes key.
func (s *Store) Delete(ctx context.Context, key string) error {
	return s.do(ctx, OpDelete, key, nil, func() error { return s.st.Delete(ctx, key) })
}

// List calls fn for every object under prefix. A listing is retried only
// while fn has not been called, so fn never sees an object twice and its
// own errors are returned as they are.
func (s *Store) List(ctx context.Context, prefix string, fn func(storage.ObjectInfo) error) error {
	called := false
	return s.do(ctx, OpList, prefix, func() bool { return !called }, func() error {
		return s.st.List(ctx, prefix, func(oi storage.ObjectInfo) error {
			called = true
			return fn(oi)
		})
	})
}

// rewinder returns a func that moves v back to where it is now, if v is
// an io.Seeker that can tell where that is; else one that says no (nil v:
// nothing to rewind).
func rewinder(v any) func() bool {
	if v == nil {
		return nil
	}
	sk, ok := v.(io.Seeker)
	if !ok {
		return func() bool { return false }
	}
	pos, err := sk.Seek(0, io.SeekCurrent)
	if err != nil {
		return func() bool { return false }
	}
	return func() bool {
		_, err := sk.Seek(pos, io.SeekStart)
		return err == nil
	}
}
