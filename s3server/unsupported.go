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
// STANDARD, the class every object has here, is accepted.
func unsupported(r *http.Request) string {
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
