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
	refuse *s3Err
}

// aclNotSupported is S3's answer to ACLs on a bucket whose objects belong
// to the bucket owner (ObjectOwnership BucketOwnerEnforced, the default
// for new buckets since April 2023): only the ACLs that change nothing.
func aclNotSupported() *s3Err {
	return errorf(http.StatusBadRequest, "AccessControlListNotSupported", "The bucket does not allow ACLs")
}

func ownerOnlyACL(v string) bool {
	return strings.EqualFold(v, "private") || strings.EqualFold(v, "bucket-owner-full-control")
}

// readableClass: the storage classes whose objects read at once, which
// the server keeps as a label (S3 answers a GET of a GLACIER or
// DEEP_ARCHIVE object 403 InvalidObjectState until it is restored, which
// is not implemented).
func readableClass(v string) bool {
	switch v {
	case "STANDARD", "REDUCED_REDUNDANCY", "STANDARD_IA", "ONEZONE_IA", "INTELLIGENT_TIERING", "GLACIER_IR":
		return true
	}
	return false
}

// headerRules are checked on every request that names an operation,
// keyed by canonical name: a request's headers are looked up in it.
func headerRules() map[string]headerRule {
	noLock := errInvalidRequest("Bucket is missing Object Lock Configuration")
	noACL := aclNotSupported()
	rules := []headerRule{
		{name: "X-Amz-Storage-Class", ok: readableClass},
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
		{name: "X-Amz-Acl", ok: ownerOnlyACL, refuse: noACL},
		{name: "X-Amz-Grant-Full-Control", refuse: noACL},
		{name: "X-Amz-Grant-Read", refuse: noACL},
		{name: "X-Amz-Grant-Read-Acp", refuse: noACL},
		{name: "X-Amz-Grant-Write", refuse: noACL},
		{name: "X-Amz-Grant-Write-Acp", refuse: noACL},
	}
	m := make(map[string]headerRule, len(rules))
	for _, r := range rules {
		m[r.name] = r
	}
	return m
}

// unsupported says why r, which asks for operation op, is refused for its
// headers, or nil.
func (rt *router) unsupported(r *http.Request, op string) *s3Err {
	if _, ok := r.Header["X-Amz-Copy-Source"]; ok && op != "PutObject" && op != "UploadPart" {
		return errNotImplemented("x-amz-copy-source on " + op)
	}
	if _, ok := r.Header["X-Amz-Copy-Source-Range"]; ok && op != "UploadPart" {
		return errInvalidArgument("x-amz-copy-source-range is only for UploadPartCopy")
	}
	for name, v := range r.Header {
		rule, ok := rt.headers[name]
		if !ok || (rule.ok != nil && len(v) == 1 && rule.ok(v[0])) {
			continue
		}
		if rule.refuse != nil {
			return rule.refuse
		}
		return errNotImplemented("the header " + strings.ToLower(rule.name))
	}
	return nil
}
