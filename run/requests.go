package run

import (
	"slices"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
	"github.com/objbench/objbench/workload"
)

// describeRequests records in the target what each stream's S3 requests
// carried (checksums, conditions, encryption...): a stream with options
// gets a line, and Checksums names the uploads' checksums ("none" when
// no stream sends one). An SSE-C key is never described, only its use.
func describeRequests(t *result.Target, sp workload.Spec) {
	if t.Kind != "s3" {
		return
	}
	var sums []string
	for _, st := range sp.Stages {
		for _, s := range st.Streams {
			o := s.S3
			if o.IsZero() {
				continue
			}
			c, _ := storage.ParseChecksum(o.Checksum)
			put := storage.PutOptions{Checksum: c, ChecksumTrailer: o.ChecksumTrailer, IfNoneMatch: o.IfNoneMatch,
				Tagging: o.Tagging(), Metadata: o.Metadata, StorageClass: o.StorageClass}
			if mode, _, _, err := o.SSEMode(); err == nil && mode != "" {
				put.Encryption = &storage.Encryption{Mode: mode}
			}
			line := st.Name + "/" + s.Name + ": " + o.String()
			if d := s3.DescribeUpload(put); d != "" {
				line += "; uploads: " + d
			}
			if !slices.Contains(t.Requests, line) {
				t.Requests = append(t.Requests, line)
			}
			if d := s3.DescribeUpload(storage.PutOptions{Checksum: c, ChecksumTrailer: o.ChecksumTrailer}); d != "" && !slices.Contains(sums, d) {
				sums = append(sums, d)
			}
		}
	}
	if len(sums) > 0 {
		t.Checksums = sums[0]
		for _, x := range sums[1:] {
			t.Checksums += "; " + x
		}
	}
}
