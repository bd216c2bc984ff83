package faultserver

import (
	"fmt"
	"time"
)

// Config says which faults to inject. The zero value is a well-behaved
// in-memory server with bucket "objbench".
type Config struct {
	// Seed fixes every random decision; 0 is a seed like any other.
	Seed uint64
	// Bucket is created at start ("" means "objbench").
	Bucket string
	// Delay holds every request before it is served.
	Delay Delay
	// Stall holds every request that arrives inside a stall window until
	// the window ends.
	Stall Stall
	// SlowDown is the fraction of requests answered 503 SlowDown (after
	// their body was read, as S3 does).
	SlowDown float64
	// Reset, Truncate and Corrupt are fractions of successful GET
	// responses whose connection is reset mid-body, whose body ends early
	// (the connection closed before Content-Length bytes), or which carry
	// one flipped byte. They are drawn as one choice: at most one per GET.
	Reset, Truncate, Corrupt float64
	// SlowBody sends GET bodies at this many bytes per second (0: at full
	// speed).
	SlowBody int64
	// MaxEvents bounds the event log (default 1<<20; below 0: keep no
	// log, as a long-running server does); requests beyond it are still
	// counted in Counts.
	MaxEvents int
	// Listen is the address to serve on (default 127.0.0.1:0, a free port).
	Listen string
	// AccessKey and SecretKey, when set, are the keys requests must be
	// signed with (not with Null); empty, any request is accepted, and
	// only on loopback.
	AccessKey, SecretKey string
	// IgnoreListPrefix answers every ListObjectsV2 with the whole bucket,
	// as some gateways and buggy stores do: a client that deletes what it
	// lists must not take the listing's word for what is under a prefix.
	IgnoreListPrefix bool
	// ListLies are lies told in listings (keys that climb out of the
	// prefix, a listing that never ends) and a normalising proxy's
	// rewriting of paths.
	ListLies ListLies
	// Lacks makes it a store without some S3 features (refused or ignored).
	Lacks Lacks
	// Null serves no real store: PUT bodies are read and dropped, GET
	// answers the object's size in zeros. No faults but Delay.Base: it
	// measures the client's ceiling (with a delay, many clients in flight).
	Null bool
}

// Delay is a service-time distribution: Base plus a uniform draw in
// [0, Jitter), or, with probability Fraction of a Tail, that tail's At
// instead (the first tail drawn wins).
type Delay struct {
	Base   time.Duration
	Jitter time.Duration
	Tail   []Tail
}

// Tail is a share of requests delayed by At instead of Base+jitter.
type Tail struct {
	Fraction float64
	At       time.Duration
}

// Stall windows are [Offset + k*Every, Offset + k*Every + For) after the
// server started, for k = 0, 1, ... Method, when set, limits the stall to
// requests of that method (GET: a prepare stage's PUTs go through).
type Stall struct {
	Every, For, Offset time.Duration
	Method             string
}

func (c Config) validate() error {
	for _, f := range []float64{c.SlowDown, c.Reset, c.Truncate, c.Corrupt} {
		if f < 0 || f > 1 {
			return fmt.Errorf("faultserver: fraction %v outside [0,1]", f)
		}
	}
	if c.Reset+c.Truncate+c.Corrupt > 1 {
		return fmt.Errorf("faultserver: reset+truncate+corrupt = %v > 1", c.Reset+c.Truncate+c.Corrupt)
	}
	var tail float64
	for _, t := range c.Delay.Tail {
		tail += t.Fraction
	}
	if tail > 1 || c.Delay.Base < 0 || c.Delay.Jitter < 0 {
		return fmt.Errorf("faultserver: bad delay %+v", c.Delay)
	}
	if c.Stall.For > 0 && (c.Stall.Every <= c.Stall.For || c.Stall.Offset < 0) {
		return fmt.Errorf("faultserver: a stall of %v needs a period longer than it (got %v)", c.Stall.For, c.Stall.Every)
	}
	if c.SlowBody < 0 {
		return fmt.Errorf("faultserver: negative SlowBody")
	}
	return c.Lacks.validate()
}

// stallEnd is when the stall window holding elapsed ends; 0 if none does.
func (s Stall) stallEnd(elapsed time.Duration) time.Duration {
	if s.For <= 0 || elapsed < s.Offset {
		return 0
	}
	k := (elapsed - s.Offset) / s.Every
	start := s.Offset + k*s.Every
	if elapsed < start+s.For {
		return start + s.For
	}
	return 0
}
