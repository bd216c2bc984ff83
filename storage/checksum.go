package storage

import (
	"fmt"
	"strings"
)

// Checksum names an algorithm a store computes over an upload's payload
// and the target verifies (S3's flexible checksums), or "" for none.
type Checksum string

// The checksums S3 defines. MD5 travels as Content-MD5, the others as
// x-amz-checksum-<name>.
const (
	ChecksumCRC32     Checksum = "crc32"
	ChecksumCRC32C    Checksum = "crc32c"
	ChecksumCRC64NVME Checksum = "crc64nvme"
	ChecksumSHA1      Checksum = "sha1"
	ChecksumSHA256    Checksum = "sha256"
	ChecksumMD5       Checksum = "md5"
)

// Checksums lists every algorithm, in the order the help text names them.
func Checksums() []Checksum {
	return []Checksum{ChecksumCRC32, ChecksumCRC32C, ChecksumCRC64NVME, ChecksumSHA1, ChecksumSHA256, ChecksumMD5}
}

// ParseChecksum reads an algorithm's name (any case; "" and "none" are no
// checksum).
func ParseChecksum(s string) (Checksum, error) {
	l := strings.ToLower(strings.TrimSpace(s))
	if l == "" || l == "none" {
		return "", nil
	}
	for _, c := range Checksums() {
		if string(c) == l {
			return c, nil
		}
	}
	return "", fmt.Errorf("unknown checksum %q (want one of crc32, crc32c, crc64nvme, sha1, sha256, md5, or none)", s)
}
