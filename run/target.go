package run

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/s3server"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/fs"
	"github.com/objbench/objbench/storage/retry"
	"github.com/objbench/objbench/storage/s3"
	"github.com/objbench/objbench/workload"
)

// TargetConfig says what to measure, in the aws CLI's terms. With no URL,
// endpoint or bucket, Open starts the embedded S3 server.
type TargetConfig struct {
	URL string // file:///DIR or s3://BUCKET
	// Endpoint and where it came from ("--endpoint-url X", "AWS_ENDPOINT_URL=X
	// (from the environment)"), for messages; empty: the profile's
	// endpoint_url, else AWS S3.
	Endpoint, EndpointFrom  string
	Bucket, Region, Profile string
	Addressing              string // path, virtual or auto ("": auto)
	Insecure                bool
	CABundle                string
	Timeout                 time.Duration // response headers, per request
	CreateBucket            bool
	Direct                  bool   // file targets: O_DIRECT
	HTTPClient              string // direct ("") or std
	// Credentials given by a workload file; empty: the SDK's chain.
	AccessKey, SecretKey string
	// FromFile: the endpoint came from a workload file, whose per-stream
	// storages (COSBench's per-work <storage>) are then honoured.
	FromFile bool
	// LazyBucket: the bucket may not exist yet (an init stage creates it).
	LazyBucket bool
	// MaxConns is the expected concurrency (the idle connection pool).
	MaxConns int
	// How connections are made: a new one per request, a cap on those
	// open to the host, full TLS handshakes every time.
	NoKeepAlive, NoTLSResumption bool
	MaxConnsPerHost              int
	// EmbeddedListen is where the embedded server listens when no target
	// is named (default 127.0.0.1:0: a free port on loopback).
	EmbeddedListen string
	// Versioned: the run works in versioned buckets. The embedded
	// server's bucket, which this run creates, then keeps versions.
	Versioned bool
}

// ConfigError is a bad target configuration: the caller's input, not the
// store, is at fault. Field is TargetConfig's field ("URL", "Bucket",
// "Profile", "Addressing", "HTTPClient", "Endpoint"), Value its value.
type ConfigError struct {
	Field, Value string
	Err          error
}

func (e *ConfigError) Error() string {
	if e.Value == "" {
		return e.Field + ": " + e.Err.Error()
	}
	return fmt.Sprintf("%s %q: %v", e.Field, e.Value, e.Err)
}
func (e *ConfigError) Unwrap() error { return e.Err }

func configErrorf(field, value, format string, a ...any) error {
	return &ConfigError{Field: field, Value: value, Err: fmt.Errorf(format, a...)}
}

// NoBucketError: an endpoint was given without a bucket.
type NoBucketError struct{ EndpointFrom string }

func (e *NoBucketError) Error() string { return e.EndpointFrom + " needs a bucket" }

// TargetError is a store that cannot be used as configured, found before
// any load: Problem says which way (the Problem* constants), Bucket and
// At where.
type TargetError struct {
	Problem    string
	Bucket, At string
	Err        error
}

// What a TargetError's Problem may be.
const (
	ProblemDenied      = "access denied"         // the credentials
	ProblemCertificate = "untrusted certificate" // the server's TLS certificate
	ProblemMalformed   = "malformed request"     // the bucket name or the addressing
	ProblemUnreachable = "unreachable"
	ProblemNoBucket    = "no such bucket"
	ProblemCreate      = "bucket not created"
)

func (e *TargetError) Error() string {
	switch e.Problem {
	case ProblemDenied:
		return fmt.Sprintf("access denied to bucket %s at %s: check the credentials", e.Bucket, e.At)
	case ProblemCertificate:
		return fmt.Sprintf("%s: the server's TLS certificate is not trusted (%s): give its CA bundle, or skip verification", e.At, certCause(e.Err))
	case ProblemMalformed:
		return fmt.Sprintf("%s refused the request on bucket %s as malformed (%v): the bucket name or the addressing is not what this store accepts", e.At, e.Bucket, RootCause(e.Err))
	case ProblemUnreachable:
		return fmt.Sprintf("cannot reach %s: %v", e.At, RootCause(e.Err))
	case ProblemNoBucket:
		return fmt.Sprintf("bucket %s does not exist at %s (create it, or let the run create it)", e.Bucket, e.At)
	}
	return fmt.Sprintf("create bucket %s at %s: %v", e.Bucket, e.At, e.Err)
}

func (e *TargetError) Unwrap() error { return e.Err }

// Target is an open store and what the result file says about it.
type Target struct {
	Store storage.Store
	Info  result.Target
	close func(context.Context) error
	// How to open the target's other buckets.
	cfg     TargetConfig
	s3base  *s3.Config
	fsOpts  fs.Options
	buckets map[string]storage.Store
}

// NewTarget wraps a store the caller opened (and closes).
func NewTarget(st storage.Store, info result.Target) *Target {
	return &Target{Store: st, Info: info, close: func(context.Context) error { return nil }}
}

// Close releases the target's stores and stops the embedded server.
func (t *Target) Close(ctx context.Context) error { return t.close(ctx) }

// Open resolves c to a store, checking the bucket (unless lazy) so that a
// run never starts only to fail every op. note hears what Open has to say
// (the embedded server's address); nil: silence.
func Open(ctx context.Context, c TargetConfig, note func(string, ...any)) (*Target, error) {
	if note == nil {
		note = func(string, ...any) {}
	}
	if c.URL != "" {
		u, err := url.Parse(c.URL)
		if err != nil || (u.Scheme != "file" && u.Scheme != "s3") {
			return nil, configErrorf("URL", c.URL, "want file:///DIR or s3://BUCKET")
		}
		if u.Scheme == "file" {
			return openFS(c, u)
		}
		if c.Bucket != "" && c.Bucket != u.Host {
			return nil, configErrorf("Bucket", c.Bucket, "disagrees with the URL %s", c.URL)
		}
		c.Bucket = u.Host
	}
	if c.Bucket != "" {
		if err := s3.CheckBucketName(c.Bucket); err != nil {
			return nil, configErrorf("Bucket", "", "%v", err)
		}
	}
	if c.Endpoint == "" && c.Profile != "" {
		ep, err := s3.ProfileEndpoint(ctx, c.Profile)
		if err != nil {
			return nil, configErrorf("Profile", "", "%v", err)
		}
		c.Endpoint, c.EndpointFrom = ep, "endpoint_url "+ep+" (of profile "+c.Profile+")"
	}
	if c.EndpointFrom == "" {
		c.EndpointFrom = "the endpoint " + c.Endpoint
	}
	switch c.Addressing {
	case "":
		c.Addressing = "auto"
	case "auto", "path", "virtual":
	default:
		return nil, configErrorf("Addressing", c.Addressing, "want path, virtual or auto")
	}
	switch c.HTTPClient {
	case "":
		c.HTTPClient = "direct"
	case "direct", "std":
	default:
		return nil, configErrorf("HTTPClient", c.HTTPClient, "want direct or std")
	}
	if c.Endpoint == "" && c.Bucket == "" {
		return openEmbedded(ctx, c, note)
	}
	if c.Bucket == "" {
		return nil, &ConfigError{Field: "Bucket", Err: &NoBucketError{EndpointFrom: c.EndpointFrom}}
	}
	return openS3(ctx, c, s3.Config{AccessKey: c.AccessKey, SecretKey: c.SecretKey})
}

func openFS(c TargetConfig, u *url.URL) (*Target, error) {
	if u.Host != "" && u.Host != "localhost" {
		return nil, configErrorf("URL", c.URL, "a file URL has three slashes, file:///DIR")
	}
	opts := fs.Options{Direct: c.Direct}
	st, err := fs.New(u.Path, opts)
	if err != nil {
		return nil, configErrorf("URL", c.URL, "%v", err)
	}
	return &Target{Store: st, Info: result.Target{Kind: "fs", Root: u.Path}, fsOpts: opts, cfg: c,
		close: func(context.Context) error { return nil }}, nil
}

func openEmbedded(ctx context.Context, c TargetConfig, note func(string, ...any)) (*Target, error) {
	listen := c.EmbeddedListen
	if listen == "" {
		listen = "127.0.0.1:0"
	}
	// The server takes the region the client signs for (--region).
	srv, err := s3server.Start(ctx, s3server.Config{Listen: listen, Buckets: []string{"objbench"}, Quiet: true, Region: c.Region})
	if err != nil {
		return nil, fmt.Errorf("start the embedded S3 server: %w", err)
	}
	note("no endpoint given: embedded S3 server (in memory) at %s, bucket objbench", srv.Endpoint())
	c.Endpoint, c.Bucket = srv.Endpoint(), "objbench"
	t, err := openS3(ctx, c, s3.Config{AccessKey: srv.AccessKey(), SecretKey: srv.SecretKey(), Region: "us-east-1"})
	if err != nil {
		_ = srv.Close(ctx)
		return nil, err
	}
	if c.Versioned {
		if v, ok := t.Store.(storage.Versioner); ok {
			err = v.SetVersioning(ctx, true)
		}
		if err != nil {
			_ = errors.Join(t.close(ctx), srv.Close(ctx))
			return nil, fmt.Errorf("enable versioning on the embedded server's bucket: %w", err)
		}
		note("the run is versioned: versioning enabled on the embedded server's bucket objbench")
	}
	t.Info.Embedded = true
	inner := t.close
	t.close = func(ctx context.Context) error { return errors.Join(inner(ctx), srv.Close(ctx)) }
	return t, nil
}

func openS3(ctx context.Context, c TargetConfig, sc s3.Config) (*Target, error) {
	if c.Endpoint != "" {
		if u, err := url.Parse(c.Endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, configErrorf("Endpoint", c.Endpoint, "want http://HOST[:PORT] or https://HOST[:PORT]")
		}
	}
	sc.Endpoint, sc.Bucket, sc.Profile, sc.Insecure, sc.CABundle = c.Endpoint, c.Bucket, c.Profile, c.Insecure, c.CABundle
	sc.MaxConns, sc.Timeout, sc.HTTPClient = c.MaxConns, c.Timeout, c.HTTPClient
	if c.Region != "" {
		sc.Region = c.Region
	}
	sc.PathStyle = c.Addressing == "path" || (c.Addressing == "auto" && c.Endpoint != "")
	sc.VirtualHost = c.Addressing == "virtual"
	sc.NoKeepAlive, sc.NoTLSResumption, sc.MaxConnsPerHost = c.NoKeepAlive, c.NoTLSResumption, c.MaxConnsPerHost
	st, err := s3.New(ctx, sc)
	if err != nil && sc.VirtualHost && strings.Contains(err.Error(), "virtual-host") {
		return nil, configErrorf("Addressing", "virtual", "%v (path or auto addressing reaches it)", strings.TrimPrefix(err.Error(), "s3: "))
	}
	if err != nil {
		return nil, err
	}
	if !c.LazyBucket {
		if err := checkBucket(ctx, c, st); err != nil {
			_ = st.Close()
			return nil, err
		}
	}
	return &Target{Store: st, s3base: &sc, cfg: c, close: func(context.Context) error { return st.Close() },
		Info: s3Info(c, st)}, nil
}

// s3Info is what the result file says of an S3 target: how the store
// actually sends its requests (Store.Options), not what was asked.
func s3Info(c TargetConfig, st *s3.Store) result.Target {
	o := st.Options()
	keep := o.KeepAlive
	t := result.Target{Kind: "s3", Endpoint: where(c), Bucket: c.Bucket, Region: st.Region(), PathStyle: o.Addressing == "path",
		Signing: "SigV4 UNSIGNED-PAYLOAD", Checksums: "none", HTTPClient: st.HTTPClient(),
		Addressing: o.Addressing, TLS: o.TLS, KeepAlive: &keep, MaxConnsPerHost: o.MaxConnsPerHost}
	if o.TLS != "" {
		res := o.TLSResumption
		t.TLSResumption = &res
	}
	return t
}

func where(c TargetConfig) string {
	if c.Endpoint == "" {
		return "AWS S3"
	}
	return c.Endpoint
}

// checkBucket fails early, with one clear line, on an unreachable endpoint,
// bad credentials or a missing bucket.
func checkBucket(ctx context.Context, c TargetConfig, st *s3.Store) error {
	at := where(c)
	var ok bool
	err := retry.Do(ctx, retry.Around(4), func() (err error) { // a store busy for a moment is not unreachable
		ok, err = st.BucketExists(ctx)
		return err
	})
	fail := func(problem string, err error) error {
		return &TargetError{Problem: problem, Bucket: c.Bucket, At: at, Err: err}
	}
	switch {
	case errors.Is(err, storage.ErrAccessDenied):
		return fail(ProblemDenied, err)
	case errors.Is(err, storage.ErrCertificate):
		return fail(ProblemCertificate, err)
	case isStatus(err, 400):
		return fail(ProblemMalformed, err)
	case err != nil:
		return fail(ProblemUnreachable, err)
	case ok:
		return nil
	case !c.CreateBucket:
		return fail(ProblemNoBucket, storage.ErrBucketNotFound)
	}
	if err := st.CreateBucket(ctx); err != nil {
		return fail(ProblemCreate, err)
	}
	return nil
}

// certCause is the x509 reason of a certificate error, without the
// library's advice (which names Go fields, not flags).
func certCause(err error) string {
	msg := RootCause(err)
	if i := strings.Index(msg, " (trust its CA"); i > 0 {
		msg = msg[:i]
	}
	return msg
}

func isStatus(err error, code int) bool {
	var se *storage.StatusError
	return errors.As(err, &se) && se.StatusCode == code
}

// RootCause is the most specific message in err's chain: an HTTP status
// as the server gave it, or the innermost cause ("connection refused"),
// rather than a chain of prefixes.
func RootCause(err error) string {
	var se *storage.StatusError
	if errors.As(err, &se) {
		return se.Error()
	}
	for next := errors.Unwrap(err); next != nil; next = errors.Unwrap(err) {
		err = next
	}
	return err.Error()
}

// BucketOpener is loadgen's Config.OpenBucket for t: a bucket is another
// S3 store on the same endpoint with the same credentials, or a
// subdirectory of a file target. A stream's own storage (COSBench's
// per-work <storage>) is honoured only when the endpoint came from the
// workload file; flags override every storage of the file.
func (t *Target) BucketOpener(maxConns int) func(context.Context, *workload.Storage, string) (storage.Store, error) {
	return func(ctx context.Context, st *workload.Storage, bucket string) (storage.Store, error) {
		if !t.cfg.FromFile {
			st = nil
		}
		if st == nil && bucket == t.Info.Bucket && t.Info.Kind == "s3" {
			return t.Store, nil // the target's own bucket: one store, so one cleanup listing
		}
		key := bucket
		if st != nil {
			key = st.Endpoint + "\x00" + st.AccessKey + "\x00" + bucket
		}
		if s, ok := t.buckets[key]; ok {
			return s, nil
		}
		s, err := t.openBucket(ctx, st, bucket, maxConns)
		if err != nil {
			return nil, err
		}
		if t.buckets == nil {
			t.buckets = map[string]storage.Store{}
		}
		t.buckets[key] = s
		return s, nil
	}
}

// Bucket opens another bucket of the target's endpoint (a subdirectory of
// a file target), closed with the target.
func (t *Target) Bucket(ctx context.Context, bucket string, maxConns int) (storage.Store, error) {
	return t.openBucket(ctx, nil, bucket, maxConns)
}

func (t *Target) openBucket(ctx context.Context, st *workload.Storage, bucket string, maxConns int) (storage.Store, error) {
	switch {
	case t.Info.Kind == "fs":
		return fs.NewBucket(t.Info.Root, bucket, t.fsOpts)
	case t.s3base == nil:
		return nil, errors.New("this target cannot open other buckets")
	}
	c := *t.s3base
	c.Bucket, c.MaxConns = bucket, maxConns
	if c.Region == "" {
		c.Region = t.Info.Region
	}
	if st != nil && st.Endpoint != "" {
		c.Endpoint, c.AccessKey, c.SecretKey = st.Endpoint, st.AccessKey, st.SecretKey
		c.PathStyle = st.Addressing == "path" || st.Addressing == ""
		if st.Region != "" {
			c.Region = st.Region
		}
	}
	s, err := s3.New(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("bucket %s: %w", bucket, err)
	}
	inner := t.close
	t.close = func(ctx context.Context) error { return errors.Join(s.Close(), inner(ctx)) }
	return s, nil
}

// S3Config is the configuration the target's S3 store was opened with
// (its bucket, region and credentials as resolved), for a caller that
// opens stores of its own alike (objbench probe); false for a file target.
func (t *Target) S3Config() (s3.Config, bool) {
	if t.s3base == nil {
		return s3.Config{}, false
	}
	c := *t.s3base
	if c.Region == "" {
		c.Region = t.Info.Region
	}
	return c, true
}
