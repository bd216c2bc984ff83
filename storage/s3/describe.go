package s3

import (
	"net/url"
	"strings"

	"github.com/objbench/objbench/storage"
)

// Options says how a Store sends its requests, for a result file to
// record beside the numbers.
type Options struct {
	Endpoint   string // scheme://host[:port] (with virtual-host addressing the bucket goes before host)
	Bucket     string
	Region     string
	Addressing string // "virtual" (bucket.host/key) or "path" (host/bucket/key)
	HTTPClient string // "direct" or "std"
	// Signing is how plain requests are signed.
	Signing string
	// TLS is "" over http, else how the server's certificate is checked:
	// "verified (system roots)", "verified (CA bundle FILE)" or
	// "not verified (insecure)".
	TLS             string
	TLSResumption   bool
	KeepAlive       bool
	MaxConnsPerHost int // 0: no cap
}

func describe(c Config, s *Store, ep *url.URL) Options {
	o := Options{
		Endpoint:        ep.Scheme + "://" + stripDefaultPort(ep.Scheme, ep.Host),
		Bucket:          s.bucket,
		Region:          s.region,
		Addressing:      "path",
		HTTPClient:      s.client,
		Signing:         "SigV4 " + unsignedPayload + " (Authorization header)",
		KeepAlive:       !c.NoKeepAlive,
		MaxConnsPerHost: c.MaxConnsPerHost,
	}
	if s.pathPrefix == "/" {
		o.Addressing = "virtual"
	}
	if ep.Scheme == "https" {
		o.TLSResumption = !c.NoTLSResumption
		switch {
		case c.Insecure:
			o.TLS = "not verified (insecure)"
		case c.CABundle != "":
			o.TLS = "verified (CA bundle " + c.CABundle + ")"
		default:
			o.TLS = "verified (system roots)"
		}
	}
	return o
}

// Options says how the store sends its requests.
func (s *Store) Options() Options { return s.opts }

// DescribeUpload says how an upload with o is checksummed and signed,
// for the result file: "" for a plain one, e.g. "crc32c trailer
// (aws-chunked, STREAMING-UNSIGNED-PAYLOAD-TRAILER)", "sha256 header",
// "md5 Content-MD5", with encryption, tags, metadata, class and
// conditions appended.
func DescribeUpload(o storage.PutOptions) string {
	var parts []string
	switch {
	case o.Checksum == storage.ChecksumMD5:
		parts = append(parts, "md5 Content-MD5")
	case o.Checksum != "" && o.ChecksumTrailer:
		parts = append(parts, string(o.Checksum)+" trailer (aws-chunked, "+streamingTrailer+")")
	case o.Checksum != "":
		parts = append(parts, string(o.Checksum)+" header")
	}
	if e := o.Encryption; e != nil && e.Mode != "" {
		parts = append(parts, "SSE "+string(e.Mode))
	}
	if o.Tagging != "" {
		parts = append(parts, "tagged")
	}
	if len(o.Metadata) > 0 {
		parts = append(parts, "user metadata")
	}
	if o.StorageClass != "" {
		parts = append(parts, "class "+o.StorageClass)
	}
	if o.IfNoneMatch != "" || o.IfMatch != "" {
		parts = append(parts, "conditional")
	}
	return strings.Join(parts, ", ")
}
