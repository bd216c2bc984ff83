package faultserver

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"golang.org/x/sync/errgroup"

	"github.com/objbench/objbench/s3server"
)

// Fault is what was done to one request besides its delay.
type Fault uint8

// The faults, one at most per request.
const (
	None Fault = iota
	SlowDown
	Reset
	Truncate
	Corrupt
	numFaults
)

var faultNames = [numFaults]string{"none", "slowdown", "reset", "truncate", "corrupt"}

func (f Fault) String() string {
	if f < numFaults {
		return faultNames[f]
	}
	return fmt.Sprintf("fault(%d)", f)
}

// Event is what the server did with one request. Times are the server's
// clock, which a client in the same process shares.
type Event struct {
	Method string
	Start  time.Time // the handler got the request
	End    time.Time // the handler returned
	Delay  time.Duration
	Stall  time.Duration // held for a stall window (planned), beside Delay
	Fault  Fault
	Status int
	// Bytes is the body received (PUT) or sent whole (GET) by a
	// successful, unfaulted request.
	Bytes int64
}

// Held is the time the server held the request on purpose.
func (e Event) Held() time.Duration { return e.Delay + e.Stall }

// Server is a running fault-injecting S3 server.
type Server struct {
	cfg     Config
	origin  time.Time
	srv     *http.Server
	null    *nullServer // serves instead of srv with Config.Null
	serving errgroup.Group
	url     string

	mu     sync.Mutex
	rng    *rand.Rand
	events []Event
	counts [numFaults]int64
	total  int64
	logged chan struct{} // closed (and replaced) whenever a request is logged

	revoked atomic.Bool // Revoke: every request is refused
}

// Start serves cfg (on a free port of 127.0.0.1 unless cfg.Listen says
// otherwise) until Close. Stall windows count from the return of Start.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if cfg.AccessKey == "" && cfg.Listen != "" && !s3server.Loopback(cfg.Listen) {
		return nil, fmt.Errorf("faultserver: listening on %s without keys would let anyone in: give AccessKey and SecretKey", cfg.Listen)
	}
	cfg.Bucket = cmp.Or(cfg.Bucket, "objbench")
	switch {
	case cfg.MaxEvents == 0:
		cfg.MaxEvents = 1 << 20
	case cfg.MaxEvents < 0:
		cfg.MaxEvents = 0
	}
	s := &Server{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, 0x5eed)), logged: make(chan struct{})}
	if cfg.Null {
		return s.startNull(ctx)
	}
	sc := s3server.Config{Buckets: []string{cfg.Bucket}, AccessKey: cfg.AccessKey, SecretKey: cfg.SecretKey,
		NoAuth: cfg.AccessKey == "" && cfg.SecretKey == ""}
	// After the signature is checked: the client signed what it asked for.
	sc.Rewrite = func(r *http.Request) {
		if cfg.IgnoreListPrefix {
			dropListPrefix(r)
		}
		if cfg.ListLies.NormalizePaths {
			normalizePath(r)
		}
		if cfg.ListLies.Endless {
			restartEndless(r)
		}
		cfg.Lacks.ignore(r)
	}
	h, err := s3server.NewHandler(ctx, sc)
	if err != nil {
		return nil, err
	}
	if cfg.ListLies.any() {
		h = &listLiar{next: h, lies: cfg.ListLies}
	}
	if len(cfg.Lacks.Refuse) > 0 {
		h = &refuser{next: h, refused: cfg.Lacks.Refuse}
	}
	next := &middleware{s: s, next: h}
	ln, err := new(net.ListenConfig).Listen(ctx, "tcp", cmp.Or(cfg.Listen, "127.0.0.1:0"))
	if err != nil {
		return nil, fmt.Errorf("faultserver: %w", err)
	}
	s.url = "http://" + ln.Addr().String()
	s.srv = &http.Server{Handler: next, ReadHeaderTimeout: time.Minute}
	s.origin = time.Now()
	s.serving.Go(func() error {
		if err := s.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("faultserver: %w", err)
		}
		return nil
	})
	return s, nil
}

// startNull serves the null target (nullServer).
func (s *Server) startNull(ctx context.Context) (*Server, error) {
	ln, err := new(net.ListenConfig).Listen(ctx, "tcp", cmp.Or(s.cfg.Listen, "127.0.0.1:0"))
	if err != nil {
		return nil, fmt.Errorf("faultserver: %w", err)
	}
	s.url = "http://" + ln.Addr().String()
	s.null = newNullServer(ln, s.cfg.Delay.Base)
	s.origin = time.Now()
	s.serving.Go(s.null.serve)
	return s, nil
}

// Revoke refuses every request from now on with 403 InvalidAccessKeyId,
// as S3 does when the keys a client signs with are deleted mid-run.
func (s *Server) Revoke() { s.revoked.Store(true) }

// Endpoint is the server's URL.
func (s *Server) Endpoint() string { return s.url }

// Bucket is the bucket created at start.
func (s *Server) Bucket() string { return s.cfg.Bucket }

// Origin is the instant stall windows count from.
func (s *Server) Origin() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.origin
}

// SetOrigin makes stall windows count from t (e.g. the start of the
// measured step, so its stalls fall where a test expects them).
func (s *Server) SetOrigin(t time.Time) {
	s.mu.Lock()
	s.origin = t
	s.mu.Unlock()
}

// Config is the configuration the server runs with.
func (s *Server) Config() Config { return s.cfg }

// Events returns a copy of the event log (at most MaxEvents, in order of
// completion).
func (s *Server) Events() []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Event(nil), s.events...)
}

// Counts returns how many requests got each fault (None included), and
// the total, also beyond MaxEvents.
func (s *Server) Counts() (map[Fault]int64, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := map[Fault]int64{}
	for f, n := range s.counts {
		if n > 0 {
			m[Fault(f)] = n
		}
	}
	return m, s.total
}

// ResetLog forgets the events and counts so far (between phases of a test).
func (s *Server) ResetLog() {
	s.mu.Lock()
	s.events, s.counts, s.total = nil, [numFaults]int64{}, 0
	s.mu.Unlock()
}

// Close stops the server; requests still held are cut when ctx ends.
func (s *Server) Close(ctx context.Context) error {
	if s.null != nil {
		return errors.Join(s.null.close(ctx), s.serving.Wait())
	}
	var err error
	if serr := s.srv.Shutdown(ctx); serr != nil {
		err = errors.Join(serr, s.srv.Close())
	}
	return errors.Join(err, s.serving.Wait())
}

func (s *Server) record(e Event) {
	s.mu.Lock()
	s.counts[e.Fault]++
	s.total++
	if len(s.events) < s.cfg.MaxEvents {
		s.events = append(s.events, e)
	}
	close(s.logged)
	s.logged = make(chan struct{})
	s.mu.Unlock()
}

// awaitLogged waits until at least n requests have been logged since the
// last ResetLog, or limit passes. A request is logged when its handler
// returns, which can be just after the client has read its last byte.
func (s *Server) awaitLogged(ctx context.Context, n int64, limit time.Duration) {
	t := time.NewTimer(limit)
	defer t.Stop()
	for {
		s.mu.Lock()
		total, logged := s.total, s.logged
		s.mu.Unlock()
		if total >= n {
			return
		}
		select {
		case <-logged:
		case <-t.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// plan is the random part of one request's treatment.
type plan struct {
	origin time.Time
	delay  time.Duration
	fault  Fault
	at     float64 // where in the body a body fault strikes, as a fraction
}

func (s *Server) draw(method string) plan {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := plan{origin: s.origin}
	d := s.cfg.Delay
	p.delay = d.Base
	if d.Jitter > 0 {
		p.delay += time.Duration(s.rng.Int64N(int64(d.Jitter)))
	}
	u := s.rng.Float64()
	for _, t := range d.Tail {
		if u < t.Fraction {
			p.delay = t.At
			break
		}
		u -= t.Fraction
	}
	if s.rng.Float64() < s.cfg.SlowDown {
		p.fault = SlowDown
		return p
	}
	u = s.rng.Float64()
	p.at = s.rng.Float64()
	if method != http.MethodGet {
		return p
	}
	switch c := s.cfg; {
	case u < c.Reset:
		p.fault = Reset
	case u < c.Reset+c.Truncate:
		p.fault = Truncate
	case u < c.Reset+c.Truncate+c.Corrupt:
		p.fault = Corrupt
	}
	return p
}

// Served is the server's own time (handler entry to return) of each
// successful, unfaulted request of method, in microseconds, in metrics'
// histogram geometry (1 µs to 1 h, 3 digits): the truth a client's
// latency is compared with. It includes the delays as the server's timers
// realized them and the S3 processing.
func Served(events []Event, method string) *hdr.Histogram {
	h := hdr.New(1, int64(time.Hour/time.Microsecond), 3)
	for _, e := range events {
		if e.Method == method && e.Status/100 == 2 && e.Fault == None {
			_ = h.RecordValue(max(int64(e.End.Sub(e.Start)/time.Microsecond), 1))
		}
	}
	return h
}
