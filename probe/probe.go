package probe

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// Status is a finding's verdict.
type Status string

const (
	// Yes: the store does what S3 specifies.
	Yes Status = "yes"
	// No: the store refused, or ignored what it was asked.
	No Status = "no"
	// Differs: it works, differently from S3 (a quirk a benchmark must know).
	Differs Status = "differs"
	// Info: a measurement, not a feature (clock skew, throttling seen).
	Info Status = "info"
	// NotChecked: the probe could not ask here (the detail says why).
	NotChecked Status = "not checked"
)

// Finding is what the probe learned of one feature.
type Finding struct {
	// Feature is a stable name ("checksum.crc32c.trailer").
	Feature string `json:"feature"`
	Status  Status `json:"status"`
	// Detail says what the store answered, in words.
	Detail string `json:"detail,omitempty"`
}

// Report is everything one probe learned.
type Report struct {
	Endpoint string `json:"endpoint"`
	Bucket   string `json:"bucket"`
	// BucketCreated: the probe created the bucket, and removed it at the end.
	BucketCreated bool `json:"bucket_created"`
	// Server is the store's Server header, as it names itself.
	Server   string    `json:"server,omitempty"`
	Started  time.Time `json:"started"`
	Seconds  float64   `json:"seconds"`
	Requests uint64    `json:"requests"`
	Findings []Finding `json:"findings"`
	// Left are the keys the probe wrote and could not remove ("" if the
	// bucket itself could not be removed, named in CleanupError).
	Left         []string `json:"left,omitempty"`
	CleanupError string   `json:"cleanup_error,omitempty"`
}

// Find returns the finding for feature, if the probe made one.
func (r *Report) Find(feature string) (Finding, bool) {
	for _, f := range r.Findings {
		if f.Feature == feature {
			return f, true
		}
	}
	return Finding{}, false
}

// Groups are the groups of features, in the order probed.
func Groups() []string {
	var g []string
	for _, c := range checks() {
		g = append(g, c.group)
	}
	return g
}

// Known reports whether name is a feature or a group the probe knows.
func Known(name string) bool {
	for _, c := range checks() {
		if c.group == name || slices.Contains(c.names, name) {
			return true
		}
	}
	return false
}

// Options tune a probe. The zero value probes an existing bucket.
type Options struct {
	// CreateBucket: the bucket does not exist yet; the probe creates it,
	// may change its settings (versioning) and removes it at the end.
	CreateBucket bool
	// Only limits the probe to these features (names or their groups,
	// "checksum" for every checksum check); empty probes everything.
	Only []string
	// Timeout bounds each check (default 20 s).
	Timeout time.Duration
}

// Run probes the store c names. Its error is a failure to probe at all
// (no answer, no access, a bucket it cannot create); what the store
// lacks is in the report. A cleanup that left something is in the
// report's Left and CleanupError, and is also an error.
func Run(ctx context.Context, c s3.Config, o Options) (*Report, error) {
	if o.Timeout <= 0 {
		o.Timeout = 20 * time.Second
	}
	st, err := s3.New(ctx, c)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	p := &prober{cfg: c, st: st, opts: o, prefix: "objbench-probe-" + randHex(6) + "/", written: map[string]bool{}}
	p.rep = &Report{Endpoint: c.Endpoint, Bucket: c.Bucket, Started: time.Now().UTC()}
	if o.CreateBucket {
		if err := st.CreateBucket(ctx); err != nil {
			return nil, fmt.Errorf("create bucket %s: %w", c.Bucket, err)
		}
		p.rep.BucketCreated = true
	} else if ok, err := st.BucketExists(ctx); err != nil {
		return nil, fmt.Errorf("bucket %s: %w", c.Bucket, err)
	} else if !ok {
		return nil, fmt.Errorf("bucket %s does not exist at %s", c.Bucket, c.Endpoint)
	}
	for _, ch := range checks() {
		if !p.wanted(ch.group, ch.names) {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, o.Timeout)
		p.run(cctx, ch)
		cancel()
		if len(o.Only) > 0 && !slices.Contains(o.Only, ch.group) {
			// A feature asked for alone: its group ran, only it is reported.
			p.rep.Findings = slices.DeleteFunc(p.rep.Findings, func(f Finding) bool {
				return slices.Contains(ch.names, f.Feature) && !slices.Contains(o.Only, f.Feature)
			})
		}
		if ctx.Err() != nil {
			break
		}
	}
	cerr := p.cleanup(context.WithoutCancel(ctx))
	_, p.rep.Requests = st.ConnStats()
	p.rep.Seconds = time.Since(p.rep.Started).Seconds()
	if cerr != nil {
		p.rep.CleanupError = cerr.Error()
		return p.rep, fmt.Errorf("probe cleanup: %w", cerr)
	}
	return p.rep, ctx.Err()
}

// check is one question to the store: it adds findings for the names it
// owns (all of a group share the group's name before the first dot).
type check struct {
	group string
	names []string
	fn    func(ctx context.Context, p *prober)
}

// prober is one probe's state: the store, the keys it wrote, findings.
type prober struct {
	cfg    s3.Config
	st     *s3.Store
	opts   Options
	prefix string
	rep    *Report

	mu        sync.Mutex
	written   map[string]bool     // every key the probe wrote (or may have)
	uploads   map[string][]string // multipart uploads not yet completed or aborted, by key
	versioned bool                // versioning was enabled on the probe's own bucket
	slowDowns int                 // 503 answers seen
}

func (p *prober) wanted(group string, names []string) bool {
	if len(p.opts.Only) == 0 {
		return true
	}
	for _, w := range p.opts.Only {
		if w == group {
			return true
		}
		for _, n := range names {
			if w == n {
				return true
			}
		}
	}
	return false
}

// run runs one check; a check that ends without a finding for a name it
// owns (a failure to ask) gets one saying so.
func (p *prober) run(ctx context.Context, ch check) {
	before := len(p.rep.Findings)
	ch.fn(ctx, p)
	for _, n := range ch.names {
		found := false
		for _, f := range p.rep.Findings[before:] {
			found = found || f.Feature == n
		}
		if !found {
			p.add(n, NotChecked, "the check did not finish (timeout or an earlier failure)")
		}
	}
}

func (p *prober) add(feature string, s Status, format string, a ...any) {
	p.rep.Findings = append(p.rep.Findings, Finding{Feature: feature, Status: s, Detail: fmt.Sprintf(format, a...)})
}

// key is a key under the probe's prefix, recorded as written before
// anything is sent (a write that fails may still have landed).
func (p *prober) key(name string) string {
	k := p.prefix + name
	p.mu.Lock()
	p.written[k] = true
	p.mu.Unlock()
	return k
}

// seen notes a 503 (throttling) in err.
func (p *prober) seen(err error) error {
	var se *storage.StatusError
	if errors.As(err, &se) && se.StatusCode == 503 {
		p.mu.Lock()
		p.slowDowns++
		p.mu.Unlock()
	}
	return err
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
