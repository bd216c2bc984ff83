package probe

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
	"github.com/objbench/objbench/workload"
)

// Needs names the features a workload asks of its store beyond plain
// requests (its ops and S3 options), as the probe calls them, sorted.
func Needs(sp workload.Spec) []string {
	set := map[string]bool{}
	for _, st := range sp.Stages {
		for _, s := range st.Streams {
			for _, m := range s.Mix {
				switch op, _ := workload.CanonicalOp(m.Op); op {
				case workload.OpMultipart:
					set["multipart"] = true
				case workload.OpCopy:
					set["copy-object"] = true
				case workload.OpPartCopy:
					set["upload-part-copy"] = true
				case workload.OpDeleteBatch:
					set["delete-objects"] = true
				case workload.OpListVersions:
					set["versioning"] = true
				case workload.OpCAS:
					set["conditional.put.if-match"] = true
				}
			}
			optionNeeds(s.S3, set)
		}
	}
	var out []string
	for k := range set {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func optionNeeds(o *workload.S3Options, set map[string]bool) {
	if o.IsZero() {
		return
	}
	if o.Checksum != "" {
		c, err := storage.ParseChecksum(o.Checksum)
		if err == nil && c != "" {
			how := "header"
			if o.ChecksumTrailer {
				how = "trailer"
			}
			set["checksum."+string(c)+"."+how] = true
		}
	}
	set["checksum.get"] = set["checksum.get"] || o.VerifyChecksum
	set["conditional.put.if-none-match"] = set["conditional.put.if-none-match"] || o.IfNoneMatch != ""
	set["conditional.get.if-none-match"] = set["conditional.get.if-none-match"] || o.ConditionalGet
	set["tagging"] = set["tagging"] || len(o.Tags) > 0
	set["presigned-url"] = set["presigned-url"] || o.Presign
	set["versioning"] = set["versioning"] || o.Versioned
	set["delete-objects"] = set["delete-objects"] || o.BatchSize > 0
	if mode, _, _, err := o.SSEMode(); err == nil && mode != "" {
		set[map[storage.SSE]string{storage.SSES3: "sse.s3", storage.SSEKMS: "sse.kms", storage.SSEC: "sse.c"}[mode]] = true
	}
	for k, v := range set {
		if !v {
			delete(set, k)
		}
	}
}

// Lacking probes exactly the features needs names (Needs) and returns a
// line for each the store lacks or does otherwise than S3, for a run to
// warn with before it asks for them. Features the probe could not check
// (an existing bucket's versioning) are not reported.
func Lacking(ctx context.Context, c s3.Config, needs []string) ([]string, error) {
	if len(needs) == 0 {
		return nil, nil
	}
	rep, err := Run(ctx, c, Options{Only: needs})
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, f := range rep.Findings {
		if f.Status == No || f.Status == Differs {
			lines = append(lines, fmt.Sprintf("%s: %s (%s)", f.Feature, verdict(f.Status), strings.TrimSpace(f.Detail)))
		}
	}
	return lines, nil
}

func verdict(s Status) string {
	if s == No {
		return "not supported by this store"
	}
	return "works differently here"
}
