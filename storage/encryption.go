package storage

import (
	"context"
	"fmt"
	"strings"
)

// SSE is a server-side encryption mode.
type SSE string

// The modes S3 defines.
const (
	SSES3  SSE = "AES256"  // keys the service manages (SSE-S3)
	SSEKMS SSE = "aws:kms" // a key in the service's KMS (SSE-KMS)
	SSEC   SSE = "SSE-C"   // a key the client sends with every request (SSE-C)
)

// Encryption asks the target to encrypt an object at rest (on a write),
// or gives the key an SSE-C object is read with (on a read: only
// CustomerKey matters).
type Encryption struct {
	Mode     SSE
	KMSKeyID string // SSE-KMS: the key; "" is the target's default key
	// CustomerKey is SSE-C's 256-bit key, sent with every write and read
	// of the object (and of each of its parts): https only on S3.
	CustomerKey []byte
}

// ParseSSE reads a mode's name: sse-s3 (aes256), sse-kms (aws:kms),
// sse-c; "" and none are no encryption.
func ParseSSE(s string) (SSE, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "none":
		return "", nil
	case "sse-s3", "aes256":
		return SSES3, nil
	case "sse-kms", "aws:kms", "kms":
		return SSEKMS, nil
	case "sse-c":
		return SSEC, nil
	}
	return "", fmt.Errorf("unknown server-side encryption %q (want sse-s3, sse-kms, sse-c or none)", s)
}

// ObjectDetails is what a Stat can say of an object beyond ObjectInfo,
// for a caller that asks (StatOptions.Details).
type ObjectDetails struct {
	Encryption   SSE    // how the target says the object is encrypted ("" not at all)
	KMSKeyID     string // SSE-KMS's key
	StorageClass string // "" is the target's standard class
	// Metadata is the user metadata (x-amz-meta-*), names lower-case
	// without the prefix.
	Metadata map[string]string
	TagCount int // tags the object has
}

// MultipartCreator is implemented by stores whose multipart uploads take
// the options a Put does (encryption, metadata, tags, storage class, the
// checksum algorithm of the parts).
type MultipartCreator interface {
	CreateMultipartWith(ctx context.Context, key string, o PutOptions) (uploadID string, err error)
}
