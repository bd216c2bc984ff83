package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/atomicfile"
	"github.com/objbench/objbench/probe"
)

type probeOptions struct {
	target targetOptions
	out    string
	only   []string
}

func newProbeCommand(env Env) *cobra.Command {
	o := &probeOptions{}
	cmd := &cobra.Command{
		Use:   "probe [flags]",
		Short: "Ask an S3 store, in seconds, what it supports and how it behaves (a table, and JSON)",
		Long: `probe asks an S3 store what it supports and how it behaves, in a few
seconds: addressing styles, TLS versions, ListObjects v1 and v2 and their
pages, key order, multipart uploads and their minimum part size, ETag
forms, checksum algorithms (in a header, in an aws-chunked trailer, read
back, multipart composite and full-object), conditional writes and
reads, versioning, object lock, tagging, SSE-S3, SSE-KMS and SSE-C,
DeleteObjects, CopyObject and UploadPartCopy, presigned URLs, 503 SlowDown
answers seen and the clock's skew. It prints one line per feature (yes, no, differs from S3, info, or
not checked and why) and writes the same as JSON (--out).

It writes only objects of its own, under objbench-probe-RANDOM/ in the
bucket given with --bucket (which must exist), or, without --bucket, in a
bucket objbench-probe-RANDOM that it creates and removes. It deletes
exactly the keys it wrote and says if any is left. It changes a bucket's
settings (versioning) only in a bucket it created, so versioning is fully
checked only then. With no endpoint it probes the embedded server.`,
		Example: `  objbench probe --endpoint-url http://127.0.0.1:9000
  objbench probe --endpoint-url https://s3.example.com --bucket bench --out store.json
  objbench probe --endpoint-url http://127.0.0.1:7480 --only checksum,conditional`,
		Args: noArgs(),
		RunE: func(cmd *cobra.Command, _ []string) error { return runProbe(cmd.Context(), env, o) },
	}
	f := cmd.Flags()
	o.target.register(f)
	f.StringVar(&o.out, "out", "objbench-probe.json", "write the findings as JSON to this file ('-': none)")
	f.StringSliceVar(&o.only, "only", nil, "probe only these features or groups (checksum, conditional, multipart, list, sse, ...)")
	return cmd
}

func runProbe(ctx context.Context, env Env, o *probeOptions) error {
	if o.target.createBucket {
		return usagef("probe creates its own bucket (and removes it) when --bucket is not given; --create-bucket is not for probe")
	}
	if o.target.target != "" && !strings.HasPrefix(o.target.target, "s3://") {
		return usagef("probe asks S3 stores: --target %s is not s3://BUCKET", o.target.target)
	}
	for _, f := range o.only {
		if !probe.Known(f) {
			return usagef("--only %s: no such feature or group (groups: %s)", f, strings.Join(probe.Groups(), ", "))
		}
	}
	if o.out != "-" {
		if err := atomicfile.Check(o.out); err != nil {
			return usagef("--out: %v", err)
		}
	}
	ep, _ := envEndpoint(env)
	own := o.target.bucket == "" && o.target.target == "" && (o.target.endpoint != "" || ep != "")
	t := o.target
	if own {
		t.bucket, t.lazyBucket = "objbench-probe-"+randomSuffix(), true
	}
	tgt, err := t.open(ctx, env, 8, notes(env, false))
	if err != nil {
		return err
	}
	defer func() { _ = tgt.Close(context.WithoutCancel(ctx)) }()
	c, ok := tgt.S3Config()
	if !ok {
		return usagef("probe asks S3 stores; this target is not one")
	}
	rep, err := probe.Run(ctx, c, probe.Options{CreateBucket: own, Only: o.only})
	if rep != nil {
		if werr := probe.WriteTable(env.Stdout, rep); werr != nil {
			return werr
		}
		if werr := writeProbeJSON(o.out, rep); werr != nil {
			return werr
		}
		if o.out != "-" {
			fmt.Fprintf(env.Stderr, "objbench: findings: %s\n", o.out)
		}
	}
	return err
}

func writeProbeJSON(path string, rep *probe.Report) error {
	if path == "-" {
		return nil
	}
	return atomicfile.Write(path, 0o644, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	})
}

func randomSuffix() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}
