package cli

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/objbench/objbench/report"
	"github.com/objbench/objbench/s3server"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/fs"
	"github.com/objbench/objbench/storage/s3"
)

// targetOptions say where to measure: flags in the aws CLI's habits.
type targetOptions struct {
	target       string   // file:///dir or s3://bucket: the first --target
	targets      []string // every --target, in order (run and the op commands compare them)
	endpoint     string
	bucket       string
	region       string
	profile      string
	addressing   string
	insecure     bool
	caBundle     string
	timeout      time.Duration
	createBucket bool
	direct       bool
	httpClient   string

	// Set from a workload file, not flags: keys that go with the file's
	// endpoint, whether the endpoint came from it, and a stand-in bucket
	// that an init stage may still have to create (so it is not checked).
	accessKey, secretKey string
	fromFile             bool
	lazyBucket           bool
}

func (o *targetOptions) register(f *pflag.FlagSet) {
	f.Var((*targetList)(o), "target", "what to measure: s3://BUCKET or file:///DIR (default: --bucket at --endpoint-url, or the embedded server); "+
		"repeated, run and the op commands run the workload on each in turn and compare them")
	f.StringVar(&o.endpoint, "endpoint-url", "", "S3 endpoint URL, e.g. http://10.0.0.5:9000 (default: $AWS_ENDPOINT_URL; none and no --bucket: embedded server)")
	f.StringVar(&o.bucket, "bucket", "", "S3 bucket to use")
	f.StringVar(&o.region, "region", "", "region for signing (default: from --profile/env, else us-east-1)")
	f.StringVar(&o.profile, "profile", "", "aws shared config profile for credentials and region")
	f.StringVar(&o.addressing, "addressing", "auto", "bucket addressing: path, virtual, or auto (path when --endpoint-url is set)")
	f.BoolVar(&o.insecure, "insecure", false, "skip TLS certificate verification")
	f.StringVar(&o.caBundle, "ca-bundle", "", "PEM file of CA certificates for https (default: $AWS_CA_BUNDLE)")
	f.DurationVar(&o.timeout, "request-timeout", 0, "give up on a request whose response headers take longer (0: never)")
	f.BoolVar(&o.createBucket, "create-bucket", false, "create --bucket if it does not exist")
	f.StringVar(&o.httpClient, "http-client", "direct", "S3 HTTP client: direct (lean, same-goroutine HTTP/1.1) or std (Go's net/http Transport), to cross-check")
	f.BoolVar(&o.direct, "direct", false, "file targets: open files with O_DIRECT (bypass the page cache)")
}

// targetList is the --target flag: it keeps every value, the first also as
// the target.
type targetList targetOptions

func (l *targetList) String() string { return strings.Join(l.targets, ",") }
func (l *targetList) Type() string   { return "URL" }
func (l *targetList) Set(v string) error {
	if len(l.targets) == 0 {
		l.target = v
	}
	l.targets = append(l.targets, v)
	return nil
}

// only returns a copy of the options that names target t alone.
func (o *targetOptions) only(t string) targetOptions {
	c := *o
	c.target, c.targets = t, []string{t}
	return c
}

// openedTarget is a ready store plus what the result file says about it.
type openedTarget struct {
	store storage.Store
	info  report.Target
	close func(context.Context) error
	// How to open the target's other buckets (see openBucket).
	s3base  *s3.Config
	fsOpts  fs.Options
	buckets map[string]storage.Store
}

// open resolves the options to a store. With no endpoint, bucket or target
// it starts the embedded server, whose lifetime ends with close.
func (o *targetOptions) open(ctx context.Context, env Env, maxConns int, note func(string, ...any)) (*openedTarget, error) {
	if len(o.targets) > 1 {
		return nil, usagef("--target given %d times: this command measures one target (objbench run and the op commands compare several)", len(o.targets))
	}
	if o.target != "" {
		u, err := url.Parse(o.target)
		if err != nil || (u.Scheme != "file" && u.Scheme != "s3") {
			return nil, usagef("bad --target %q: want file:///DIR or s3://BUCKET", o.target)
		}
		if u.Scheme == "file" {
			return o.openFS(u)
		}
		if o.bucket != "" && o.bucket != u.Host {
			return nil, usagef("--target %s and --bucket %s disagree", o.target, o.bucket)
		}
		o.bucket = u.Host
	}
	if o.bucket != "" {
		if err := s3.CheckBucketName(o.bucket); err != nil {
			return nil, usagef("--bucket: %v", err)
		}
	}
	endpointFlag, err := o.resolveEndpoint(ctx, env)
	if err != nil {
		return nil, err
	}
	if o.caBundle == "" {
		o.caBundle = env.Getenv("AWS_CA_BUNDLE")
	}
	switch o.addressing {
	case "auto", "path", "virtual":
	default:
		return nil, usagef("bad --addressing %q: want path, virtual or auto", o.addressing)
	}
	if o.httpClient != "direct" && o.httpClient != "std" {
		return nil, usagef("bad --http-client %q: want direct or std", o.httpClient)
	}
	if o.endpoint == "" && o.bucket == "" {
		return o.openEmbedded(ctx, maxConns, note)
	}
	if o.bucket == "" {
		return nil, usagef("%s needs --bucket", endpointFlag)
	}
	return o.openS3(ctx, maxConns, s3.Config{AccessKey: o.accessKey, SecretKey: o.secretKey})
}

// resolveEndpoint finds the endpoint as the aws CLI does when no
// --endpoint-url is given: AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, then the
// --profile's endpoint_url. It returns where it came from, for messages.
func (o *targetOptions) resolveEndpoint(ctx context.Context, env Env) (string, error) {
	if o.endpoint != "" {
		return "--endpoint-url " + o.endpoint, nil
	}
	for _, v := range []string{"AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"} {
		if o.endpoint = env.Getenv(v); o.endpoint != "" {
			return v + "=" + o.endpoint + " (from the environment)", nil
		}
	}
	if o.profile == "" {
		return "", nil
	}
	ep, err := s3.ProfileEndpoint(ctx, o.profile)
	if err != nil {
		return "", usagef("--profile: %v", err)
	}
	o.endpoint = ep
	return "endpoint_url " + ep + " (of profile " + o.profile + ")", nil
}

func (o *targetOptions) openFS(u *url.URL) (*openedTarget, error) {
	if u.Host != "" && u.Host != "localhost" {
		return nil, usagef("bad --target %q: a file URL has three slashes, file:///DIR", o.target)
	}
	st, err := fs.New(u.Path, fs.Options{Direct: o.direct})
	if err != nil {
		return nil, usagef("--target %s: %v", o.target, err)
	}
	return &openedTarget{store: st, info: report.Target{Kind: "fs", Root: u.Path}, fsOpts: fs.Options{Direct: o.direct},
		close: func(context.Context) error { return nil }}, nil
}

func (o *targetOptions) openEmbedded(ctx context.Context, maxConns int, note func(string, ...any)) (*openedTarget, error) {
	srv, err := s3server.Start(ctx, s3server.Config{Listen: "127.0.0.1:0", Buckets: []string{"objbench"}, Quiet: true})
	if err != nil {
		return nil, fmt.Errorf("start the embedded S3 server: %w", err)
	}
	note("no endpoint given: embedded S3 server (in memory) at %s, bucket objbench", srv.Endpoint())
	o.endpoint, o.bucket = srv.Endpoint(), "objbench"
	t, err := o.openS3(ctx, maxConns, s3.Config{AccessKey: srv.AccessKey(), SecretKey: srv.SecretKey(), Region: "us-east-1"})
	if err != nil {
		_ = srv.Close(ctx)
		return nil, err
	}
	t.info.Embedded = true
	inner := t.close
	t.close = func(ctx context.Context) error { return errors.Join(inner(ctx), srv.Close(ctx)) }
	return t, nil
}

func (o *targetOptions) openS3(ctx context.Context, maxConns int, c s3.Config) (*openedTarget, error) {
	if o.endpoint != "" {
		if u, err := url.Parse(o.endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, usagef("bad --endpoint-url %q: want http://HOST[:PORT] or https://HOST[:PORT]", o.endpoint)
		}
	}
	c.Endpoint, c.Bucket, c.Profile, c.Insecure, c.CABundle = o.endpoint, o.bucket, o.profile, o.insecure, o.caBundle
	c.MaxConns, c.Timeout, c.HTTPClient = maxConns, o.timeout, o.httpClient
	if o.region != "" {
		c.Region = o.region
	}
	c.PathStyle = o.addressing == "path" || (o.addressing == "auto" && o.endpoint != "")
	st, err := s3.New(ctx, c)
	if err != nil {
		return nil, err
	}
	closeStore := func(context.Context) error { return st.Close() }
	if !o.lazyBucket {
		if err := o.checkBucket(ctx, st); err != nil {
			_ = st.Close()
			return nil, err
		}
	}
	where := o.endpoint
	if where == "" {
		where = "AWS S3"
	}
	return &openedTarget{store: st, close: closeStore, s3base: &c, info: report.Target{
		Kind: "s3", Endpoint: where, Bucket: o.bucket, Region: st.Region(), PathStyle: c.PathStyle,
		Signing: "SigV4 UNSIGNED-PAYLOAD", Checksums: "none", HTTPClient: st.HTTPClient(),
	}}, nil
}

// checkBucket fails early, with one clear line, on an unreachable endpoint,
// bad credentials or a missing bucket.
func (o *targetOptions) checkBucket(ctx context.Context, st *s3.Store) error {
	where := o.endpoint
	if where == "" {
		where = "AWS S3"
	}
	ok, err := st.BucketExists(ctx)
	switch {
	case errors.Is(err, storage.ErrAccessDenied):
		return fmt.Errorf("access denied to bucket %s at %s: check credentials (--profile, AWS_ACCESS_KEY_ID...)", o.bucket, where)
	case isStatus(err, 400):
		return fmt.Errorf("%s refused the request on bucket %s as malformed (%v): the bucket name or the addressing (--addressing) is not what this store accepts", where, o.bucket, rootCause(err))
	case err != nil:
		return fmt.Errorf("cannot reach %s: %v", where, rootCause(err))
	case ok:
		return nil
	case !o.createBucket:
		return fmt.Errorf("bucket %s does not exist at %s (create it, or pass --create-bucket)", o.bucket, where)
	}
	if err := st.CreateBucket(ctx); err != nil {
		return fmt.Errorf("create bucket %s at %s: %w", o.bucket, where, err)
	}
	return nil
}

func isStatus(err error, code int) bool {
	var se *storage.StatusError
	return errors.As(err, &se) && se.StatusCode == code
}

// rootCause is the most specific message in err's chain: an HTTP status
// as the server gave it, or the innermost cause ("connection refused"),
// rather than a chain of prefixes.
func rootCause(err error) string {
	var se *storage.StatusError
	if errors.As(err, &se) {
		return se.Error()
	}
	for next := errors.Unwrap(err); next != nil; next = errors.Unwrap(err) {
		err = next
	}
	return err.Error()
}
