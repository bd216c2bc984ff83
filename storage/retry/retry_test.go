package retry_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/mem"
	"github.com/objbench/objbench/storage/retry"
	"github.com/objbench/objbench/storage/storagetest"
)

// The wrapper must be invisible when nothing fails.
func TestConformance(t *testing.T) {
	storagetest.Run(t, func(*testing.T) storage.Store { return retry.New(mem.New(), retry.Policy{}) })
}

// failing is a memory store whose op fails its first fails calls with err,
// after doing part of the work: reading partial bytes of a body, writing
// partial bytes of an object, or handing partial objects to a List's fn.
type failing struct {
	*mem.Store
	op      string
	err     error
	partial int64

	mu    sync.Mutex
	fails int
	calls int
}

// fail says whether this call of op fails, and counts it.
func (f *failing) fail(op string) bool {
	if op != f.op {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.fails == 0 {
		return false
	}
	f.fails--
	return true
}

func (f *failing) Put(ctx context.Context, key string, body io.Reader, size int64, o storage.PutOptions) (storage.ObjectInfo, error) {
	if f.fail(retry.OpPut) {
		_, _ = io.CopyN(io.Discard, body, f.partial)
		return storage.ObjectInfo{}, f.err
	}
	return f.Store.Put(ctx, key, body, size, o)
}

func (f *failing) UploadPart(ctx context.Context, key, id string, n int, body io.Reader, size int64, o storage.PutOptions) (storage.Part, error) {
	if f.fail(retry.OpUploadPart) {
		_, _ = io.CopyN(io.Discard, body, f.partial)
		return storage.Part{}, f.err
	}
	return f.Store.UploadPart(ctx, key, id, n, body, size, o)
}

func (f *failing) Get(ctx context.Context, key string, o storage.GetOptions, w io.Writer) (int64, error) {
	if f.fail(retry.OpGet) {
		var buf bytes.Buffer
		if _, err := f.Store.Get(ctx, key, o, &buf); err != nil {
			return 0, err
		}
		n, _ := w.Write(buf.Bytes()[:f.partial])
		return int64(n), f.err
	}
	return f.Store.Get(ctx, key, o, w)
}

func (f *failing) Stat(ctx context.Context, key string) (storage.ObjectInfo, error) {
	if f.fail(retry.OpStat) {
		return storage.ObjectInfo{}, f.err
	}
	return f.Store.Stat(ctx, key)
}

func (f *failing) Delete(ctx context.Context, key string) error {
	if f.fail(retry.OpDelete) {
		return f.err
	}
	return f.Store.Delete(ctx, key)
}

func (f *failing) List(ctx context.Context, prefix string, fn func(storage.ObjectInfo) error) error {
	if f.fail(retry.OpList) {
		n := int64(0)
		err := f.Store.List(ctx, prefix, func(oi storage.ObjectInfo) error {
			if n == f.partial {
				return f.err
			}
			n++
			return fn(oi)
		})
		if err == nil {
			err = f.err
		}
		return err
	}
	return f.Store.List(ctx, prefix, fn)
}

const content = "0123456789abcdef"

var (
	slowDown = &storage.StatusError{StatusCode: 503, Code: "SlowDown"}
	reset    = &os.SyscallError{Syscall: "read", Err: syscall.ECONNRESET}
)

// seekWriter is an io.WriteSeeker over a fixed buffer.
type seekWriter struct{ *io.OffsetWriter }

// onlyWriter hides every method but Write.
type onlyWriter struct{ io.Writer }

// onlyReader hides every method but Read.
type onlyReader struct{ io.Reader }

func TestRetriesOnlyWhatCanBeRepeated(t *testing.T) {
	file := make([]byte, len(content))
	for _, c := range []struct {
		name        string
		op          string
		err         error
		fails       int
		partial     int64
		body        func() io.Reader
		w           func() io.Writer
		wantRetries int64
		wantErr     error // nil: success
	}{
		{name: "put seekable body, 503 twice", op: retry.OpPut, err: slowDown, fails: 2, partial: 5, wantRetries: 2},
		{name: "put, 503 four times: 3 retries", op: retry.OpPut, err: slowDown, fails: 4, wantRetries: 3, wantErr: slowDown},
		{name: "put, 404 not retried", op: retry.OpPut, err: &storage.StatusError{StatusCode: 404, Err: storage.ErrNotFound}, fails: 1, wantErr: storage.ErrNotFound},
		{name: "put, denied not retried", op: retry.OpPut, err: storage.ErrAccessDenied, fails: 1, wantErr: storage.ErrAccessDenied},
		{name: "put body not seekable: not retried", op: retry.OpPut, err: slowDown, fails: 1, partial: 5,
			body: func() io.Reader { return onlyReader{strings.NewReader(content)} }, wantErr: slowDown},
		{name: "upload part seekable body, reset", op: retry.OpUploadPart, err: reset, fails: 1, partial: 7, wantRetries: 1},
		{name: "get into a seekable writer after 5 bytes", op: retry.OpGet, err: reset, fails: 2, partial: 5,
			w: func() io.Writer { return seekWriter{io.NewOffsetWriter(&fileAt{file}, 0)} }, wantRetries: 2},
		{name: "get into io.Discard after 5 bytes", op: retry.OpGet, err: reset, fails: 1, partial: 5,
			w: func() io.Writer { return io.Discard }, wantRetries: 1},
		{name: "get, nothing written yet", op: retry.OpGet, err: reset, fails: 1,
			w: func() io.Writer { return onlyWriter{&bytes.Buffer{}} }, wantRetries: 1},
		{name: "get, 5 bytes written, not seekable: not retried", op: retry.OpGet, err: reset, fails: 1, partial: 5,
			w: func() io.Writer { return onlyWriter{&bytes.Buffer{}} }, wantErr: reset},
		{name: "get canceled not retried", op: retry.OpGet, err: context.Canceled, fails: 1, wantErr: context.Canceled},
		{name: "stat timeout", op: retry.OpStat, err: context.DeadlineExceeded, fails: 1, wantRetries: 1},
		{name: "delete 500", op: retry.OpDelete, err: &storage.StatusError{StatusCode: 500}, fails: 3, wantRetries: 3},
		{name: "list failing before fn", op: retry.OpList, err: slowDown, fails: 1, wantRetries: 1},
		{name: "list failing after fn saw one: not retried", op: retry.OpList, err: slowDown, fails: 1, partial: 1, wantErr: slowDown},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			f := &failing{Store: mem.New(), op: c.op, err: c.err, partial: c.partial}
			var retried []retry.Retry
			var succeeded []string
			st := retry.New(f, retry.Policy{
				Backoff:   func(int) time.Duration { return time.Millisecond },
				OnRetry:   func(r retry.Retry) { retried = append(retried, r) },
				OnSuccess: func(op, key string, _ time.Duration) { succeeded = append(succeeded, op+" "+key) },
			})
			if _, err := st.Put(ctx, "k", strings.NewReader(content), int64(len(content)), storage.PutOptions{}); err != nil && c.op != retry.OpPut {
				t.Fatal(err)
			}
			f.fails, f.calls, succeeded = c.fails, 0, nil
			err := run(ctx, st, c.op, c.body, c.w)
			if c.wantErr == nil && err != nil || c.wantErr != nil && !errors.Is(err, c.wantErr) {
				t.Fatalf("error %v, want %v", err, c.wantErr)
			}
			if got := st.(interface{ Retries() int64 }).Retries(); got != c.wantRetries || int64(len(retried)) != got {
				t.Fatalf("%d retries (%d reported), want %d", got, len(retried), c.wantRetries)
			}
			if f.calls != int(c.wantRetries)+1 {
				t.Errorf("%d calls of %s, want %d", f.calls, c.op, c.wantRetries+1)
			}
			for i, r := range retried {
				if r.Op != c.op || r.Attempt != i+1 || !errors.Is(r.Err, c.err) {
					t.Errorf("retry %d reported as %+v", i, r)
				}
			}
			if c.wantErr != nil {
				return
			}
			want := c.op + " k"
			if c.op == retry.OpList {
				want = c.op + " " // the prefix listed
			}
			if n := count(succeeded, want); n != 1 {
				t.Errorf("successes reported %q: the %s %d times, want once", succeeded, c.op, n)
			}
			if c.op == retry.OpPut || c.op == retry.OpUploadPart {
				checkObject(t, f.Store, "k", content)
			}
			if c.name == "get into a seekable writer after 5 bytes" && string(file) != content {
				t.Errorf("file holds %q after the retried get, want %q", file, content)
			}
		})
	}
}

// run performs op once on st (an upload part through a whole multipart
// upload of key k).
func run(ctx context.Context, st storage.Store, op string, body func() io.Reader, w func() io.Writer) error {
	var r io.Reader = strings.NewReader(content)
	if body != nil {
		r = body()
	}
	var dst io.Writer = &bytes.Buffer{}
	if w != nil {
		dst = w()
	}
	switch op {
	case retry.OpPut:
		_, err := st.Put(ctx, "k", r, int64(len(content)), storage.PutOptions{})
		return err
	case retry.OpGet:
		n, err := st.Get(ctx, "k", storage.GetOptions{}, dst)
		if err == nil && n != int64(len(content)) {
			return errors.New("short get")
		}
		return err
	case retry.OpStat:
		_, err := st.Stat(ctx, "k")
		return err
	case retry.OpDelete:
		return st.Delete(ctx, "k")
	case retry.OpList:
		seen := 0
		err := st.List(ctx, "", func(storage.ObjectInfo) error { seen++; return nil })
		if err == nil && seen != 1 {
			return errors.New("list saw the object more than once")
		}
		return err
	case retry.OpUploadPart:
		mp := st.(storage.Multiparter)
		id, err := mp.CreateMultipart(ctx, "k")
		if err != nil {
			return err
		}
		p, err := mp.UploadPart(ctx, "k", id, 1, r, int64(len(content)), storage.PutOptions{})
		if err != nil {
			return err
		}
		_, err = mp.CompleteMultipart(ctx, "k", id, []storage.Part{p})
		return err
	}
	panic("unknown op " + op)
}

func checkObject(t *testing.T, st storage.Store, key, want string) {
	t.Helper()
	var buf bytes.Buffer
	if _, err := st.Get(context.Background(), key, storage.GetOptions{}, &buf); err != nil || buf.String() != want {
		t.Errorf("%s holds %q (%v), want %q", key, buf.String(), err, want)
	}
}

func count(xs []string, x string) int {
	n := 0
	for _, s := range xs {
		if s == x {
			n++
		}
	}
	return n
}

// fileAt is an io.WriterAt over a byte slice.
type fileAt struct{ b []byte }

func (f *fileAt) WriteAt(p []byte, off int64) (int, error) { return copy(f.b[off:], p), nil }

// A canceled context ends the wait before a retry at once, with the error
// of the failed attempt.
func TestCancelEndsTheWait(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	f := &failing{Store: mem.New(), op: retry.OpStat, err: slowDown, fails: 1}
	st := retry.New(f, retry.Policy{
		Backoff: func(int) time.Duration { return time.Hour },
		OnRetry: func(retry.Retry) { cancel() },
	})
	done := make(chan error, 1)
	go func() { _, err := st.Stat(ctx, "k"); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, slowDown) {
			t.Fatalf("error %v, want the 503", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Stat still waiting 10 s after its context was canceled")
	}
}

func TestRetriesPolicy(t *testing.T) {
	for _, c := range []struct {
		retries, fails int
		wantCalls      int
	}{{0, 5, 1 + retry.DefaultRetries}, {-1, 5, 1}, {1, 5, 2}, {5, 2, 3}} {
		f := &failing{Store: mem.New(), op: retry.OpDelete, err: slowDown, fails: c.fails}
		st := retry.New(f, retry.Policy{Retries: c.retries, Backoff: func(int) time.Duration { return 0 }})
		_ = st.Delete(t.Context(), "k")
		if f.calls != c.wantCalls {
			t.Errorf("Retries %d, %d failures: %d calls, want %d", c.retries, c.fails, f.calls, c.wantCalls)
		}
	}
}

// Multipart uploads are offered exactly when the wrapped store has them.
func TestMultiparterOnlyWhenWrappedHasIt(t *testing.T) {
	if _, ok := retry.New(mem.New(), retry.Policy{}).(storage.Multiparter); !ok {
		t.Error("wrapped memory store lost its multipart uploads")
	}
	plain := struct{ storage.Store }{mem.New()}
	if _, ok := retry.New(plain, retry.Policy{}).(storage.Multiparter); ok {
		t.Error("wrapper offers multipart uploads its store does not have")
	}
}

// Each wait lies in the upper half of 100 ms doubling, capped at 2 s.
func TestBackoffBounds(t *testing.T) {
	for n, upper := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond,
		4: 800 * time.Millisecond, 5: 1600 * time.Millisecond, 6: 2 * time.Second, 60: 2 * time.Second} {
		seen := map[time.Duration]bool{}
		for range 200 {
			d := retry.Backoff(n)
			if d < upper/2 || d > upper {
				t.Fatalf("Backoff(%d) = %v, want within [%v, %v]", n, d, upper/2, upper)
			}
			seen[d] = true
		}
		if len(seen) < 100 {
			t.Errorf("Backoff(%d): %d distinct waits in 200, want jitter", n, len(seen))
		}
	}
}

// Around's policy, for the requests around a measurement: a store busy
// for a moment is tried again, up to the tries given; what will not
// change (access denied) is not.
func TestDoAround(t *testing.T) {
	busy := &storage.StatusError{StatusCode: 503, Code: "SlowDown"}
	notImpl := &storage.StatusError{StatusCode: 501, Code: "NotImplemented"}
	for _, c := range []struct {
		name      string
		fails     []error // what each call returns, then nil
		tries     int
		wantCalls int
		wantErr   error
	}{
		{"succeeds at once", nil, 4, 1, nil},
		{"busy twice, then done", []error{busy, busy}, 4, 3, nil},
		{"busy throughout", []error{busy, busy, busy, busy, busy}, 3, 3, busy},
		{"one try", []error{busy}, 1, 1, busy},
		{"denied is final", []error{storage.ErrAccessDenied, busy}, 4, 1, storage.ErrAccessDenied},
		{"not implemented is final", []error{notImpl, busy}, 4, 1, notImpl},
	} {
		calls := 0
		p := retry.Around(c.tries)
		p.Backoff = func(int) time.Duration { return time.Millisecond }
		err := retry.Do(context.Background(), p, func() error {
			calls++
			if calls <= len(c.fails) {
				return c.fails[calls-1]
			}
			return nil
		})
		if calls != c.wantCalls || err != c.wantErr {
			t.Errorf("%s: %d calls, err %v; want %d, %v", c.name, calls, err, c.wantCalls, c.wantErr)
		}
	}
}
