package cli

import (
	"cmp"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/faultserver"
	"github.com/objbench/objbench/s3server"
)

func newServerCommand(env Env) *cobra.Command {
	var c s3server.Config
	var memory, null bool
	var delay time.Duration
	cmd := &cobra.Command{
		Use:   "server",
		Short: "Run the embedded S3 server standalone, for other tools (aws CLI, rclone, s3cmd, boto3) to measure against",
		Long: `Run objbench's embedded S3-compatible server until interrupted.

It keeps objects in memory (default) or in --data DIR, and prints its
endpoint and credentials. Requests must be signed with them (AWS Signature
Version 4: header-signed, presigned URLs, signed aws-chunked uploads) or
are refused with 403, as S3 refuses them; --no-auth accepts anything, and
then only on a loopback address.

It answers the S3 of today: flexible checksums (header and trailer),
conditional requests, versions, tags, copies and part copies,
DeleteObjects, SSE headers (SSE-C keys checked), multipart uploads. What
it does not implement it refuses with 501 NotImplemented before touching
anything; docs/embedded-server.md lists both.

--tls serves https with a certificate for 127.0.0.1, ::1 and localhost,
signed by a CA of its own that the server generates (ECDSA P-256) and
writes to --cert-dir (ca.pem, cert.pem, key.pem; kept and served again
next time) or to a temporary directory removed on exit. Clients trust
ca.pem: AWS_CA_BUNDLE for the aws CLI and SDKs, --ca-bundle for objbench.`,
		Example: `  objbench server --listen 127.0.0.1:9000 --bucket bench
  AWS_ACCESS_KEY_ID=... AWS_SECRET_ACCESS_KEY=... aws --endpoint-url http://127.0.0.1:9000 s3 ls s3://bench
  objbench server --tls --cert-dir ~/.objbench-tls   # then AWS_CA_BUNDLE=~/.objbench-tls/ca.pem`,
		Args: noArgs(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if memory && c.DataDir != "" {
				return usagef("--memory and --data exclude each other")
			}
			if delay < 0 || (null && c.DataDir != "") {
				return usagef("--delay must not be negative; --null keeps no data (not with --data)")
			}
			c.Buckets = slices.DeleteFunc(c.Buckets, func(b string) bool { return b == "" }) // --bucket '': none
			if c.MaxConns < 1 || c.ReadTimeout <= 0 {
				return usagef("--max-conns %d, --read-timeout %v: want at least 1 and more than 0", c.MaxConns, c.ReadTimeout)
			}
			if c.CertDir != "" && !c.TLS {
				return usagef("--cert-dir %s: only with --tls", c.CertDir)
			}
			if delay > 0 || null {
				if c.TLS {
					return usagef("--tls serves the embedded store only, not --delay or --null")
				}
				return runFaultServer(cmd.Context(), env, c, delay, null)
			}
			return runServer(cmd.Context(), env, c)
		},
	}
	f := cmd.Flags()
	f.StringVar(&c.Listen, "listen", "127.0.0.1:9000", "address to listen on")
	f.StringVar(&c.DataDir, "data", "", "keep objects in this directory (default: in memory)")
	f.BoolVar(&memory, "memory", false, "keep objects in memory (the default)")
	f.StringSliceVar(&c.Buckets, "bucket", []string{"objbench"}, "buckets to create at start ('' for none)")
	f.StringVar(&c.AccessKey, "access-key", "", "access key to print for clients (default: random)")
	f.StringVar(&c.SecretKey, "secret-key", "", "secret key clients sign with (default: random, and printed; a given one is never printed)")
	f.BoolVar(&c.NoAuth, "no-auth", false, "accept any request, signed or not (loopback addresses only)")
	f.DurationVar(&delay, "delay", 0, "hold every request this long before serving it: a slow store of known latency (e.g. 100ms, for many clients in flight)")
	f.BoolVar(&c.TLS, "tls", false, "serve https with a generated certificate for 127.0.0.1, ::1 and localhost; prints the CA file clients trust")
	f.StringVar(&c.CertDir, "cert-dir", "", "with --tls: keep ca.pem, cert.pem and key.pem here, reused next time (default: a temporary directory)")
	f.StringVar(&c.Region, "region", "us-east-1", "the region clients sign for; a request signed for another is refused (400 AuthorizationHeaderMalformed), as S3 refuses it")
	f.IntVar(&c.MaxConns, "max-conns", 10000, "connections served at once; more wait to be accepted (and the log says so)")
	f.DurationVar(&c.ReadTimeout, "read-timeout", 30*time.Second, "how long a client may send nothing while its headers or body are due (then 400 RequestTimeout, and disconnected)")
	f.BoolVar(&null, "null", false, "keep no data: PUT bodies are read and dropped, GET answers the object's size in zeros (the client's own ceiling)")
	return cmd
}

// runFaultServer serves the known-latency or null store of package
// faultserver, for measuring clients against a store of known behaviour.
func runFaultServer(ctx context.Context, env Env, c s3server.Config, delay time.Duration, null bool) error {
	bucket := "objbench"
	if len(c.Buckets) > 0 {
		bucket = c.Buckets[0]
	}
	fc := faultserver.Config{Listen: c.Listen, Bucket: bucket, Delay: faultserver.Delay{Base: delay}, Null: null, MaxEvents: -1}
	if !c.NoAuth && !null {
		fc.AccessKey, fc.SecretKey = cmp.Or(c.AccessKey, "OBJB"+rand.Text()[:16]), cmp.Or(c.SecretKey, rand.Text())
	}
	if (c.NoAuth || null) && !s3server.Loopback(c.Listen) {
		return usagef("--listen %s: a server that checks no signatures (--no-auth, --null) listens on loopback only", c.Listen)
	}
	srv, err := faultserver.Start(ctx, fc)
	if err != nil {
		return fmt.Errorf("start server: %w", err)
	}
	kind := fmt.Sprintf("every request held %v", delay)
	if null {
		kind = "null: no data kept; " + kind
	}
	fmt.Fprintf(env.Stdout, "objbench S3 server (%s) listening\n  endpoint:  %s\n  buckets:   [%s]\n", kind, srv.Endpoint(), bucket)
	printClientSetup(env.Stdout, clientSetup{endpoint: srv.Endpoint(), access: fc.AccessKey, secret: fc.SecretKey,
		secretGiven: c.SecretKey != "", bucket: bucket})
	fmt.Fprintln(env.Stdout, "Ctrl-C stops it.")
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	return srv.Close(sctx)
}

func runServer(ctx context.Context, env Env, c s3server.Config) error {
	c.Quiet = true
	if c.NoAuth && !s3server.Loopback(c.Listen) {
		return usagef("--no-auth on %s: a server that checks no signatures listens on loopback only (127.0.0.1, ::1)", c.Listen)
	}
	srv, err := s3server.Start(ctx, c)
	if err != nil {
		return fmt.Errorf("start server: %w", err)
	}
	where := "memory"
	if c.DataDir != "" {
		where = c.DataDir
	}
	fmt.Fprintf(env.Stdout, "objbench S3 server (%s) listening\n  endpoint:  %s\n  buckets:   %v\n", where, srv.Endpoint(), c.Buckets)
	if srv.CAFile() != "" {
		fmt.Fprintf(env.Stdout, "  CA file:   %s\n", srv.CAFile())
	}
	var bucket string
	if len(c.Buckets) > 0 {
		bucket = c.Buckets[0]
	}
	printClientSetup(env.Stdout, clientSetup{endpoint: srv.Endpoint(), access: srv.AccessKey(), secret: srv.SecretKey(),
		secretGiven: c.SecretKey != "", noAuth: c.NoAuth, caFile: srv.CAFile(), region: c.Region, bucket: bucket})
	fmt.Fprintln(env.Stdout, "Ctrl-C stops it.")
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	return srv.Close(sctx)
}

// clientSetup is what a client needs to reach the server.
type clientSetup struct {
	endpoint, access, secret, caFile, region, bucket string
	secretGiven, noAuth                              bool
}

// printClientSetup prints a block that works as pasted into a shell: the
// environment objbench, the aws CLI and boto3 all read (the region too,
// which the server checks signatures against, so that a region from the
// user's own config cannot break it), then a first command of each. A
// generated secret is printed (no one could use the server otherwise; it
// belongs to this throwaway server only); a secret the user gave
// (--secret-key) is theirs already and is never printed. A server that
// checks nothing still needs keys from the tools, any keys.
func printClientSetup(w io.Writer, c clientSetup) {
	access, secret := c.access, c.secret
	if access == "" || c.noAuth {
		access, secret = "any", "any"
	}
	vars := []string{"AWS_ACCESS_KEY_ID=" + access}
	if !c.secretGiven || c.noAuth {
		vars = append(vars, "AWS_SECRET_ACCESS_KEY="+secret)
	}
	vars = append(vars, "AWS_ENDPOINT_URL="+c.endpoint, "AWS_REGION="+cmp.Or(c.region, "us-east-1"))
	if c.caFile != "" {
		vars = append(vars, "AWS_CA_BUNDLE="+c.caFile)
	}
	fmt.Fprintln(w, "Paste into a shell (objbench, the aws CLI and boto3 read these):")
	fmt.Fprintf(w, "  export %s\n", strings.Join(vars, " "))
	if c.secretGiven && !c.noAuth {
		fmt.Fprintln(w, "  # and export AWS_SECRET_ACCESS_KEY=<the --secret-key you gave> (not shown)")
	}
	bucket := cmp.Or(c.bucket, "objbench")
	fmt.Fprintf(w, "then, for example:\n  objbench run --bucket %s\n  aws s3 ls s3://%s\n", bucket, bucket)
	fmt.Fprintf(w, "  python3 -c 'import boto3; print(boto3.client(\"s3\").list_objects_v2(Bucket=\"%s\").get(\"KeyCount\", 0))'\n", bucket)
}
