package s3

import (
	"crypto/md5" //nolint:gosec // SSE-C's key digest is MD5 by protocol
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/objbench/objbench/storage"
)

const (
	hSSE          = "X-Amz-Server-Side-Encryption"
	hSSEKMSKey    = "X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id"
	hSSECAlgo     = "X-Amz-Server-Side-Encryption-Customer-Algorithm"
	hSSECKey      = "X-Amz-Server-Side-Encryption-Customer-Key"
	hSSECKeyMD5   = "X-Amz-Server-Side-Encryption-Customer-Key-Md5"
	hTagging      = "X-Amz-Tagging"
	hTaggingCount = "X-Amz-Tagging-Count"
	hStorageClass = "X-Amz-Storage-Class"
	metaPrefix    = "X-Amz-Meta-"
)

var errCustomerKey = errors.New("s3: an SSE-C key is 32 bytes (AES-256)")

// hasObjectHeaders says whether o asks for anything setObjectHeaders sets,
// so a plain PUT skips it.
func hasObjectHeaders(o *storage.PutOptions) bool {
	return o.Encryption != nil || o.Tagging != "" || len(o.Metadata) > 0 || o.StorageClass != ""
}

// setObjectHeaders puts a write's object attributes on h: encryption,
// tags, user metadata, storage class.
func setObjectHeaders(h http.Header, o *storage.PutOptions) error {
	if err := setEncryption(h, o.Encryption, true); err != nil {
		return err
	}
	if o.Tagging != "" {
		h[hTagging] = []string{o.Tagging}
	}
	for k, v := range o.Metadata {
		h[http.CanonicalHeaderKey(metaPrefix+k)] = []string{v}
	}
	if o.StorageClass != "" {
		h[hStorageClass] = []string{o.StorageClass}
	}
	return nil
}

// setEncryption sets e's headers: on a write, the mode (and KMS key); on
// a write or a read, an SSE-C key.
func setEncryption(h http.Header, e *storage.Encryption, write bool) error {
	if e == nil {
		return nil
	}
	switch e.Mode {
	case storage.SSES3, storage.SSEKMS:
		if write {
			h[hSSE] = []string{string(e.Mode)}
			if e.Mode == storage.SSEKMS && e.KMSKeyID != "" {
				h[hSSEKMSKey] = []string{e.KMSKeyID}
			}
		}
	case storage.SSEC:
		if len(e.CustomerKey) != 32 {
			return errCustomerKey
		}
		sum := md5.Sum(e.CustomerKey) //nolint:gosec // by protocol
		h[hSSECAlgo] = []string{"AES256"}
		h[hSSECKey] = []string{base64.StdEncoding.EncodeToString(e.CustomerKey)}
		h[hSSECKeyMD5] = []string{base64.StdEncoding.EncodeToString(sum[:])}
	case "":
	default:
		return fmt.Errorf("s3: unknown server-side encryption %q", e.Mode)
	}
	return nil
}

// confirmEncryption checks a write's answer says the object is encrypted
// as asked: a target that ignores the headers says nothing.
func confirmEncryption(h http.Header, e *storage.Encryption) error {
	if e == nil || e.Mode == "" {
		return nil
	}
	got := headerValue(h, hSSE)
	if e.Mode == storage.SSEC {
		got = headerValue(h, hSSECAlgo)
	}
	if got == "" {
		return fmt.Errorf("%w: the target answered without saying the object is encrypted (%s)", storage.ErrNotImplemented, e.Mode)
	}
	return nil
}

// details is what a HEAD's answer says of the object beyond ObjectInfo.
func details(h http.Header) storage.ObjectDetails {
	d := storage.ObjectDetails{
		Encryption:   storage.SSE(headerValue(h, hSSE)),
		KMSKeyID:     headerValue(h, hSSEKMSKey),
		StorageClass: headerValue(h, hStorageClass),
	}
	if headerValue(h, hSSECAlgo) != "" {
		d.Encryption = storage.SSEC
	}
	d.TagCount, _ = strconv.Atoi(headerValue(h, hTaggingCount))
	for k, v := range h {
		if len(k) > len(metaPrefix) && strings.EqualFold(k[:len(metaPrefix)], metaPrefix) && len(v) > 0 {
			if d.Metadata == nil {
				d.Metadata = map[string]string{}
			}
			d.Metadata[strings.ToLower(k[len(metaPrefix):])] = v[0]
		}
	}
	return d
}
