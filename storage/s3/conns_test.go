package s3_test

import (
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/s3server"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// connWatch counts a test server's connections: open now, most at once,
// and opened in all.
type connWatch struct {
	mu                 sync.Mutex
	open, most, opened int
	inFlight, mostReq  int
	closeAsked         int
	changed            chan struct{}
}

func newConnWatch() *connWatch { return &connWatch{changed: make(chan struct{})} }

func (w *connWatch) state(_ net.Conn, st http.ConnState) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch st {
	case http.StateNew:
		w.open++
		w.opened++
		w.most = max(w.most, w.open)
	case http.StateClosed, http.StateHijacked:
		w.open--
	}
}

// enter notes a request in flight and returns its leave.
func (w *connWatch) enter(r *http.Request) func() {
	w.mu.Lock()
	w.inFlight++
	w.mostReq = max(w.mostReq, w.inFlight)
	if r.Close {
		w.closeAsked++
	}
	close(w.changed)
	w.changed = make(chan struct{})
	w.mu.Unlock()
	return func() {
		w.mu.Lock()
		w.inFlight--
		w.mu.Unlock()
	}
}

// waitInFlight waits until n requests are in the handler at once.
func (w *connWatch) waitInFlight(t *testing.T, n int) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		w.mu.Lock()
		now, ch := w.inFlight, w.changed
		w.mu.Unlock()
		if now >= n {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("%d requests in flight, waited for %d", now, n)
		}
	}
}

// With MaxConnsPerHost 2, eight concurrent GETs share two connections:
// the server never sees more, and those that found both busy report the
// wait in ConnWait. The server holds the first two until both are in and
// (with the direct client, whose queue the test sees) the other six wait.
func TestMaxConnsPerHost(t *testing.T) {
	for _, client := range clients {
		t.Run(client, func(t *testing.T) {
			w := newConnWatch()
			gate := make(chan struct{})
			srv := watchedServer(t, w, func(rw http.ResponseWriter, _ *http.Request) {
				<-gate
				_, _ = io.WriteString(rw, "0123456789")
			})
			s := newStore(t, srv, func(c *s3.Config) { c.HTTPClient, c.MaxConnsPerHost = client, 2 })
			var g errgroup.Group
			waits := make([]time.Duration, 8)
			issued := make(chan struct{}, len(waits))
			for i := range waits {
				g.Go(func() error {
					var tr storage.Trace
					issued <- struct{}{}
					_, err := s.Get(context.Background(), "k", storage.GetOptions{Trace: &tr}, io.Discard)
					waits[i] = tr.Phases.ConnWait
					return err
				})
			}
			for range waits {
				<-issued
			}
			w.waitInFlight(t, 2)
			// The direct client's queue can be seen: the gate opens when the
			// six are in it, so all six find both connections busy. The
			// net/http client's cannot: a GET issued but not yet queued when
			// a connection comes back takes it without waiting.
			want := 1
			if s3.Waiters(s) >= 0 {
				want = 6
				for deadline := time.Now().Add(10 * time.Second); s3.Waiters(s) < 6; runtime.Gosched() {
					if time.Now().After(deadline) {
						t.Fatalf("%d of the other 6 GETs wait for a connection after 10 s", s3.Waiters(s))
					}
				}
			}
			close(gate)
			if err := g.Wait(); err != nil {
				t.Fatal(err)
			}
			if most, mostReq, _, _ := w.seen(); most > 2 || mostReq > 2 {
				t.Errorf("the server saw %d connections and %d requests at once, want at most 2", most, mostReq)
			}
			if got := s.Connections(); got.Opened > 2 || got.Requests != 8 || got.Reused < 6 {
				t.Errorf("Connections() = %+v, want at most 2 opened, 8 requests, 6 reused", got)
			}
			waited := 0
			for _, d := range waits {
				if d > 0 {
					waited++
				}
			}
			if waited < want {
				t.Errorf("%d of 8 GETs report a ConnWait (%v), want at least %d", waited, waits, want)
			}
		})
	}
}

// With NoKeepAlive every request asks to close its connection and goes on
// a new one; the server closing them as asked is not counted as its doing.
func TestNoKeepAlive(t *testing.T) {
	for _, client := range clients {
		t.Run(client, func(t *testing.T) {
			w := newConnWatch()
			srv := watchedServer(t, w, func(rw http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(rw, "x") })
			s := newStore(t, srv, func(c *s3.Config) { c.HTTPClient, c.NoKeepAlive = client, true })
			var tr storage.Trace
			for i := range 5 {
				if _, err := s.Get(context.Background(), "k", storage.GetOptions{Trace: &tr}, io.Discard); err != nil {
					t.Fatal(err)
				}
				if !tr.Phases.NewConn || tr.Phases.Connect <= 0 {
					t.Errorf("GET %d: %+v, want a new connection", i, tr.Phases)
				}
			}
			want := storage.ConnStats{Requests: 5, Opened: 5}
			if got := s.Connections(); got != want {
				t.Errorf("Connections() = %+v, want %+v", got, want)
			}
			if _, _, opened, closeAsked := w.seen(); opened != 5 || closeAsked != 5 {
				t.Errorf("the server saw %d connections, %d requests asking to close; want 5, 5", opened, closeAsked)
			}
		})
	}
}

// watchedServer serves h on loopback with w watching connections and
// requests.
func watchedServer(t *testing.T, w *connWatch, h http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		defer w.enter(r)()
		h(rw, r)
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.Config.ConnState = w.state
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL
}

// seen is the watch's counts: most connections and requests at once,
// connections opened, requests that asked to close.
func (w *connWatch) seen() (most, mostReq, opened, closeAsked int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.most, w.mostReq, w.opened, w.closeAsked
}

// The same options against MinIO and the embedded server: a connection
// per request without keep-alive, two at most under the cap.
func TestConnOptionsAgainstServers(t *testing.T) {
	m := testenv.StartMinIO(t)
	emb, err := s3server.Start(context.Background(), s3server.Config{Buckets: []string{"conns"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = emb.Close(context.Background()) })
	targets := []s3.Config{
		{Endpoint: m.Endpoint, Bucket: "conns", AccessKey: m.AccessKey, SecretKey: m.SecretKey},
		{Endpoint: emb.Endpoint(), Bucket: "conns", AccessKey: emb.AccessKey(), SecretKey: emb.SecretKey()},
	}
	for i, base := range targets {
		for _, client := range clients {
			t.Run([]string{"minio", "embedded"}[i]+"/"+client, func(t *testing.T) {
				c := base
				c.HTTPClient, c.NoKeepAlive = client, true
				s := connect(t, c)
				if err := s.CreateBucket(context.Background()); err != nil {
					t.Fatal(err)
				}
				mustPut(t, s, "k", payload(1000))
				for range 4 {
					if _, err := s.Get(context.Background(), "k", storage.GetOptions{}, io.Discard); err != nil {
						t.Fatal(err)
					}
				}
				if got := s.Connections(); got.Opened != got.Requests || got.Reused != 0 || got.ServerClosed != 0 {
					t.Errorf("without keep-alive: %+v, want a connection per request", got)
				}
				c.NoKeepAlive, c.MaxConnsPerHost = false, 2
				s = connect(t, c)
				var g errgroup.Group
				for range 8 {
					g.Go(func() error {
						for range 5 {
							if _, err := s.Get(context.Background(), "k", storage.GetOptions{}, io.Discard); err != nil {
								return err
							}
						}
						return nil
					})
				}
				if err := g.Wait(); err != nil {
					t.Fatal(err)
				}
				if got := s.Connections(); got.Opened > 2 || got.Requests != 40 {
					t.Errorf("with at most 2 connections: %+v", got)
				}
			})
		}
	}
}
