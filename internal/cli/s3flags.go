package cli

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/workload"
)

// s3Flags are the S3 request options of run and the op commands: what
// each op sends beyond a plain request (workload.S3Options; a workload
// file's streams say it in their s3: block).
type s3Flags struct {
	checksum        string
	checksumTrailer bool
	verifyChecksum  bool
	ifNoneMatch     string
	conditionalGet  bool
	sse             string
	tags            []string
	meta            []string
	storageClass    string
	presign         bool
	versioned       bool
	batch           int
	batchCleanup    bool
}

func (o *s3Flags) register(f *pflag.FlagSet) {
	f.StringVar(&o.checksum, "checksum", "", "uploads carry this checksum for the target to verify: crc32, crc32c, crc64nvme, sha1, sha256 or md5, "+
		"in a header; ALG/trailer (or --checksum-trailer) sends it after the body, aws-chunked, as the AWS SDKs do by default")
	f.BoolVar(&o.checksumTrailer, "checksum-trailer", false, "with --checksum: send it as a trailer (aws-chunked, STREAMING-UNSIGNED-PAYLOAD-TRAILER)")
	f.BoolVar(&o.verifyChecksum, "verify-checksum", false, "GETs ask for the stored checksum and check the body against it (a mismatch counts as a checksum error)")
	f.StringVar(&o.ifNoneMatch, "if-none-match", "", "'*': PUTs create only (If-None-Match: *); a key that exists answers 412, counted as precondition_failed, not a failure")
	f.BoolVar(&o.conditionalGet, "conditional-get", false, "GETs send If-None-Match with the ETag this run's write returned: 304s count as not_modified, not failures")
	f.StringVar(&o.sse, "sse", "", "server-side encryption of uploads: s3 (SSE-S3), kms or kms:KEYID (SSE-KMS), c:KEYFILE (SSE-C, a 32-byte key, raw or base64, never printed)")
	f.StringArrayVar(&o.tags, "tag", nil, "an object tag KEY=VALUE on every upload (repeatable)")
	f.StringArrayVar(&o.meta, "meta", nil, "user metadata KEY=VALUE on every upload, as x-amz-meta-KEY (repeatable)")
	f.StringVar(&o.storageClass, "storage-class", "", "storage class uploads ask for (STANDARD, STANDARD_IA...)")
	f.BoolVar(&o.presign, "presign", false, "GETs fetch by a presigned URL (signed before each op, outside its time): a browser's or CDN origin's fetch")
	f.BoolVar(&o.versioned, "versioned", false, "work in a versioned bucket: GET/HEAD/DELETE address the version this run wrote; cleanup removes every version "+
		"and delete marker under the run's prefix (the bucket must keep versions: an init stage enables it on buckets it creates)")
	f.IntVar(&o.batch, "batch-size", 0, "keys per delete-batch op (DeleteObjects; default and most 1000)")
	f.BoolVar(&o.batchCleanup, "batch-cleanup", false, "cleanup deletes this run's objects with DeleteObjects, 1000 keys a request (single deletes where the target has none)")
}

// options turns the flags into a stream's S3 options (nil: none given);
// the SSE-C key file is checked here, its content never printed.
func (o *s3Flags) options() (*workload.S3Options, error) {
	s := &workload.S3Options{Checksum: o.checksum, ChecksumTrailer: o.checksumTrailer, VerifyChecksum: o.verifyChecksum,
		IfNoneMatch: o.ifNoneMatch, ConditionalGet: o.conditionalGet, SSE: o.sse, StorageClass: o.storageClass,
		Presign: o.presign, Versioned: o.versioned, BatchSize: o.batch}
	if c, form, ok := strings.Cut(s.Checksum, "/"); ok {
		if form != "trailer" {
			return nil, usagef("--checksum %s: want ALG or ALG/trailer", o.checksum)
		}
		s.Checksum, s.ChecksumTrailer = c, true
	}
	var err error
	if s.Tags, err = keyValues("--tag", o.tags); err != nil {
		return nil, err
	}
	if s.Metadata, err = keyValues("--meta", o.meta); err != nil {
		return nil, err
	}
	if s.IsZero() {
		return nil, nil
	}
	if _, _, file, err := s.SSEMode(); err != nil {
		return nil, usagef("--%v", err)
	} else if file != "" {
		if _, err := loadgen.ReadSSECKey(file); err != nil {
			return nil, inputf("--sse: %v", err)
		}
	}
	return s, nil
}

func keyValues(flag string, kvs []string) (map[string]string, error) {
	if len(kvs) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, usagef("%s %q: want KEY=VALUE", flag, kv)
		}
		out[k] = v
	}
	return out, nil
}
