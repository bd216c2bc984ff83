package s3server

import (
	"net/http"
	"strings"
)

// headerRule refuses a request header whose meaning the server does not
// implement and would otherwise drop silently: a client asking for
// encryption, a lock or a grant must not be told the object has it.
type headerRule struct {
	name string // canonical, so the check is a map lookup without allocation
	// ok, when set, accepts the values it returns true for.
	ok func(v string) bool
	// refuse answers a header that is not accepted; nil: 501 naming it.
	refuse *refusal
}

// aclNotSupported is S3's answer to ACLs on a bucket whose objects belong
// to the bucket owner (ObjectOwnership BucketOwnerEnforced, the default
// for new buckets since April 2023): only the ACLs that change nothing.
var aclNotSupported = &refusal{http.StatusBadRequest, "AccessControlListNotSupported", "The bucket does not allow ACLs"}

func ownerOnlyACL(v string) bool {
	return strings.EqualFold(v, "private") || strings.EqualFold(v, "bucket-owner-full-control")
}

// headerRules are checked on every request that names an operation,
// keyed by canonical name: a request's headers are looked up in it.
func headerRules() map[string]headerRule {
	noLock := &refusal{http.StatusBadRequest, "InvalidRequest", "Bucket is missing Object Lock Configuration"}
	rules := []headerRule{
		{name: "X-Amz-Server-Side-Encryption"},
		{name: "X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id"},
		{name: "X-Amz-Server-Side-Encryption-Context"},
		{name: "X-Amz-Server-Side-Encryption-Bucket-Key-Enabled"},
		{name: "X-Amz-Server-Side-Encryption-Customer-Algorithm"},
		{name: "X-Amz-Server-Side-Encryption-Customer-Key"},
		{name: "X-Amz-Server-Side-Encryption-Customer-Key-Md5"},
		{name: "X-Amz-Copy-Source-Server-Side-Encryption-Customer-Algorithm"},
		{name: "X-Amz-Copy-Source-Server-Side-Encryption-Customer-Key"},
		{name: "X-Amz-Copy-Source-Server-Side-Encryption-Customer-Key-Md5"},
		{name: "X-Amz-Copy-Source-If-Match"},
		{name: "X-Amz-Copy-Source-If-None-Match"},
		{name: "X-Amz-Copy-Source-If-Modified-Since"},
		{name: "X-Amz-Copy-Source-If-Unmodified-Since"},
		{name: "X-Amz-Copy-Source-Range"},
		{name: "X-Amz-Tagging"},
		{name: "X-Amz-Tagging-Directive", ok: func(v string) bool { return strings.EqualFold(v, "COPY") }},
		{name: "X-Amz-Storage-Class", ok: func(v string) bool { return strings.EqualFold(v, "STANDARD") }},
		{name: "X-Amz-Website-Redirect-Location"},
		{name: "X-Amz-Write-Offset-Bytes"},
		{name: "X-Amz-Mfa"},
		{name: "X-Amz-If-Match-Last-Modified-Time"},
		{name: "X-Amz-If-Match-Size"},
		{name: "X-Amz-Bucket-Object-Lock-Enabled", ok: func(v string) bool { return strings.EqualFold(v, "false") }},
		{name: "X-Amz-Object-Ownership", ok: func(v string) bool { return v == "BucketOwnerEnforced" }},
		{name: "X-Amz-Object-Lock-Mode", refuse: noLock},
		{name: "X-Amz-Object-Lock-Retain-Until-Date", refuse: noLock},
		{name: "X-Amz-Object-Lock-Legal-Hold", refuse: noLock},
		{name: "X-Amz-Acl", ok: ownerOnlyACL, refuse: aclNotSupported},
		{name: "X-Amz-Grant-Full-Control", refuse: aclNotSupported},
		{name: "X-Amz-Grant-Read", refuse: aclNotSupported},
		{name: "X-Amz-Grant-Read-Acp", refuse: aclNotSupported},
		{name: "X-Amz-Grant-Write", refuse: aclNotSupported},
		{name: "X-Amz-Grant-Write-Acp", refuse: aclNotSupported},
	}
	m := make(map[string]headerRule, len(rules))
	for _, r := range rules {
		m[r.name] = r
	}
	return m
}

// unsupported says why r, which asks for operation op, is refused for its
// headers, or nil. gofakes3's copy ignores a source version and merges
// metadata it was told to replace, and its part upload does not copy:
// those are refused too.
func (rt *router) unsupported(r *http.Request, op string) *refusal {
	if src, ok := r.Header["X-Amz-Copy-Source"]; ok {
		switch {
		case op == "UploadPart":
			return notImplemented("x-amz-copy-source on a part upload (UploadPartCopy)")
		case op != "PutObject":
			return notImplemented("x-amz-copy-source on " + op)
		case len(src) == 1 && strings.Contains(src[0], "versionId="):
			return notImplemented("x-amz-copy-source with a versionId")
		case len(r.Header["X-Amz-Metadata-Directive"]) == 1 && strings.EqualFold(r.Header["X-Amz-Metadata-Directive"][0], "REPLACE"):
			return notImplemented("x-amz-metadata-directive REPLACE")
		}
	}
	if _, ok := r.Header["If-Match"]; ok && op != "GetObject" && op != "HeadObject" && op != "PutObject" {
		return notImplemented("If-Match on " + op)
	}
	if _, ok := r.Header["If-None-Match"]; ok && op != "GetObject" && op != "HeadObject" && op != "PutObject" {
		return notImplemented("If-None-Match on " + op)
	}
	for name, v := range r.Header {
		rule, ok := rt.headers[name]
		if !ok || (rule.ok != nil && len(v) == 1 && rule.ok(v[0])) {
			continue
		}
		if rule.refuse != nil {
			return rule.refuse
		}
		return notImplemented("the header " + strings.ToLower(rule.name))
	}
	return nil
}
