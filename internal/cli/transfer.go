package cli

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/corpus"
	"github.com/objbench/objbench/payload"
	"github.com/objbench/objbench/report"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/transfer"
	"github.com/objbench/objbench/units"
)

type transferOptions struct {
	target          targetOptions
	partSize        string
	partConcurrency int
	workers         int
	retries         int
	checksum        string
	seed            uint64
	force           bool
	out             string
	quiet           bool
	corpus          corpusFlags
	timeline        bool
	repeat          int
	linkSpeed       string
	dryRun          bool
	manifest        bool
}

func newTransferCommand(env Env) *cobra.Command {
	o := &transferOptions{}
	cmd := &cobra.Command{
		Use:   "transfer SRC DST",
		Short: "Upload or download whole objects (files, directories, globs, generated data), multipart, and verify",
		Long: `Upload: SRC is a file, a directory (keys are paths relative to it), a glob
('data/file*'), gen:SIZE or gen:NxSIZE (generated data, streamed: a 100 GiB
upload needs no 100 GiB file), and DST is s3://BUCKET/PREFIX/.
Download: SRC is s3://BUCKET/PREFIX, DST a directory or null: (read and
discard, so the disk is not the limit).

Objects larger than --part-size move in parts (multipart upload, ranged
GETs), --part-concurrency parts in flight per object and --workers objects
in flight (s5cmd's --concurrency and --numworkers). Failed requests are
retried with backoff and counted; a failed multipart upload is aborted.
Afterwards the prefix is listed: every key the upload wrote must be
there, of its size and with the ETag its upload got back, or the run
fails; objects already under the prefix are reported, not failed.

The machine is sampled each second and judged (disk, network, CPU or the
store?), as for any run; --out writes an ordinary result file that
objbench report, compare, merge and report --html read: its stream holds
the data requests (PUT or GET) per second, its step the whole objects.
--repeat N moves the objects N times, one step each.

Real corpora: --from-dir DIR uploads every file of a tree (a maildir),
--from-git REPO every blob of a git repository (a public-inbox archive
holds one email per blob; keys are the blob ids), each blob read when its
upload starts; the corpus is counted, then streamed, and what the upload
wrote is kept sorted in temporary files ($TMPDIR), so memory holds neither
the corpus nor its list; then only DST is given. --max-objects N takes the first N objects of any
source. Afterwards objbench get/stat --no-prepare --prefix PREFIX reads
them back by listing.

With no --endpoint-url (and neither $AWS_ENDPOINT_URL_S3 nor
$AWS_ENDPOINT_URL) the embedded S3 server is used, so a gen: upload
works out of the box; for AWS S3 pass its
endpoint, e.g. --endpoint-url https://s3.eu-west-1.amazonaws.com --addressing virtual.`,
		Example: `  objbench transfer gen:1GiB s3://objbench/big
  objbench transfer gen:2500x1MiB s3://b/small/ --endpoint-url http://10.0.0.5:9000
  objbench transfer ./data s3://b/files/ --part-size 16MiB --part-concurrency 8 --workers 4
  objbench transfer s3://b/files/ null: --endpoint-url http://10.0.0.5:9000
  objbench transfer gen:10GiB s3://b/big --timeline      # and what the machine did each second
  objbench transfer --from-git ~/lkml/git/0.git --max-objects 100000 s3://b/mail/`,
		Args: positional(1, 2, "a source and a destination (SRC DST; only DST with --from-dir/--from-git)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			corpusSrc, err := o.corpus.source()
			if err != nil {
				return err
			}
			switch {
			case corpusSrc != "" && len(args) != 1:
				return usagef("with --from-dir or --from-git give only DST (s3://BUCKET/PREFIX/), not %q", args[0])
			case corpusSrc != "":
				return runTransfer(cmd.Context(), env, o, corpusSrc, args[0])
			case len(args) != 2:
				return usagef("transfer needs SRC and DST (or --from-dir/--from-git and DST): objbench transfer SRC DST")
			}
			return runTransfer(cmd.Context(), env, o, args[0], args[1])
		},
	}
	f := cmd.Flags()
	o.target.register(f)
	f.StringVar(&o.partSize, "part-size", "", "part size (default: 8MiB below 1GiB objects, 16MiB above, larger to stay within 10,000 parts): "+units.Units)
	f.IntVar(&o.partConcurrency, "part-concurrency", 0, "parts in flight per object (default: 4 when objects span parts, else 1)")
	f.IntVar(&o.workers, "workers", 0, "objects in flight (default: about 16 requests in flight overall)")
	f.IntVar(&o.retries, "retries", 3, "times a failed request is tried again, with backoff")
	f.Uint64Var(&o.seed, "seed", 0, "gen: payload seed, as objbench gen's (default: random)")
	f.BoolVar(&o.force, "force", false, "download: replace local files that already exist")
	f.StringVar(&o.checksum, "checksum", "", "uploads (and each part) carry this checksum for the target to verify: crc32, crc32c, crc64nvme, sha1, sha256 or md5; "+
		"ALG/trailer sends it after the body (aws-chunked), as the AWS SDKs do")
	f.StringVarP(&o.out, "out", "o", "", "write the result file (objbench report, compare, merge and report --html read it)")
	f.BoolVar(&o.manifest, "manifest", true, "record the keys an upload wrote in a manifest beside its prefix (PREFIX.objbench-manifest/), for objbench clean")
	f.BoolVar(&o.dryRun, "dry-run", false, "state what would move (objects and their real bytes: a corpus is listed, nothing read) and move nothing; a download lists its source")
	f.IntVar(&o.repeat, "repeat", 1, "move the same objects this many times, one step each; compare takes the repetitions as its samples")
	f.StringVar(&o.linkSpeed, "link-speed", "", "network link capacity in bits/s (10G, 25Gbit) for the verdict (default: /sys/class/net/*/speed)")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no progress and notes")
	f.BoolVar(&o.timeline, "timeline", false, "print what the machine did each second (CPU, disk, network, paging, interrupts, context switches) beside the requests, MiB/s and p99 of the transfer (it is always sampled, for the verdict and the result file)")
	o.corpus.register(f, "upload")
	f.IntVar(&o.corpus.maxObjects, "max-objects", 0, "upload at most this many objects: the first ones of the source (default: all)")
	return cmd
}

// s3URL splits s3://BUCKET/PREFIX.
func s3URL(s string) (bucket, prefix string, ok bool) {
	rest, ok := strings.CutPrefix(s, "s3://")
	if !ok {
		return "", "", false
	}
	bucket, prefix, _ = strings.Cut(rest, "/")
	return bucket, prefix, bucket != ""
}

func (o *transferOptions) toOptions() (transfer.Options, error) {
	t := transfer.Options{PartConcurrency: o.partConcurrency, Workers: o.workers, Retries: o.retries, Force: o.force}
	if o.retries == 0 {
		t.Retries = -1
	}
	if o.partSize != "" {
		n, err := units.ParseSize(o.partSize)
		if err != nil {
			return t, usagef("--part-size: %v", err)
		}
		if n < transfer.MinPartSize {
			return t, usagef("--part-size %s is below S3's minimum of 5MiB", o.partSize)
		}
		t.PartSize = n
	}
	if o.partConcurrency < 0 || o.workers < 0 || o.retries < 0 {
		return t, usagef("--part-concurrency, --workers and --retries must not be negative")
	}
	alg, form, _ := strings.Cut(o.checksum, "/")
	c, err := storage.ParseChecksum(alg)
	switch {
	case err != nil:
		return t, usagef("--checksum: %v", err)
	case form != "" && (form != "trailer" || c == "" || c == storage.ChecksumMD5):
		return t, usagef("--checksum %s: want ALG or ALG/trailer (md5 is a header only)", o.checksum)
	}
	t.Checksum, t.ChecksumTrailer = c, form == "trailer"
	return t, nil
}

func runTransfer(ctx context.Context, env Env, o *transferOptions, src, dst string) error {
	srcBucket, srcPrefix, down := s3URL(src)
	dstBucket, dstPrefix, up := s3URL(dst)
	if up == down {
		return usagef("one of SRC and DST must be s3://BUCKET/PREFIX, the other local (a path, gen:SIZE or null:)")
	}
	if o.target.target != "" {
		return usagef("transfer takes s3://BUCKET/PREFIX as an argument, not --target")
	}
	opts, err := o.toOptions()
	if err != nil {
		return err
	}
	if err := checkOutputs(output{flag: "--out", path: o.out}); err != nil {
		return err
	}
	if o.repeat < 1 {
		return usagef("--repeat %d: want 1 or more", o.repeat)
	}
	linkBps, err := parseLinkSpeed(o.linkSpeed)
	if err != nil {
		return err
	}
	bucket, prefix := dstBucket, dstPrefix
	if down {
		bucket, prefix = srcBucket, srcPrefix
	}
	var plan *transfer.Plan
	if up { // a bad source fails before any server starts
		if o.seed == 0 {
			o.seed = payload.RandomSeed()
		}
		var c *corpus.Corpus
		if plan, c, err = uploadPlan(ctx, src, prefix, o.seed, o.corpus.maxObjects); err != nil {
			return inputf("%v", err)
		}
		defer func() { _ = c.Close() }()
		plan.Limit(o.corpus.maxObjects)
		if o.dryRun {
			return writeTransferPlan(env, plan, opts, src, dst)
		}
	}
	st, info, closeStore, err := o.openBucket(ctx, env, bucket, notes(env, o.quiet))
	if err != nil {
		return err
	}
	defer func() { _ = closeStore(context.WithoutCancel(ctx)) }()
	if down {
		if plan, err = transfer.DownloadPlan(ctx, st, prefix, dst, o.force); err != nil {
			return err
		}
		defer func() { _ = plan.Close() }()
		if o.dryRun {
			return writeTransferPlan(env, plan, opts, src, dst)
		}
	}
	info.Namespace = plan.Prefix
	return o.execute(ctx, env, st, info, plan, opts, linkBps, src, dst)
}

// uploadPlan plans an upload from a path, gen: or a corpus (dir:, git:);
// the corpus, if any, must stay open while the plan runs.
func uploadPlan(ctx context.Context, src, prefix string, seed uint64, maxObjects int) (*transfer.Plan, *corpus.Corpus, error) {
	if corpus.CheckSource(src) != nil {
		p, err := transfer.UploadPlan(src, prefix, seed)
		return p, nil, err
	}
	c, err := corpus.Open(ctx, src, maxObjects)
	if err != nil {
		return nil, nil, err
	}
	return transfer.CorpusPlan(c, prefix), c, nil
}

// openBucket opens bucket at the endpoint of the flags, or in the embedded
// server (created there) when there is none.
func (o *transferOptions) openBucket(ctx context.Context, env Env, bucket string, note func(string, ...any)) (storage.Store, result.Target, func(context.Context) error, error) {
	t := &o.target
	if t.bucket != "" && t.bucket != bucket {
		return nil, result.Target{}, nil, usagef("--bucket %s and s3://%s disagree", t.bucket, bucket)
	}
	if t.endpoint == "" {
		t.endpoint, _ = envEndpoint(env)
	}
	if u, err := url.Parse(t.endpoint); t.endpoint != "" && (err != nil || u.Host == "") {
		return nil, result.Target{}, nil, usagef("bad --endpoint-url %q: want http://HOST[:PORT] or https://HOST[:PORT]", t.endpoint)
	}
	embedded := t.endpoint == ""
	if !embedded {
		t.bucket = bucket
	} else {
		t.bucket = ""
	}
	maxConns := max(64, max(o.workers, 1)*max(o.partConcurrency, 1))
	ot, err := t.open(ctx, env, maxConns, note)
	if err != nil {
		return nil, result.Target{}, nil, err
	}
	info := ot.Info
	info.Bucket = bucket
	if !embedded || ot.Info.Bucket == bucket {
		return ot.Store, info, ot.Close, nil
	}
	st, err := ot.Bucket(ctx, bucket, maxConns)
	if err == nil {
		if bm, ok := st.(storage.BucketManager); ok {
			if err = bm.CreateBucket(ctx); err == nil {
				note("created bucket %s in the embedded server", bucket)
			}
		}
	}
	if err != nil {
		_ = ot.Close(ctx)
		return nil, result.Target{}, nil, err
	}
	return st, info, ot.Close, nil
}

// writeTransferPlan is --dry-run's answer: what would move, and how.
func writeTransferPlan(env Env, plan *transfer.Plan, opts transfer.Options, src, dst string) error {
	opts = opts.Resolve(plan)
	verb := "upload"
	if plan.Download {
		verb = "download"
	}
	fmt.Fprintln(env.Stdout, "dry run: nothing is moved")
	fmt.Fprintf(env.Stdout, "%s %d objects, %d bytes (%s; objects of %s to %s) from %s to %s\n", verb, plan.Objects(), plan.Bytes(),
		report.Bytes(float64(plan.Bytes())), report.Bytes(float64(plan.MinSize())), report.Bytes(float64(plan.MaxSize())), src, dst)
	fmt.Fprintf(env.Stdout, "%d objects in flight, parts of %s, %d parts in flight per object\n", opts.Workers,
		report.Bytes(float64(opts.PartSize)), opts.PartConcurrency)
	return nil
}
