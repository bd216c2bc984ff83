package workload

import (
	"fmt"
	"net/url"
	"sort"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/objbench/objbench/storage"
)

// S3Options are a stream's S3 request options: what each op sends beyond
// a plain request. The zero value is a plain request. Flags set them on
// the op commands (--checksum, --sse...); a workload file's stream has an
// `s3:` block with the same names.
type S3Options struct {
	// Checksum is the algorithm uploads carry (crc32, crc32c, crc64nvme,
	// sha1, sha256, md5), in a header, or with ChecksumTrailer after the
	// body (aws-chunked, the AWS SDKs' default).
	Checksum        string `json:"checksum,omitempty"`
	ChecksumTrailer bool   `json:"checksum_trailer,omitempty"`
	// VerifyChecksum has GETs ask for the stored checksum and check the
	// body against it (a mismatch counts as a checksum error).
	VerifyChecksum bool `json:"verify_checksum,omitempty"`
	// IfNoneMatch "*" makes PUTs create-only: a key that exists answers
	// 412, counted as the outcome precondition_failed.
	IfNoneMatch string `json:"if_none_match,omitempty"`
	// ConditionalGet sends GETs If-None-Match with the ETag this run's
	// write of the key returned: an unchanged object answers 304,
	// counted as the outcome not_modified (nothing transferred).
	ConditionalGet bool `json:"conditional_get,omitempty"`
	// SSE is server-side encryption: "s3" (SSE-S3), "kms" or "kms:KEYID"
	// (SSE-KMS), "c:KEYFILE" (SSE-C, the 32-byte key read from KEYFILE,
	// raw or base64; the key itself is never recorded).
	SSE string `json:"sse,omitempty"`
	// Tags and Metadata go with every upload (x-amz-tagging, x-amz-meta-*).
	Tags     map[string]string `json:"tags,omitempty"`
	Metadata map[string]string `json:"metadata,omitempty"`
	// StorageClass is the class uploads ask for.
	StorageClass string `json:"storage_class,omitempty"`
	// Presign has GETs fetch by a presigned URL (signed before the op's
	// clock starts): what a browser or CDN origin fetch costs.
	Presign bool `json:"presign,omitempty"`
	// Versioned says the stream works in a versioned bucket: an init
	// stage that creates a bucket enables versioning on it, GET, STAT and
	// DELETE address the version this run's write made, and cleanup
	// removes every version and delete marker under the run's prefix.
	Versioned bool `json:"versioned,omitempty"`
	// BatchSize is the keys one delete-batch op (DeleteObjects) removes
	// (default and most: 1000).
	BatchSize int `json:"batch_size,omitempty"`
}

// IsZero reports a plain request.
func (o *S3Options) IsZero() bool {
	return o == nil || (o.Checksum == "" && !o.ChecksumTrailer && !o.VerifyChecksum && o.IfNoneMatch == "" && !o.ConditionalGet &&
		o.SSE == "" && len(o.Tags) == 0 && len(o.Metadata) == 0 && o.StorageClass == "" && !o.Presign && !o.Versioned && o.BatchSize == 0)
}

// SSEMode splits SSE into the mode, a KMS key id or an SSE-C key file.
func (o *S3Options) SSEMode() (mode storage.SSE, kmsKey, keyFile string, err error) {
	if o == nil || o.SSE == "" {
		return "", "", "", nil
	}
	kind, arg, _ := strings.Cut(o.SSE, ":")
	switch strings.ToLower(kind) {
	case "s3", "sse-s3", "aes256":
		if arg != "" {
			return "", "", "", fmt.Errorf("sse %q: SSE-S3 takes no key (want s3, kms[:KEYID] or c:KEYFILE)", o.SSE)
		}
		return storage.SSES3, "", "", nil
	case "kms", "sse-kms", "aws:kms":
		return storage.SSEKMS, arg, "", nil
	case "c", "sse-c":
		if arg == "" {
			return "", "", "", fmt.Errorf("sse %q: SSE-C needs the key's file, c:KEYFILE", o.SSE)
		}
		return storage.SSEC, "", arg, nil
	}
	return "", "", "", fmt.Errorf("sse %q: want s3, kms[:KEYID] or c:KEYFILE", o.SSE)
}

// Tagging is Tags as x-amz-tagging takes them ("a=1&b=2", sorted).
func (o *S3Options) Tagging() string {
	if o == nil || len(o.Tags) == 0 {
		return ""
	}
	v := url.Values{}
	for k, x := range o.Tags {
		v.Set(k, x)
	}
	return v.Encode()
}

// String names the options that are set, for plans and reports
// ("checksum crc32c trailer, sse kms:key-1, tags 2"); the SSE-C key's
// file is named, never the key.
func (o *S3Options) String() string {
	if o.IsZero() {
		return ""
	}
	var parts []string
	if o.Checksum != "" {
		c := "checksum " + o.Checksum
		if o.ChecksumTrailer {
			c += " trailer"
		}
		parts = append(parts, c)
	}
	add := func(on bool, s string) {
		if on {
			parts = append(parts, s)
		}
	}
	add(o.VerifyChecksum, "verify-checksum")
	add(o.IfNoneMatch != "", "if-none-match "+o.IfNoneMatch)
	add(o.ConditionalGet, "conditional-get")
	add(o.SSE != "", "sse "+o.SSE)
	add(len(o.Tags) > 0, "tags "+o.Tagging())
	if len(o.Metadata) > 0 {
		keys := make([]string, 0, len(o.Metadata))
		for k := range o.Metadata {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts = append(parts, "meta "+strings.Join(keys, ","))
	}
	add(o.StorageClass != "", "storage-class "+o.StorageClass)
	add(o.Presign, "presign")
	add(o.Versioned, "versioned")
	add(o.BatchSize > 0, fmt.Sprintf("batch %d", o.BatchSize))
	return strings.Join(parts, ", ")
}

// validate lists the options' problems.
func (o *S3Options) validate(p *problems, at Pos, where string) {
	if o == nil {
		return
	}
	c, err := storage.ParseChecksum(o.Checksum)
	switch {
	case err != nil:
		p.add(at, where, "s3 checksum: %v", err)
	case o.ChecksumTrailer && c == "":
		p.add(at, where, "s3 checksum_trailer needs a checksum (crc32c...)")
	case o.ChecksumTrailer && c == storage.ChecksumMD5:
		p.add(at, where, "s3 checksum md5 travels as Content-MD5, a header: not as a trailer")
	}
	if o.IfNoneMatch != "" && o.IfNoneMatch != "*" {
		p.add(at, where, "s3 if_none_match %q: S3 takes only \"*\" on a PUT (create only)", o.IfNoneMatch)
	}
	if _, _, _, err := o.SSEMode(); err != nil {
		p.add(at, where, "s3 %v", err)
	}
	if o.BatchSize < 0 || o.BatchSize > storage.MaxBatchDelete {
		p.add(at, where, "s3 batch_size %d: want 1 to %d", o.BatchSize, storage.MaxBatchDelete)
	}
	if o.Presign && o.ConditionalGet {
		p.add(at, where, "s3 presign and conditional_get: a presigned GET here sends no conditions; pick one")
	}
}

var s3Fields = []string{"checksum", "checksum_trailer", "verify_checksum", "if_none_match", "conditional_get", "sse", "tags", "metadata",
	"storage_class", "presign", "versioned", "batch_size"}

// s3options reads a stream's `s3:` block.
func (d *ydec) s3options(n *yaml.Node) *S3Options {
	f := d.fields(n, "s3", s3Fields...)
	o := &S3Options{}
	str := func(k string, dst *string) {
		if v, ok := f[k]; ok {
			*dst, _ = d.scalar(v, k)
		}
	}
	flag := func(k string, dst *bool) {
		if v, ok := f[k]; ok {
			*dst, _ = one(d, v, k, parseBool)
		}
	}
	str("checksum", &o.Checksum)
	str("if_none_match", &o.IfNoneMatch)
	str("sse", &o.SSE)
	str("storage_class", &o.StorageClass)
	flag("checksum_trailer", &o.ChecksumTrailer)
	flag("verify_checksum", &o.VerifyChecksum)
	flag("conditional_get", &o.ConditionalGet)
	flag("presign", &o.Presign)
	flag("versioned", &o.Versioned)
	if v, ok := f["batch_size"]; ok {
		n64, _ := one(d, v, "batch_size", parsePositive)
		o.BatchSize = int(min(n64, 1<<30))
	}
	// checksum: crc32c/trailer is the trailer form in one word.
	if c, form, ok := strings.Cut(o.Checksum, "/"); ok && form == "trailer" {
		o.Checksum, o.ChecksumTrailer = c, true
	}
	o.Tags = d.stringMap(f["tags"], "tags")
	o.Metadata = d.stringMap(f["metadata"], "metadata")
	return o
}

// stringMap reads a mapping of names to single values.
func (d *ydec) stringMap(n *yaml.Node, what string) map[string]string {
	n = resolve(n)
	if n == nil {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		d.fail(n, "%s must be a mapping of names to values", what)
		return nil
	}
	out := map[string]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), n.Content[i+1]
		if s, ok := d.scalar(v, what+" "+k.Value); ok {
			out[k.Value] = s
		}
	}
	return out
}

// storageConnections reads how a storage's connections are made.
func (d *ydec) storageConnections(f map[string]*yaml.Node, st *Storage) {
	if v, ok := f["keepalive"]; ok {
		if b, ok := one(d, v, "keepalive", parseBool); ok {
			st.KeepAlive = &b
		}
	}
	if v, ok := f["max_conns_per_host"]; ok {
		n, _ := one(d, v, "max_conns_per_host", parsePositive)
		st.MaxConnsPerHost = int(min(n, 1<<20))
	}
	if v, ok := f["ca_bundle"]; ok {
		st.CABundle, _ = d.scalar(v, "ca_bundle")
	}
	if v, ok := f["insecure"]; ok {
		st.Insecure, _ = one(d, v, "insecure", parseBool)
	}
	if v, ok := f["tls_resumption"]; ok {
		if b, ok := one(d, v, "tls_resumption", parseBool); ok {
			st.NoTLSResumption = !b
		}
	}
}

// Connections describes how the storage's connections are made ("" the
// defaults).
func (s *Storage) Connections() string {
	var parts []string
	if s.KeepAlive != nil && !*s.KeepAlive {
		parts = append(parts, "a new connection per request (keepalive off)")
	}
	if s.MaxConnsPerHost > 0 {
		parts = append(parts, fmt.Sprintf("at most %d connections to the host", s.MaxConnsPerHost))
	}
	if s.CABundle != "" {
		parts = append(parts, "CA bundle "+s.CABundle)
	}
	if s.Insecure {
		parts = append(parts, "TLS certificates not verified (insecure)")
	}
	if s.NoTLSResumption {
		parts = append(parts, "no TLS session resumption")
	}
	return strings.Join(parts, ", ")
}

// validateS3Ops lists what the stream's mix and S3 options cannot do
// together.
func (s Stream) validateS3Ops(p *problems, where string) {
	ranged := s.RangeSize > 0 || (s.Sweep != nil && len(s.Sweep.RangeSizes) > 0)
	for _, m := range s.Mix {
		op, _ := CanonicalOp(m.Op)
		ranged = ranged || op == OpRangeGet
		if op == OpCAS && s.Data.Verify {
			p.add(s.Pos, where, "cas writes fresh bytes each time (so that a lost swap shows), which reads cannot verify: not with verify")
		}
	}
	if s.S3 != nil && s.S3.VerifyChecksum && ranged {
		p.add(s.Pos, where, "s3 verify_checksum checks whole objects: not with ranged reads (range_size, range-get)")
	}
}

// Versioned reports whether some stream works in a versioned bucket.
func (sp Spec) Versioned() bool {
	for _, st := range sp.Stages {
		for _, s := range st.Streams {
			if s.S3 != nil && s.S3.Versioned {
				return true
			}
		}
	}
	return false
}
