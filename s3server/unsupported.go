package s3server

import (
	"net/http"
	"strings"
)

// droppedHeaders are request headers whose meaning the embedded server
// does not implement and would otherwise drop silently: a client asking
// for encryption, tags or a storage class must not be told the object
// has them. Checked by exact canonical name (no allocation per request).
func droppedHeaders() [6]string {
	return [...]string{
		"X-Amz-Server-Side-Encryption",
		"X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id",
		"X-Amz-Server-Side-Encryption-Customer-Algorithm",
		"X-Amz-Copy-Source-Server-Side-Encryption-Customer-Algorithm",
		"X-Amz-Tagging",
		"X-Amz-Storage-Class",
	}
}

// unsupported names the first header of r the server would drop, or "".
// STANDARD, the class every object has here, is accepted. gofakes3's
// copy ignores a source version and merges metadata it was told to
// replace, and its part upload does not copy: those are refused too.
func unsupported(r *http.Request) string {
	if src, ok := r.Header["X-Amz-Copy-Source"]; ok {
		switch {
		case len(src) == 1 && strings.Contains(src[0], "versionId="):
			return "x-amz-copy-source with a versionId"
		case r.URL.Query().Has("partNumber"):
			return "x-amz-copy-source on a part upload (UploadPartCopy)"
		case len(r.Header["X-Amz-Metadata-Directive"]) == 1 && strings.EqualFold(r.Header["X-Amz-Metadata-Directive"][0], "REPLACE"):
			return "x-amz-metadata-directive REPLACE"
		}
	}
	for _, name := range droppedHeaders() {
		v, ok := r.Header[name]
		if !ok {
			continue
		}
		if name == "X-Amz-Storage-Class" && len(v) == 1 && strings.EqualFold(v[0], "STANDARD") {
			continue
		}
		return strings.ToLower(name)
	}
	return ""
}
