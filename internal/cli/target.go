package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/objbench/objbench/run"
	"github.com/spf13/pflag"
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
	conn         connFlags

	// Set from a workload file, not flags: keys that go with the file's
	// endpoint, whether the endpoint came from it, and a stand-in bucket
	// that an init stage may still have to create (so it is not checked).
	accessKey, secretKey string
	fromFile             bool
	lazyBucket           bool
	// versioned: the run works in versioned buckets (the embedded
	// server's bucket then keeps versions).
	versioned bool
}

func (o *targetOptions) register(f *pflag.FlagSet) {
	f.Var((*targetList)(o), "target", "what to measure: s3://BUCKET or file:///DIR (default: --bucket at --endpoint-url, or the embedded server); "+
		"repeated, run and the op commands run the workload on each in turn and compare them")
	f.StringVar(&o.endpoint, "endpoint-url", "", "S3 endpoint URL, e.g. http://10.0.0.5:9000 (default: $AWS_ENDPOINT_URL_S3, else $AWS_ENDPOINT_URL; none and no --bucket: embedded server)")
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
	o.conn.register(f)
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

// open resolves the options to a target (run.Open), with the
// environment's endpoint and CA bundle where no flag gives them. With no
// endpoint, bucket or target it starts the embedded server, whose lifetime
// ends with the target's Close.
func (o *targetOptions) open(ctx context.Context, env Env, maxConns int, note func(string, ...any)) (*run.Target, error) {
	if len(o.targets) > 1 {
		return nil, usagef("--target given %d times: this command measures one target (objbench run and the op commands compare several)", len(o.targets))
	}
	c := run.TargetConfig{URL: o.target, Endpoint: o.endpoint, Bucket: o.bucket, Region: o.region, Profile: o.profile,
		Addressing: o.addressing, Insecure: o.insecure, CABundle: o.caBundle, Timeout: o.timeout, CreateBucket: o.createBucket,
		Direct: o.direct, HTTPClient: o.httpClient, AccessKey: o.accessKey, SecretKey: o.secretKey, FromFile: o.fromFile,
		LazyBucket: o.lazyBucket, MaxConns: maxConns,
		NoKeepAlive: !o.conn.keepAlive, NoTLSResumption: !o.conn.tlsResumption, MaxConnsPerHost: o.conn.maxPerHost,
		Versioned: o.versioned}
	if o.conn.maxPerHost < 0 {
		return nil, usagef("--max-conns-per-host %d: want 0 (no cap) or more", o.conn.maxPerHost)
	}
	if c.Endpoint != "" {
		c.EndpointFrom = "--endpoint-url " + c.Endpoint
	}
	if c.Endpoint == "" {
		var v string
		if c.Endpoint, v = envEndpoint(env); c.Endpoint != "" {
			c.EndpointFrom = v + "=" + c.Endpoint + " (from the environment)"
		}
	}
	if c.CABundle == "" {
		c.CABundle = env.Getenv("AWS_CA_BUNDLE")
	}
	t, err := run.Open(ctx, c, note)
	return t, targetError(err)
}

// targetFlags are the flags of run.TargetConfig's fields.
var targetFlags = map[string]string{"URL": "--target", "Bucket": "--bucket", "Profile": "--profile", "Addressing": "--addressing",
	"HTTPClient": "--http-client", "Endpoint": "--endpoint-url"}

// targetError says what run.Open found wrong in the flags' words: a
// field's flag, and the flags that fix a store that cannot be used.
func targetError(err error) error {
	var ce *run.ConfigError
	var te *run.TargetError
	var nb *run.NoBucketError
	switch {
	case errors.As(err, &nb):
		return usagef("%s needs --bucket", nb.EndpointFrom)
	case errors.As(err, &ce):
		flag := targetFlags[ce.Field]
		if ce.Value == "" {
			return usagef("%s: %v", flag, ce.Err)
		}
		return usagef("bad %s %q: %v", flag, ce.Value, ce.Err)
	case errors.As(err, &te):
		switch te.Problem {
		case run.ProblemDenied:
			return fmt.Errorf("%w (--profile, AWS_ACCESS_KEY_ID...)", err)
		case run.ProblemCertificate:
			return fmt.Errorf("%w: --ca-bundle FILE (or AWS_CA_BUNDLE), or --insecure", err)
		case run.ProblemMalformed:
			return fmt.Errorf("%w (--addressing)", err)
		case run.ProblemNoBucket:
			return fmt.Errorf("bucket %s does not exist at %s (create it, or pass --create-bucket)", te.Bucket, te.At)
		}
	}
	return err
}

// envEndpoint is the S3 endpoint the environment names, as the aws CLI
// and SDKs read it: AWS_ENDPOINT_URL_S3 (S3's own), else
// AWS_ENDPOINT_URL; and the variable it came from.
func envEndpoint(env Env) (string, string) {
	for _, v := range []string{"AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"} {
		if ep := env.Getenv(v); ep != "" {
			return ep, v
		}
	}
	return "", ""
}
