package s3server

import (
	"crypto/md5"
	"crypto/subtle"
	"encoding/base64"
	"maps"
	"net/http"
	"strings"
)

// Server-side encryption, as far as a client can tell: SSE-S3 (AES256)
// and SSE-KMS (aws:kms, aws:kms:dsse) are accepted, kept and echoed as S3
// echoes them; SSE-C (a customer key) is checked as S3 checks it (AES256,
// a 256-bit key, its MD5), only the key's MD5 is kept, and every read of
// the object (GET, HEAD, a copy, a part upload) must bring the same key.
// The bytes are not encrypted: the server measures, it keeps no secrets.
// The key itself is never stored or logged.

// sseHeaders are the encryption headers an object keeps and echoes.
var sseHeaders = [...]string{
	"X-Amz-Server-Side-Encryption", "X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id",
	"X-Amz-Server-Side-Encryption-Context", "X-Amz-Server-Side-Encryption-Bucket-Key-Enabled",
	"X-Amz-Server-Side-Encryption-Customer-Algorithm", "X-Amz-Server-Side-Encryption-Customer-Key-Md5",
}

// customerKey reads the SSE-C headers (prefix "X-Amz-" or, for a copy's
// source, "X-Amz-Copy-Source-"): the key's MD5, "" without SSE-C.
func customerKey(h http.Header, prefix string) (string, error) {
	alg := h.Get(prefix + "Server-Side-Encryption-Customer-Algorithm")
	key := h.Get(prefix + "Server-Side-Encryption-Customer-Key")
	sum := h.Get(prefix + "Server-Side-Encryption-Customer-Key-Md5")
	switch {
	case alg == "" && key == "" && sum == "":
		return "", nil
	case alg == "":
		return "", errInvalidArgument("Requests specifying Server Side Encryption with Customer provided keys must provide a valid encryption algorithm.")
	case alg != "AES256":
		return "", errorf(http.StatusBadRequest, "InvalidEncryptionAlgorithmError", "The Encryption request you specified is not valid. Supported value: AES256.")
	case key == "":
		return "", errInvalidArgument("Requests specifying Server Side Encryption with Customer provided keys must provide an appropriate secret key.")
	case sum == "":
		return "", errInvalidArgument("Requests specifying Server Side Encryption with Customer provided keys must provide the client calculated MD5 of the secret key.")
	}
	raw, err := base64.StdEncoding.DecodeString(key)
	if err != nil || len(raw) != 32 {
		return "", errInvalidArgument("The secret key was invalid for the specified algorithm.")
	}
	got := md5.Sum(raw)
	if subtle.ConstantTimeCompare([]byte(base64.StdEncoding.EncodeToString(got[:])), []byte(sum)) != 1 {
		return "", errInvalidArgument("The calculated MD5 hash of the key did not match the hash that was provided.")
	}
	return sum, nil
}

// setSSE sets the encryption a write asks for (its headers replace any
// the attributes had from a copy's source).
func (a *attrs) setSSE(h http.Header) error {
	sse := h.Get("X-Amz-Server-Side-Encryption")
	keyMD5, err := customerKey(h, "X-Amz-")
	if err != nil {
		return err
	}
	switch {
	case sse != "" && keyMD5 != "":
		return errInvalidArgument("Server Side Encryption with Customer provided key is incompatible with the encryption method specified")
	case sse != "" && sse != "AES256" && sse != "aws:kms" && sse != "aws:kms:dsse":
		return errInvalidArgument("The encryption method specified is not supported")
	case !strings.HasPrefix(sse, "aws:kms") && h.Get("X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id") != "":
		return errInvalidArgument("Server Side Encryption with AWS KMS managed key requires HTTP header x-amz-server-side-encryption : aws:kms")
	}
	if sse == "" && keyMD5 == "" && a.sseKey == "" && a.headers["X-Amz-Server-Side-Encryption"] == "" {
		return nil // the common case: nothing to change, nothing to copy
	}
	headers := maps.Clone(a.headers)
	for _, k := range sseHeaders {
		delete(headers, k)
	}
	a.sseKey = keyMD5
	if keyMD5 != "" {
		headers["X-Amz-Server-Side-Encryption-Customer-Algorithm"] = "AES256"
		headers["X-Amz-Server-Side-Encryption-Customer-Key-Md5"] = keyMD5
	}
	if sse != "" {
		for _, k := range sseHeaders[:4] {
			if v := h.Get(k); v != "" {
				headers[k] = v
			}
		}
	}
	a.headers = headers
	return nil
}

// checkSSEKey checks that a read of an object with attributes a brings
// the key it was written with, and none for one written without.
func checkSSEKey(h http.Header, a *attrs, copySource bool) error {
	prefix := "X-Amz-"
	if copySource {
		prefix = "X-Amz-Copy-Source-"
	}
	keyMD5, err := customerKey(h, prefix)
	switch {
	case err != nil:
		return err
	case a.sseKey == "" && keyMD5 != "":
		return errInvalidRequest("The encryption parameters are not applicable to this object.")
	case a.sseKey != "" && keyMD5 == "":
		return errInvalidRequest("The object was stored using a form of Server Side Encryption. The correct parameters must be provided to retrieve the object.")
	case a.sseKey != "" && subtle.ConstantTimeCompare([]byte(a.sseKey), []byte(keyMD5)) != 1:
		return errorf(http.StatusForbidden, "AccessDenied", "Access Denied")
	}
	return nil
}

// setSSEHeaders echoes an object's encryption headers.
func setSSEHeaders(h http.Header, a *attrs) {
	for _, k := range sseHeaders {
		if v, ok := a.headers[k]; ok {
			h[k] = []string{v}
		}
	}
}
