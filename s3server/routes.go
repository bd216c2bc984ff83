package s3server

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// The router names the operation of every request before anything reads
// its body or touches a bucket. S3 chooses the operation by method, by
// whether the path names a bucket or an object, and by a sub-resource in
// the query string (?tagging, ?acl, ?uploads ...). A server that does not
// know a sub-resource and serves the plain operation instead loses data:
// `PUT key?tagging` would replace the object with the tagging XML, `DELETE
// bucket?cors` would delete the bucket. So every query parameter must be
// one the router knows, and every (method, target, sub-resource) must be an
// operation the server implements; anything else is refused.

// target is what a request's path names.
type target uint8

const (
	serviceTarget target = iota // "/"
	bucketTarget
	objectTarget
)

// subResources are the query parameters that select an S3 operation, from
// the S3 API's model (botocore's data/s3/2006-03-01/service-2.json: every
// literal in an operation's requestUri query). versionId, partNumber and
// uploadId modify an operation instead of naming one; they are checked per
// operation (opSpec.modifiers).
func subResources() map[string]bool {
	return map[string]bool{
		"abac": true, "accelerate": true, "acl": true, "analytics": true, "attributes": true,
		"cors": true, "delete": true, "encryption": true, "intelligent-tiering": true,
		"inventory": true, "legal-hold": true, "lifecycle": true,
		"location": true, "logging": true, "metadataConfiguration": true,
		"metadataInventoryTable": true, "metadataJournalTable": true, "metadataTable": true,
		"metrics": true, "notification": true, "object-lock": true, "ownershipControls": true,
		"policy": true, "policyStatus": true, "publicAccessBlock": true, "renameObject": true,
		"replication": true, "requestPayment": true, "restore": true, "retention": true,
		"select": true, "select-type": true, "session": true, "tagging": true, "torrent": true,
		"uploads": true, "versioning": true, "versions": true, "website": true,
	}
}

// modifiers may accompany an operation's sub-resource (or its absence).
const (
	modVersionID = 1 << iota
	modPartNumber
	modUploadID
)

// Query parameters that only shape an operation's answer, by operation.
// Everywhere clients may add x-id (the AWS SDKs name the operation with
// it) and a presigned URL's X-Amz-* (checked with the signature).
var (
	listParams = []string{"list-type", "prefix", "delimiter", "encoding-type", "max-keys", "marker",
		"continuation-token", "start-after", "fetch-owner"}
	uploadListParams  = []string{"prefix", "delimiter", "encoding-type", "key-marker", "upload-id-marker", "max-uploads"}
	partListParams    = []string{"max-parts", "part-number-marker"}
	versionListParams = []string{"prefix", "delimiter", "encoding-type", "key-marker", "version-id-marker", "max-keys"}
	bucketListParams  = []string{"max-buckets", "prefix", "continuation-token", "bucket-region"}
	responseParams    = []string{"response-cache-control", "response-content-disposition",
		"response-content-encoding", "response-content-language", "response-content-type", "response-expires"}
)

// opSpec is one operation the server implements: the modifiers it takes
// and whether one is required, the other parameters it takes, and how it
// is served.
type opSpec struct {
	name     string
	allowed  int      // modifiers it accepts
	required int      // modifiers it must have
	params   []string // other query parameters it takes
	serve    func(*service, *call) error
}

// opKey selects an operation.
type opKey struct {
	method string
	target target
	sub    string // the sub-resource, "" for none
	upload bool   // ?uploadId=ID: an operation on a multipart upload
}

// operations are the (method, target, sub-resource) the server serves;
// every other combination is refused before the request is served.
func operations() map[opKey]opSpec {
	const (
		get, head, put, post, del = http.MethodGet, http.MethodHead, http.MethodPut, http.MethodPost, http.MethodDelete
		svc, bkt, obj             = serviceTarget, bucketTarget, objectTarget
	)
	return map[opKey]opSpec{
		{get, svc, "", false}: {name: "ListBuckets", params: bucketListParams, serve: (*service).listBuckets},

		{get, bkt, "", false}:           {name: "ListObjects", params: listParams, serve: (*service).listObjects},
		{head, bkt, "", false}:          {name: "HeadBucket", serve: (*service).headBucket},
		{put, bkt, "", false}:           {name: "CreateBucket", serve: (*service).createBucket},
		{del, bkt, "", false}:           {name: "DeleteBucket", serve: (*service).deleteBucket},
		{get, bkt, "location", false}:   {name: "GetBucketLocation", serve: (*service).bucketLocation},
		{get, bkt, "versioning", false}: {name: "GetBucketVersioning", serve: (*service).getVersioning},
		{put, bkt, "versioning", false}: {name: "PutBucketVersioning", serve: (*service).putVersioning},
		{get, bkt, "versions", false}:   {name: "ListObjectVersions", params: versionListParams, serve: (*service).listVersions},
		{get, bkt, "uploads", false}:    {name: "ListMultipartUploads", params: uploadListParams, serve: (*service).listUploads},
		{post, bkt, "delete", false}:    {name: "DeleteObjects", serve: (*service).deleteObjects},

		{get, obj, "", false}:           {name: "GetObject", allowed: modVersionID | modPartNumber, params: responseParams, serve: (*service).getObject},
		{head, obj, "", false}:          {name: "HeadObject", allowed: modVersionID | modPartNumber, params: responseParams, serve: (*service).getObject},
		{put, obj, "", false}:           {name: "PutObject", serve: (*service).putObject},
		{del, obj, "", false}:           {name: "DeleteObject", allowed: modVersionID, serve: (*service).deleteObject},
		{get, obj, "attributes", false}: {name: "GetObjectAttributes", allowed: modVersionID, serve: (*service).getAttributes},
		{get, obj, "tagging", false}:    {name: "GetObjectTagging", allowed: modVersionID, serve: (*service).getTagging},
		{put, obj, "tagging", false}:    {name: "PutObjectTagging", allowed: modVersionID, serve: (*service).putTagging},
		{del, obj, "tagging", false}:    {name: "DeleteObjectTagging", allowed: modVersionID, serve: (*service).deleteTagging},
		{post, obj, "uploads", false}:   {name: "CreateMultipartUpload", serve: (*service).createUpload},
		{put, obj, "", true}:            {name: "UploadPart", allowed: modPartNumber, required: modPartNumber, serve: (*service).uploadPart},
		{get, obj, "", true}:            {name: "ListParts", params: partListParams, serve: (*service).listParts},
		{post, obj, "", true}:           {name: "CompleteMultipartUpload", serve: (*service).completeUpload},
		{del, obj, "", true}:            {name: "AbortMultipartUpload", serve: (*service).abortUpload},
	}
}

// router holds the tables a request is routed by, built once per server.
type router struct {
	ops     map[opKey]opSpec
	subs    map[string]bool // subResources
	headers map[string]headerRule
}

func newRouter() *router {
	return &router{ops: operations(), subs: subResources(), headers: headerRules()}
}

// route names r's operation, or says why it is refused; q is r's query
// (nil without one), parsed once here for the operation to read.
func (rt *router) route(r *http.Request) (spec opSpec, q url.Values, why *s3Err) {
	t := targetOf(r.URL.Path)
	if r.URL.RawQuery == "" { // the hot path: plain object and bucket requests
		spec, ok := rt.ops[opKey{r.Method, t, "", false}]
		if !ok || spec.required != 0 {
			return opSpec{}, nil, errNotImplemented(describe(r.Method, t, "", 0))
		}
		return spec, nil, nil
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return opSpec{}, nil, errInvalidArgument("the query string does not parse: " + err.Error())
	}
	sub, mods, plain := "", 0, false
	for name, vs := range q {
		switch m := modifier(name); {
		case m != 0:
			if len(vs) != 1 || vs[0] == "" {
				return opSpec{}, nil, errInvalidArgument(name + " must have one value that is not empty")
			}
			mods |= m
		case rt.subs[name]:
			if sub != "" {
				return opSpec{}, nil, errNotImplemented("a request with both ?" + sub + " and ?" + name)
			}
			sub = name
		case !ignoredParam(name):
			plain = true
		}
	}
	spec, ok := rt.ops[opKey{r.Method, t, sub, mods&modUploadID != 0}]
	if !ok {
		return opSpec{}, nil, errNotImplemented(describe(r.Method, t, sub, mods))
	}
	if rest := mods &^ modUploadID; rest&^spec.allowed != 0 || rest&spec.required != spec.required {
		return opSpec{}, nil, errNotImplemented(describe(r.Method, t, sub, mods))
	}
	for name := range q {
		if plain && modifier(name) == 0 && !rt.subs[name] && !ignoredParam(name) && !slices.Contains(spec.params, name) {
			return opSpec{}, nil, errNotImplemented("the query parameter " + name + " on " + spec.name)
		}
	}
	return spec, q, nil
}

// modifier is the modifier bit of a query parameter, or 0.
func modifier(name string) int {
	switch name {
	case "versionId":
		return modVersionID
	case "partNumber":
		return modPartNumber
	case "uploadId":
		return modUploadID
	}
	return 0
}

// ignoredParam: parameters that mean nothing to S3's choice of operation.
func ignoredParam(name string) bool { return name == "x-id" || strings.HasPrefix(name, "X-Amz-") }

// describe names a request's shape for an error message.
func describe(method string, t target, sub string, mods int) string {
	var b strings.Builder
	b.WriteString(method)
	b.WriteString([...]string{" on the service", " on a bucket", " on an object"}[t])
	if sub != "" {
		b.WriteString(" with ?" + sub)
	}
	for _, m := range []struct {
		bit  int
		name string
	}{{modVersionID, "versionId"}, {modPartNumber, "partNumber"}, {modUploadID, "uploadId"}} {
		if mods&m.bit != 0 {
			b.WriteString(" with ?" + m.name)
		}
	}
	return b.String()
}

// targetOf says whether a path-style path names the service, a bucket or
// an object.
func targetOf(path string) target {
	p := strings.TrimPrefix(path, "/")
	bucket, key, _ := strings.Cut(p, "/")
	switch {
	case bucket == "":
		return serviceTarget
	case key == "":
		return bucketTarget
	}
	return objectTarget
}
