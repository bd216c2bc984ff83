package s3server

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// storedHeaders are the request headers S3 keeps with an object and sends
// back on GET and HEAD (besides x-amz-meta-*).
var storedHeaders = [...]string{"Content-Type", "Content-Encoding", "Content-Disposition", "Content-Language",
	"Cache-Control", "Expires"}

// maxUserMeta is S3's limit on user metadata: keys and values together.
const maxUserMeta = 2 << 10

// attrsFromRequest reads what an object keeps from the request that
// writes it: content headers, Cache-Control, Expires, user metadata (keys
// in lower case, as S3 returns them), tags and encryption.
func attrsFromRequest(h http.Header) (*attrs, error) {
	a := &attrs{headers: make(map[string]string, 4)}
	if err := a.setHeaders(h); err != nil {
		return nil, err
	}
	if v := h.Get("X-Amz-Storage-Class"); v != "" && v != "STANDARD" {
		a.headers["X-Amz-Storage-Class"] = v // S3 sends it on GET and HEAD for classes but STANDARD
	}
	if v, ok := h["X-Amz-Tagging"]; ok {
		tags, err := parseTagQuery(v[0])
		if err != nil {
			return nil, err
		}
		a.tags = tags
	}
	return a, a.setSSE(h)
}

// setHeaders keeps h's content headers and user metadata (replacing any).
func (a *attrs) setHeaders(h http.Header) error {
	for _, name := range storedHeaders {
		if v, ok := h[name]; ok && v[0] != "" {
			a.headers[name] = v[0]
		}
	}
	if ce := a.headers["Content-Encoding"]; ce != "" { // aws-chunked is framing, not the object's encoding
		if ce = dropToken(ce, "aws-chunked"); ce == "" {
			delete(a.headers, "Content-Encoding")
		} else {
			a.headers["Content-Encoding"] = ce
		}
	}
	if a.headers["Content-Type"] == "" {
		a.headers["Content-Type"] = "binary/octet-stream" // what S3 answers for untyped objects
	}
	size := 0
	for k, v := range h {
		if len(k) > len("X-Amz-Meta-") && strings.HasPrefix(k, "X-Amz-Meta-") {
			name := strings.ToLower(k)
			a.headers[name] = strings.Join(v, ",")
			size += len(name) - len("x-amz-meta-") + len(a.headers[name])
		}
	}
	if size > maxUserMeta {
		return errorf(http.StatusBadRequest, "MetadataTooLarge", "Your metadata headers exceed the maximum allowed metadata size.")
	}
	return nil
}

// copyAttrs is a copy's attributes: the source's own, or (directive
// REPLACE) the request's; tags likewise by x-amz-tagging-directive;
// encryption the request's.
func copyAttrs(h http.Header, src *attrs) (*attrs, error) {
	a := &attrs{headers: src.headers, tags: src.tags, sum: src.sum}
	switch d := strings.ToUpper(h.Get("X-Amz-Metadata-Directive")); d {
	case "", "COPY":
	case "REPLACE":
		a.headers = make(map[string]string, 4)
		if err := a.setHeaders(h); err != nil {
			return nil, err
		}
	default:
		return nil, errInvalidArgument("Unknown metadata directive.")
	}
	switch d := strings.ToUpper(h.Get("X-Amz-Tagging-Directive")); d {
	case "", "COPY":
	case "REPLACE":
		a.tags = nil
		if v := h.Get("X-Amz-Tagging"); v != "" {
			tags, err := parseTagQuery(v)
			if err != nil {
				return nil, err
			}
			a.tags = tags
		}
	default:
		return nil, errInvalidArgument("Unknown tagging directive.")
	}
	return a, a.setSSE(h)
}

// tag is one object tag.
type tag struct {
	Key   string `json:"k" xml:"Key"`
	Value string `json:"v" xml:"Value"`
}

// parseTagQuery reads x-amz-tagging (URL-encoded "k1=v1&k2=v2").
func parseTagQuery(v string) ([]tag, error) {
	var tags []tag
	for pair := range strings.SplitSeq(v, "&") {
		if pair == "" {
			continue
		}
		k, val, _ := strings.Cut(pair, "=")
		key, kerr := url.QueryUnescape(k)
		value, verr := url.QueryUnescape(val)
		if kerr != nil || verr != nil {
			return nil, errInvalidArgument("The header 'x-amz-tagging' shall be encoded as UTF-8 then URLEncoded URL query parameters without tag name duplicates.")
		}
		tags = append(tags, tag{key, value})
	}
	return tags, checkTags(tags)
}

// checkTags applies S3's limits on object tags.
func checkTags(tags []tag) error {
	if len(tags) > 10 {
		return errorf(http.StatusBadRequest, "InvalidTag", "Object tags cannot be greater than 10")
	}
	seen := make(map[string]bool, len(tags))
	for _, t := range tags {
		switch {
		case t.Key == "" || len(t.Key) > 128:
			return errorf(http.StatusBadRequest, "InvalidTag", "The TagKey you have provided is invalid")
		case len(t.Value) > 256:
			return errorf(http.StatusBadRequest, "InvalidTag", "The TagValue you have provided is invalid")
		case seen[t.Key]:
			return errorf(http.StatusBadRequest, "InvalidTag", "Cannot provide multiple Tags with the same key")
		}
		seen[t.Key] = true
	}
	slices.SortFunc(tags, func(x, y tag) int { return strings.Compare(x.Key, y.Key) }) // S3 lists tags by key
	return nil
}

// storageClass is an object's class as listings print it.
func (a *attrs) storageClass() string {
	if c := a.headers["X-Amz-Storage-Class"]; c != "" {
		return c
	}
	return "STANDARD"
}

// setObjectHeaders writes obj's headers for a GET or HEAD: what it keeps,
// its ETag, Last-Modified and version, and the response-* overrides.
func setObjectHeaders(c *call, obj *object, versioned bool) {
	h := c.w.Header()
	for k, v := range obj.attrs.headers {
		h[k] = []string{v}
	}
	h["Last-Modified"] = []string{obj.lastMod}
	h["Etag"] = []string{obj.etag}
	h["Accept-Ranges"] = []string{"bytes"}
	if versioned {
		h["X-Amz-Version-Id"] = []string{wireVersion(obj.version)}
	}
	if n := len(obj.attrs.tags); n > 0 {
		h["X-Amz-Tagging-Count"] = []string{strconv.Itoa(n)}
	}
	if len(obj.parts) > 0 {
		h["X-Amz-Mp-Parts-Count"] = []string{strconv.Itoa(len(obj.parts))}
	}
	if c.q == nil {
		return
	}
	for _, p := range responseParams {
		if v := c.q.Get(p); v != "" {
			h.Set(strings.TrimPrefix(p, "response-"), v)
		}
	}
}

// wireVersion is a version id as S3 prints it.
func wireVersion(v string) string {
	if v == "" {
		return "null"
	}
	return v
}
