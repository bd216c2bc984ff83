package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/spf13/cobra"

	"github.com/objbench/objbench/atomicfile"
	"github.com/objbench/objbench/s3server"
	"github.com/objbench/objbench/shootout"
	"github.com/objbench/objbench/storage"
)

type toolsOptions struct {
	target     targetOptions
	tools      string
	custom     []string
	files      string
	threads    string
	repeat     int
	dataDir    string
	csv, json  string
	runTimeout time.Duration
	quiet      bool
	checksum   string
	probeSums  bool
	scaling    string
}

func newToolsCommand(env Env) *cobra.Command {
	o := &toolsOptions{}
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "Transfer-tool shoot-out: aws CLI, s5cmd, rclone, s3cmd, boto3 and objbench on the same data and endpoint",
		Long: `Runs real transfer tools, each as a child process, on the same dataset
matrix and endpoint, and prints one table: for each tool, file set and
thread count the wall time, speed and CPU seconds (user+sys) of the tool.
A file set is the total whatever the threads (--scaling fixed), or each
thread's share (--scaling weak: at t threads every run uploads t copies).

"Threads" is how many requests a tool may have in flight: aws gets
s3 max_concurrent_requests = threads; tools with a knob for files and one
for parts (s5cmd, rclone, boto3, objbench) get min(threads, files) files
at once and threads/that parts per file. s3cmd has no parallelism knob and
runs at 1 thread only. Everything else stays at each tool's defaults.

Each dataset is made once (incompressible) and reused by every tool. Each
run uploads to its own prefix under objbench-tools/RUN-ID/, is verified by
listing it (count and bytes, or the run is marked failed) and is deleted
afterwards; nothing outside that namespace is touched. A tool that is not
installed is skipped with a line saying how to install it
(scripts/install-tools.sh installs the pinned ones). A shoot-out of
several tools in which fewer than two ran compares nothing: it says so
first and exits 1.

Custom tools: --tool 'NAME=COMMAND TEMPLATE' with the placeholders
{src} (local directory) {dst} (s3://BUCKET/PREFIX/) {endpoint} {threads};
credentials reach it as AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
AWS_REGION and AWS_ENDPOINT_URL.

With no --endpoint-url (and neither $AWS_ENDPOINT_URL_S3 nor
$AWS_ENDPOINT_URL) the embedded S3 server is the target.`,
		Example: `  objbench tools --files 32x32MiB,1x1GiB --threads 1,2,4
  objbench tools --tools aws,rclone,objbench --files 32x128MiB,16x256MiB,8x512MiB,2x2GiB,1x4GiB \
      --threads 1,2,4,8 --repeat 3 --endpoint-url http://10.0.0.5:9000 --bucket bench --csv tools.csv
  objbench tools --tools objbench --tool 'mytool=mytool cp {src} {dst} -j {threads}' --files 8x64MiB`,
		Args: noArgs(),
		RunE: func(cmd *cobra.Command, _ []string) error { return runTools(cmd.Context(), env, o) },
	}
	f := cmd.Flags()
	o.target.register(f)
	_ = f.MarkHidden("target") // the tools take an endpoint and a bucket, not a file system
	_ = f.MarkHidden("direct")
	f.StringVar(&o.tools, "tools", strings.Join(shootout.BuiltinNames(), ","), "built-in tools to run, comma-separated")
	f.StringArrayVar(&o.custom, "tool", nil, "a custom tool, 'NAME=COMMAND {src} {dst} ... {threads}' (repeatable)")
	f.StringVar(&o.files, "files", "32x128MiB,16x256MiB,8x512MiB,2x2GiB,1x4GiB", "file sets, COUNTxSIZE, comma-separated")
	f.StringVar(&o.threads, "threads", "1,2,4,8", "thread counts, comma-separated")
	f.StringVar(&o.scaling, "scaling", "fixed", "fixed: a file set is the total whatever the threads; weak: each thread uploads its own copy of it (32x128MiB at 1, 2, 4 threads moves 32, 64, 128 files)")
	f.IntVar(&o.repeat, "repeat", 1, "runs per cell; the table shows the median")
	f.StringVar(&o.dataDir, "data-dir", "", "where to make (or reuse) the datasets (default: a temporary directory, removed afterwards)")
	f.StringVar(&o.csv, "csv", "", "also write the table as CSV to this file")
	f.StringVar(&o.json, "json", "", "also write the whole result (every run, min/max, tool versions) as JSON to this file")
	f.DurationVar(&o.runTimeout, "run-timeout", 30*time.Minute, "give up on one run of one tool after this long")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no progress lines")
	f.BoolVar(&o.probeSums, "probe-checksums", true, "first measure what each tool computes over an upload (checksums, a signed payload's SHA-256): "+
		"one small upload each to a recorder on 127.0.0.1; the table's notes say it")
	f.StringVar(&o.checksum, "checksum", "", "objbench's uploads carry this checksum (ALG or ALG/trailer, as objbench transfer --checksum), "+
		"to compute what the other tools compute (e.g. crc32/trailer like the aws CLI and boto3 of today)")
	return cmd
}

// config turns the flags into a shootout.Config (without the target).
func (o *toolsOptions) config() (shootout.Config, error) {
	var c shootout.Config
	if o.target.target != "" {
		return c, usagef("tools takes --endpoint-url and --bucket, not --target")
	}
	for _, name := range strings.Split(o.tools, ",") {
		name = strings.TrimSpace(name)
		if name == "" && len(o.custom) > 0 { // --tools '' runs only the custom ones
			continue
		}
		p := shootout.Builtin(name)
		if p == nil {
			return c, usagef("unknown tool %q in --tools (built-in: %s; add others with --tool NAME=TEMPLATE)",
				name, strings.Join(shootout.BuiltinNames(), ", "))
		}
		c.Tools = append(c.Tools, p)
	}
	for _, spec := range o.custom {
		p, err := shootout.ParseTemplate(spec)
		if err != nil {
			return c, usagef("--tool: %v", err)
		}
		if shootout.Builtin(p.Name) != nil {
			return c, usagef("--tool %s: the name of a built-in tool", p.Name)
		}
		c.Tools = append(c.Tools, p)
	}
	c.Checksum, c.ProbeChecksums = o.checksum, o.probeSums
	switch o.scaling {
	case "fixed", "strong":
	case "weak":
		c.Weak = true
	default:
		return c, usagef("--scaling %q: want fixed (a file set is the total) or weak (each thread its own copy)", o.scaling)
	}
	if alg, form, _ := strings.Cut(o.checksum, "/"); o.checksum != "" {
		if _, err := storage.ParseChecksum(alg); err != nil || (form != "" && form != "trailer") {
			return c, usagef("--checksum %s: want ALG or ALG/trailer, ALG one of crc32, crc32c, crc64nvme, sha1, sha256, md5", o.checksum)
		}
	}
	seen := map[string]bool{}
	for _, p := range c.Tools {
		if seen[p.Name] {
			return c, usagef("tool %q given twice", p.Name)
		}
		seen[p.Name] = true
	}
	var err error
	if c.FileSets, err = shootout.ParseFileSets(o.files); err != nil {
		return c, usagef("--files: %v", err)
	}
	if c.Threads, err = shootout.ParseThreads(o.threads); err != nil {
		return c, usagef("--threads: %v", err)
	}
	if o.repeat < 1 || o.repeat > shootout.MaxRepeat {
		return c, usagef("--repeat %d: want 1 to %d", o.repeat, shootout.MaxRepeat)
	}
	if o.runTimeout <= 0 {
		return c, usagef("--run-timeout %v: want a positive duration", o.runTimeout)
	}
	c.Repeat, c.DataDir, c.RunTimeout = o.repeat, o.dataDir, o.runTimeout
	return c, nil
}

func runTools(ctx context.Context, env Env, o *toolsOptions) error {
	c, err := o.config()
	if err != nil {
		return err
	}
	if err := checkOutputs(output{flag: "--csv", path: o.csv}, output{flag: "--json", path: o.json}); err != nil {
		return err
	}
	if c.Objbench, err = os.Executable(); err != nil {
		return err
	}
	c.Env = os.Environ()
	note := notes(env, o.quiet)
	t, closeTarget, err := o.openTarget(ctx, env, note)
	if err != nil {
		return err
	}
	defer func() { _ = closeTarget(context.WithoutCancel(ctx)) }()
	c.Target = t
	c.OnEvent = toolsProgress(env.Stderr, o.quiet)
	res, runErr := shootout.Run(ctx, c)
	if res == nil {
		return runErr
	}
	if err := res.WriteTable(env.Stdout); err != nil {
		return err
	}
	for _, w := range []struct {
		flag, path string
		write      func(io.Writer) error
	}{{"--csv", o.csv, res.WriteCSV}, {"--json", o.json, res.WriteJSON}} {
		if w.path != "" {
			if err := atomicfile.Write(w.path, 0o644, w.write); err != nil {
				return writeError(w.flag, w.path, err)
			}
		}
	}
	if ctx.Err() != nil {
		return errInterrupted
	}
	if runErr != nil {
		return runErr
	}
	if why := res.Shortfall(); why != "" {
		return errors.New(why)
	}
	for _, cell := range res.Cells {
		if !cell.OK {
			return errors.New("some runs failed (see FAILED above)")
		}
	}
	return nil
}

// openTarget opens the bucket the tools upload to, with the credentials
// they will be given: the embedded server's when there is no endpoint,
// else the ones the aws CLI would find (environment, --profile).
func (o *toolsOptions) openTarget(ctx context.Context, env Env, note func(string, ...any)) (shootout.Target, func(context.Context) error, error) {
	t := &o.target
	if t.endpoint == "" {
		t.endpoint, _ = envEndpoint(env)
	}
	closeServer := func(context.Context) error { return nil }
	var keys shootout.Target // the tools' credentials and region
	if t.endpoint == "" {
		if t.bucket == "" {
			t.bucket = "objbench"
		}
		srv, err := s3server.Start(ctx, s3server.Config{Listen: "127.0.0.1:0", Buckets: []string{t.bucket}, Quiet: true})
		if err != nil {
			return shootout.Target{}, nil, fmt.Errorf("start the embedded S3 server: %w", err)
		}
		note("no endpoint given: embedded S3 server (in memory) at %s, bucket %s", srv.Endpoint(), t.bucket)
		t.endpoint, t.accessKey, t.secretKey, t.region = srv.Endpoint(), srv.AccessKey(), srv.SecretKey(), "us-east-1"
		keys = shootout.Target{AccessKey: srv.AccessKey(), SecretKey: srv.SecretKey(), Region: "us-east-1"}
		closeServer = srv.Close
	} else {
		if t.bucket == "" {
			return shootout.Target{}, nil, usagef("--endpoint-url needs --bucket")
		}
		var err error
		if keys, err = resolveKeys(ctx, t.profile, t.region); err != nil {
			return shootout.Target{}, nil, err
		}
	}
	ot, err := t.open(ctx, env, 64, note)
	if err != nil {
		_ = closeServer(ctx)
		return shootout.Target{}, nil, err
	}
	keys.Endpoint, keys.Bucket, keys.CABundle, keys.Store = t.endpoint, t.bucket, t.caBundle, ot.Store
	if keys.Region == "" {
		keys.Region = ot.Info.Region
	}
	return keys, func(ctx context.Context) error { return errors.Join(ot.Close(ctx), closeServer(ctx)) }, nil
}

// resolveKeys finds credentials as the aws CLI would (environment,
// --profile, shared files), to hand them to the tools.
func resolveKeys(ctx context.Context, profile, region string) (shootout.Target, error) {
	var opts []func(*config.LoadOptions) error
	if profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(profile))
	}
	if region != "" {
		opts = append(opts, config.WithRegion(region))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return shootout.Target{}, fmt.Errorf("load AWS configuration: %w", err)
	}
	if cfg.Credentials == nil {
		return shootout.Target{}, errors.New("no credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or --profile")
	}
	creds, err := cfg.Credentials.Retrieve(ctx)
	if err != nil {
		return shootout.Target{}, fmt.Errorf("no usable credentials (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or --profile): %w", err)
	}
	return shootout.Target{AccessKey: creds.AccessKeyID, SecretKey: creds.SecretAccessKey,
		SessionToken: creds.SessionToken, Region: cfg.Region}, nil
}

// toolsProgress prints a line per dataset, skipped tool and finished run.
func toolsProgress(w io.Writer, quiet bool) func(shootout.Event) {
	return func(e shootout.Event) {
		switch {
		case quiet: // skipped tools are said under the table too
		case e.Kind == shootout.EventSkip:
			fmt.Fprintf(w, "objbench: skipped %s\n", e.Message)
		case e.Kind == shootout.EventData:
			fmt.Fprintf(w, "objbench: dataset %s: %s\n", e.FileSet.Spec, e.Message)
		case e.Kind == shootout.EventRunDone:
			r := e.Run
			status := fmt.Sprintf("%.2f s, %.1f MiB/s, CPU %.2f s, verified", r.DurationS,
				float64(e.FileSet.Bytes())/(1<<20)/max(r.DurationS, 1e-9), r.CPUS())
			if !r.Verified {
				status = "FAILED: " + r.Error
			}
			fmt.Fprintf(w, "objbench: [%d/%d] %s %s %d threads run %d: %s\n", e.Index, e.Total, e.Tool,
				e.FileSet.Spec, e.Threads, e.Rep, status)
		}
	}
}
