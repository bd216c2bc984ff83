package s3server

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"time"

	"golang.org/x/sync/errgroup"
)

// Config says how to run a Server. The zero value serves from memory on a
// free port of 127.0.0.1 with generated keys and no log.
type Config struct {
	// Listen is the address to serve on; "" means "127.0.0.1:0" (a free
	// loopback port). Without auth (NoAuth) only loopback addresses are
	// accepted.
	Listen string
	// DataDir keeps objects as files under this directory (created if
	// missing; objects from an earlier run are served again). "" keeps
	// them in memory.
	DataDir string
	// AccessKey and SecretKey are the credentials clients must sign with
	// (AWS Signature Version 4); each left empty is generated.
	AccessKey, SecretKey string
	// NoAuth accepts any request, signed or not, with any keys: for
	// loopback only.
	NoAuth bool
	// Buckets are created at start; ones that already exist are kept.
	Buckets []string
	// TLS serves https with a certificate for 127.0.0.1, ::1 and localhost
	// signed by a CA of its own (ECDSA P-256), generated unless CertDir
	// holds one: clients trust the CA file (Server.CAFile).
	TLS bool
	// CertDir keeps the TLS files: ca.pem (for clients), cert.pem and
	// key.pem. Ones already there are served again, so clients keep
	// trusting the same CA; missing ones are generated. "" is a temporary
	// directory removed when the server closes.
	CertDir string
	// Region is the region requests must be signed for; others are
	// refused with 400 AuthorizationHeaderMalformed, as S3 refuses them.
	// "" is us-east-1.
	Region string
	// ReadTimeout is how long a client may send nothing: while the
	// request's headers arrive (all of them within it), and between reads
	// of its body (400 RequestTimeout, as S3 answers, and the connection
	// is closed). 0 is 30 seconds (S3 gives up after about 20).
	ReadTimeout time.Duration
	// MaxConns limits the connections served at once; more wait to be
	// accepted, and the log says so once each time the limit is reached.
	// 0 is 10,000.
	MaxConns int
	// Quiet turns the per-request log off even when Log is set.
	Quiet bool
	// Log receives one record per request (unless Quiet) and the server's
	// errors. nil: nothing is logged anywhere.
	Log *slog.Logger
	// Rewrite, when set, may change each request after its signature was
	// checked and before it is served: a wrapper that injects faults on
	// purpose (package faultserver) changes what the client signed
	// without the change failing the signature.
	Rewrite func(*http.Request)
}

// Server is a running S3-compatible server.
type Server struct {
	srv      *http.Server
	serving  errgroup.Group
	endpoint string
	access   string
	secret   string
	caFile   string
	cleanup  func() // removes a temporary CertDir
}

// Start loads DataDir (if any), creates the configured buckets and starts
// serving in the background. ctx bounds start-up only; the server runs until
// Close.
func Start(ctx context.Context, c Config) (*Server, error) {
	if c.NoAuth && !Loopback(cmp.Or(c.Listen, "127.0.0.1:0")) {
		return nil, fmt.Errorf("s3server: listening on %s without checking signatures would let anyone in: keep NoAuth to loopback", c.Listen)
	}
	c.AccessKey = cmp.Or(c.AccessKey, "OBJB"+rand.Text()[:16])
	c.SecretKey = cmp.Or(c.SecretKey, rand.Text()+rand.Text()[:14])
	c = withDefaults(c)
	be, err := openBackend(ctx, c)
	if err != nil {
		return nil, err
	}
	s := &Server{srv: newHTTPServer(be, c), access: c.AccessKey, secret: c.SecretKey, cleanup: func() {}}
	var conf *tls.Config
	if c.TLS {
		if conf, s.caFile, s.cleanup, err = serverTLS(c.CertDir); err != nil {
			return nil, err
		}
	}
	ln, err := new(net.ListenConfig).Listen(ctx, "tcp", cmp.Or(c.Listen, "127.0.0.1:0"))
	if err != nil {
		s.cleanup()
		return nil, fmt.Errorf("s3server: %w", err)
	}
	s.endpoint = endpoint(ln.Addr(), c.TLS)
	ln = &limitListener{Listener: ln, slots: make(chan struct{}, c.MaxConns), log: c.Log}
	if conf != nil {
		ln = tls.NewListener(ln, conf)
	}
	s.serving.Go(func() error {
		if err := s.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("s3server: %w", err)
		}
		return nil
	})
	return s, nil
}

// NewHandler is the server's S3 handler without a listener, for callers
// that serve it themselves (faultserver puts fault injection in front of
// it). c.Listen is ignored; the handler lives as long as its caller keeps
// it. Signatures are checked against c's keys unless c.NoAuth (empty keys
// are an error then: there is no one to hand generated ones to).
func NewHandler(ctx context.Context, c Config) (http.Handler, error) {
	if !c.NoAuth && (c.AccessKey == "" || c.SecretKey == "") {
		return nil, errors.New("s3server: a handler that checks signatures needs the access and secret keys")
	}
	c = withDefaults(c)
	be, err := openBackend(ctx, c)
	if err != nil {
		return nil, err
	}
	return newHTTPServer(be, c).Handler, nil
}

func withDefaults(c Config) Config {
	c.Region = cmp.Or(c.Region, "us-east-1")
	c.ReadTimeout = cmp.Or(c.ReadTimeout, 30*time.Second)
	c.MaxConns = cmp.Or(c.MaxConns, 10000)
	return c
}

// openBackend loads DataDir (if any) and creates the configured buckets.
func openBackend(ctx context.Context, c Config) (*backend, error) {
	var blobs blobStore = memBlobs{}
	if c.DataDir != "" {
		d, err := newDirBlobs(c.DataDir)
		if err != nil {
			return nil, err
		}
		blobs = d
	}
	be, err := newBackend(ctx, blobs)
	if err != nil {
		return nil, err
	}
	for _, name := range c.Buckets {
		if err := validBucketName(name); err != nil {
			return nil, fmt.Errorf("s3server: bucket %q: %w", name, err)
		}
		if _, err := be.createBucket(name); err != nil {
			return nil, fmt.Errorf("s3server: creating bucket %q: %w", name, err)
		}
	}
	return be, nil
}

func newHTTPServer(be *backend, c Config) *http.Server {
	errLog := log.New(io.Discard, "", 0) // net/http would print to stderr
	var reqLog *slog.Logger
	if c.Log != nil {
		errLog = slog.NewLogLogger(c.Log.Handler(), slog.LevelWarn)
		if !c.Quiet {
			reqLog = c.Log
		}
	}
	door := &frontDoor{svc: &service{be: be, region: c.Region}, router: newRouter(), log: reqLog,
		keys: authKeys(c), idle: c.ReadTimeout, rewrite: c.Rewrite, idBase: requestIDBase()}
	return &http.Server{
		Handler:           door,
		ReadHeaderTimeout: c.ReadTimeout,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          errLog,
	}
}

// requestIDBase starts every request id of a server (random, so ids of
// two servers differ); a counter follows.
func requestIDBase() string { return rand.Text()[:8] }

// endpoint is the URL clients use: an unspecified listen address (":9000",
// "0.0.0.0:9000") is reached through loopback.
func endpoint(a net.Addr, https bool) string {
	scheme := "http://"
	if https {
		scheme = "https://"
	}
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return scheme + a.String()
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return scheme + net.JoinHostPort(host, port)
}

// Endpoint returns the server's URL, e.g. "http://127.0.0.1:34567".
func (s *Server) Endpoint() string { return s.endpoint }

// CAFile is the PEM file of the CA that signed the server's certificate,
// for clients to trust (AWS_CA_BUNDLE); "" without TLS.
func (s *Server) CAFile() string { return s.caFile }

// AccessKey returns the access key to give clients.
func (s *Server) AccessKey() string { return s.access }

// SecretKey returns the secret key to give clients.
func (s *Server) SecretKey() string { return s.secret }

// Close stops accepting connections and waits for requests in flight to
// finish. When ctx ends first it closes the remaining connections and
// returns ctx's error.
func (s *Server) Close(ctx context.Context) error {
	var err error
	if serr := s.srv.Shutdown(ctx); serr != nil {
		err = errors.Join(fmt.Errorf("s3server: graceful shutdown: %w", serr), s.srv.Close())
	}
	err = errors.Join(err, s.serving.Wait())
	s.cleanup()
	return err
}

func authKeys(c Config) *keys {
	if c.NoAuth {
		return nil
	}
	return &keys{access: c.AccessKey, secret: c.SecretKey, region: c.Region}
}

// Loopback reports whether addr (host:port) listens on loopback only.
func Loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
