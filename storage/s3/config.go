package s3

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/objbench/objbench/storage"
)

// Config says which endpoint and bucket a Store talks to and how.
type Config struct {
	// Endpoint is the service URL, e.g. "http://127.0.0.1:9000". Empty means
	// AWS S3 in Region.
	Endpoint string
	Bucket   string
	// Region signs requests; empty resolves it from the profile and
	// environment through the SDK's config, falling back to "us-east-1".
	Region string
	// Profile is the shared config profile; empty means the default chain.
	Profile string
	// AccessKey, SecretKey and SessionToken are static credentials; empty
	// uses the SDK's default credential chain (env, shared files, SSO...).
	AccessKey, SecretKey, SessionToken string
	// PathStyle addresses objects as http://host/bucket/key instead of
	// http://bucket.host/key. IP-literal and localhost endpoints, and bucket
	// names that cannot be host names, always use path style unless
	// VirtualHost is set.
	PathStyle bool
	// VirtualHost insists on http://bucket.host/key: an endpoint or bucket
	// that cannot be addressed so (an IP address; a name that is not a
	// DNS label, or dotted over https) is an error, not path style.
	// localhost is allowed (bucket.localhost resolves to loopback).
	VirtualHost bool
	// Insecure skips TLS certificate verification.
	Insecure bool
	// CABundle is a PEM file of root certificates for an https endpoint and
	// for the SDK's own https calls (SSO, STS). An unusable file is an error
	// only for an https endpoint, so passing AWS_CA_BUNDLE's value is safe.
	CABundle string
	// MaxConns is the expected concurrency; the idle connection pool per
	// host is at least this large (and at least 64).
	MaxConns int
	// MaxConnsPerHost caps the connections open to the endpoint at once,
	// busy or idle (0: no cap). A request finding all of them busy waits
	// for one (storage.Phases.ConnWait).
	MaxConnsPerHost int
	// NoKeepAlive sends every request on a new connection, closed after
	// it ("Connection: close"): what a client without a pool costs.
	NoKeepAlive bool
	// NoTLSResumption makes every TLS handshake a full one (no session
	// tickets kept).
	NoTLSResumption bool
	// Timeout bounds the wait for response headers per request (0 = none).
	Timeout time.Duration
	// ListPageSize is max-keys per ListObjectsV2 page (0 = server default,
	// 1000 on S3).
	ListPageSize int
	// HTTPClient picks the HTTP/1.1 client: "direct" (default: requests
	// written and read on the calling goroutine) or "std" (net/http's
	// Transport). A proxy from the environment always uses "std".
	HTTPClient string
}

// Store is a storage.Store over one S3 bucket. It is safe for concurrent use.
type Store struct {
	bucket string
	region string
	// base is the scheme and host every request goes to; each request copies
	// it and sets the path, so no URL is parsed per op.
	base       url.URL
	pathPrefix string // "/bucket/" (path style) or "/" (virtual host)
	bucketPath string // path of bucket-level requests: "/bucket" or "/"

	transport roundTripper
	client    string // "direct" or "std", as chosen
	signer    *signer
	creds     aws.CredentialsProvider
	listPage  int

	// payloadHash is the header value shared by every request; its cap is 1
	// so an append by anyone copies instead of writing into it.
	payloadHash []string
	bufs        sync.Pool // *[]byte copy buffers of copyBufSize, for large bodies
	smallBufs   sync.Pool // *[]byte of smallBufSize: small bodies, drained bodies
	counts      *connCounts
	checksums   *checksums
	opts        Options
}

var (
	_ storage.Store         = (*Store)(nil)
	_ storage.Multiparter   = (*Store)(nil)
	_ storage.BucketManager = (*Store)(nil)
	_ storage.ConnCounter   = (*Store)(nil)
)

const (
	defaultRegion   = "us-east-1"
	unsignedPayload = "UNSIGNED-PAYLOAD"
	copyBufSize     = 64 << 10
	// smallBufSize serves bodies up to its size, and drains: thousands of
	// small GETs in flight then hold 8 KiB each, not 64.
	smallBufSize = 8 << 10
)

// New resolves credentials and region, builds the transport and returns a
// Store for c.Bucket. It fails early when no credentials can be had, so a
// run does not start only to fail every op.
func New(ctx context.Context, c Config) (*Store, error) {
	if c.Bucket == "" || strings.Contains(c.Bucket, "/") {
		return nil, errors.New("s3: a bucket name (without '/') is needed")
	}
	if c.ListPageSize < 0 || c.MaxConnsPerHost < 0 {
		return nil, errors.New("s3: ListPageSize and MaxConnsPerHost must not be negative")
	}
	ep, err := parseEndpoint(c.Endpoint)
	if err != nil {
		return nil, err
	}
	https := ep == nil || ep.Scheme == "https"
	ca := loadCABundle(c.CABundle)
	if ca.err != nil && https && !c.Insecure {
		return nil, fmt.Errorf("s3: CA bundle for https endpoint: %w", ca.err)
	}
	creds, region, err := resolveAuth(ctx, c, ca)
	if err != nil {
		return nil, err
	}
	if ep == nil {
		ep = awsEndpoint(region)
	}
	if c.VirtualHost {
		if err := virtualHostable(ep, c); err != nil {
			return nil, err
		}
	}
	counts := &connCounts{}
	tr, client, err := chooseTransport(c, ca, ep, counts)
	if err != nil {
		return nil, err
	}
	s := &Store{
		bucket:      c.Bucket,
		region:      region,
		transport:   tr,
		client:      client,
		signer:      newSigner(region, "s3"),
		creds:       creds,
		listPage:    c.ListPageSize,
		payloadHash: []string{unsignedPayload},
		counts:      counts,
		checksums:   newChecksums(),
		bufs:        sync.Pool{New: func() any { b := make([]byte, copyBufSize); return &b }},
		smallBufs:   sync.Pool{New: func() any { b := make([]byte, smallBufSize); return &b }},
	}
	s.setAddressing(ep, c.PathStyle, c.VirtualHost)
	s.opts = describe(c, s, ep)
	return s, nil
}

// parseEndpoint returns nil for "" (AWS).
func parseEndpoint(endpoint string) (*url.URL, error) {
	if endpoint == "" {
		return nil, nil
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil, errors.New("s3: endpoint is not a URL")
	}
	switch {
	case u.User != nil:
		// Never echo it: it holds credentials.
		return nil, errors.New("s3: endpoint must not contain user info; use the credential settings")
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("s3: endpoint %q: scheme must be http or https", endpoint)
	case u.Host == "":
		return nil, fmt.Errorf("s3: endpoint %q has no host", endpoint)
	case (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "":
		return nil, fmt.Errorf("s3: endpoint %q must have no path, query or fragment", endpoint)
	}
	return u, nil
}

// awsEndpoint is AWS S3's regional endpoint.
func awsEndpoint(region string) *url.URL {
	domain := ".amazonaws.com"
	if strings.HasPrefix(region, "cn-") {
		domain = ".amazonaws.com.cn"
	}
	return &url.URL{Scheme: "https", Host: "s3." + region + domain}
}

// virtualHostable says why c's bucket cannot be addressed as a host name
// of ep, if it cannot.
func virtualHostable(ep *url.URL, c Config) error {
	switch {
	case c.PathStyle:
		return errors.New("s3: PathStyle and VirtualHost exclude each other")
	case net.ParseIP(ep.Hostname()) != nil:
		return fmt.Errorf("s3: virtual-host addressing needs an endpoint with a host name, not the IP address %s", ep.Hostname())
	case !hostSafeBucket(c.Bucket, ep.Scheme == "https"):
		return fmt.Errorf("s3: bucket %q cannot be a host name label (lower-case letters, digits and '-', no dots over https): virtual-host addressing is impossible", c.Bucket)
	}
	return nil
}

// setAddressing fixes the host and path prefix of every request.
func (s *Store) setAddressing(ep *url.URL, pathStyle, force bool) {
	host := stripDefaultPort(ep.Scheme, ep.Host)
	virtual := force || (!pathStyle && !isLocalHost(ep.Hostname()) && hostSafeBucket(s.bucket, ep.Scheme == "https"))
	s.base = url.URL{Scheme: ep.Scheme, Host: host}
	if virtual {
		s.base.Host = s.bucket + "." + host
		s.pathPrefix, s.bucketPath = "/", "/"
		return
	}
	s.bucketPath = "/" + s.bucket
	s.pathPrefix = s.bucketPath + "/"
}

// stripDefaultPort makes the Host header the signer signs the same as the
// one net/http sends (the signer strips default ports, net/http does not).
func stripDefaultPort(scheme, host string) string {
	if (scheme == "http" && strings.HasSuffix(host, ":80")) || (scheme == "https" && strings.HasSuffix(host, ":443")) {
		return host[:strings.LastIndexByte(host, ':')]
	}
	return host
}

// isLocalHost: bucket.<ip> and bucket.localhost do not resolve.
func isLocalHost(h string) bool {
	return h == "localhost" || net.ParseIP(h) != nil
}

// hostSafeBucket reports whether the bucket name can be a DNS label of the
// endpoint's host; dotted names break wildcard TLS certificates.
func hostSafeBucket(b string, https bool) bool {
	if len(b) < 3 || len(b) > 63 || b[0] == '-' || b[0] == '.' || b[len(b)-1] == '-' || b[len(b)-1] == '.' {
		return false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || (c == '.' && !https)
		if !ok {
			return false
		}
	}
	return true
}

// Close closes idle connections. In-flight requests are not interrupted.
func (s *Store) Close() error {
	s.transport.CloseIdleConnections()
	return nil
}

// ConnStats returns the connections dialed and requests sent so far.
func (s *Store) ConnStats() (dialed, requests uint64) {
	return s.counts.dialed.Load(), s.counts.requests.Load()
}

// Connections returns the store's connection counts so far.
func (s *Store) Connections() storage.ConnStats { return s.counts.stats() }

// Region is the region requests are signed for.
func (s *Store) Region() string { return s.region }

// HTTPClient is the HTTP client in use: "direct" or "std".
func (s *Store) HTTPClient() string { return s.client }
