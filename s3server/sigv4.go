package s3server

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The server checks AWS Signature Version 4 as S3 does: a signature in the
// Authorization header, or in the query string (a presigned URL), made
// with its secret over the request as it arrived. aws-chunked uploads with
// chunk signatures have each chunk's signature checked as the body is
// read (chunkedBody).

const (
	sigAlgorithm   = "AWS4-HMAC-SHA256"
	chunkAlgorithm = "AWS4-HMAC-SHA256-PAYLOAD"
	maxSkew        = 15 * time.Minute
	emptySHA256    = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
)

func denied(code, what string) *s3Err { return errorf(http.StatusForbidden, code, what) }

// keys are the credentials the server accepts, and the region requests
// must be signed for.
type keys struct{ access, secret, region string }

// signed is what a verified request's chunks are checked against.
type signed struct {
	key       []byte // the day's signing key
	date      string // X-Amz-Date
	scope     string // DATE/REGION/s3/aws4_request
	signature string // the seed signature, which the first chunk chains from
}

// verify checks r's signature; it returns what a streamed body's chunk
// signatures are checked against (nil when there are none) or why r is
// refused.
func (k keys) verify(r *http.Request, now time.Time) (*signed, *s3Err) {
	q := r.URL.Query()
	auth := r.Header.Get("Authorization")
	var cred, signedHeaders, sig, date, payload string
	switch {
	case strings.HasPrefix(auth, sigAlgorithm+" "):
		fields := map[string]string{}
		for f := range strings.SplitSeq(strings.TrimPrefix(auth, sigAlgorithm+" "), ",") {
			name, v, _ := strings.Cut(strings.TrimSpace(f), "=")
			fields[name] = v
		}
		cred, signedHeaders, sig = fields["Credential"], fields["SignedHeaders"], fields["Signature"]
		date, payload = r.Header.Get("X-Amz-Date"), r.Header.Get("X-Amz-Content-Sha256")
		if payload == "" {
			payload = emptySHA256
		}
	case q.Get("X-Amz-Algorithm") == sigAlgorithm:
		cred, signedHeaders, sig, date = q.Get("X-Amz-Credential"), q.Get("X-Amz-SignedHeaders"), q.Get("X-Amz-Signature"), q.Get("X-Amz-Date")
		payload = "UNSIGNED-PAYLOAD"
		expires, err := strconv.Atoi(q.Get("X-Amz-Expires"))
		t, terr := time.Parse("20060102T150405Z", date)
		if err != nil || terr != nil || expires < 0 || expires > 7*24*3600 {
			return nil, denied("AuthorizationQueryParametersError", "bad X-Amz-Date or X-Amz-Expires")
		}
		if now.After(t.Add(time.Duration(expires) * time.Second)) {
			return nil, denied("AccessDenied", "Request has expired")
		}
	case auth != "":
		return nil, errInvalidRequest("only AWS Signature Version 4 is accepted")
	default:
		return nil, denied("AccessDenied", "Anonymous access is not allowed: sign the request with the server's keys")
	}
	access, scope, ok := strings.Cut(cred, "/")
	parts := strings.Split(scope, "/")
	if aerr := k.checkScope(parts, date, q.Has("X-Amz-Algorithm")); !ok || aerr != nil {
		if aerr == nil {
			aerr = errorf(http.StatusBadRequest, "AuthorizationHeaderMalformed", "bad credential scope "+strconv.Quote(scope))
		}
		return nil, aerr
	}
	if subtle.ConstantTimeCompare([]byte(access), []byte(k.access)) != 1 {
		return nil, denied("InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records.")
	}
	if q.Get("X-Amz-Algorithm") == "" { // a presigned URL's own dates were checked above
		t, err := time.Parse("20060102T150405Z", date)
		if err != nil {
			return nil, denied("AccessDenied", "bad X-Amz-Date")
		}
		if d := now.Sub(t); d > maxSkew || d < -maxSkew {
			return nil, denied("RequestTimeTooSkewed", "The difference between the request time and the server's time is too large.")
		}
	}
	key := hmacSHA256([]byte("AWS4"+k.secret), parts[0])
	for _, p := range parts[1:] {
		key = hmacSHA256(key, p)
	}
	canon := canonicalRequest(r, q, strings.Split(signedHeaders, ";"), payload)
	sum := sha256.Sum256([]byte(canon))
	sts := sigAlgorithm + "\n" + date + "\n" + scope + "\n" + hex.EncodeToString(sum[:])
	want := hex.EncodeToString(hmacSHA256(key, sts))
	if subtle.ConstantTimeCompare([]byte(want), []byte(sig)) != 1 {
		return nil, denied("SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided. Check your key and signing method.")
	}
	if strings.HasPrefix(payload, "STREAMING-AWS4-HMAC-SHA256-PAYLOAD") {
		return &signed{key: key, date: date, scope: scope, signature: sig}, nil
	}
	return nil, nil
}

// checkScope checks a credential scope (DATE/REGION/SERVICE/aws4_request)
// as S3 does: 400 for one that is not for this server's region, for s3 or
// for the request's date, with S3's words (and the region SDKs read to
// retry in the right one).
func (k keys) checkScope(parts []string, date string, presigned bool) *s3Err {
	code, lead := "AuthorizationHeaderMalformed", "The authorization header is malformed; "
	if presigned {
		code, lead = "AuthorizationQueryParametersError", "Error parsing the X-Amz-Credential parameter; "
	}
	switch {
	case len(parts) != 4 || parts[3] != "aws4_request":
		return errorf(http.StatusBadRequest, code, lead+"the credential is mal-formed; expecting \"<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request\".")
	case parts[1] != k.region:
		e := errorf(http.StatusBadRequest, code, lead+"the region '"+parts[1]+"' is wrong; expecting '"+k.region+"'")
		e.region = k.region
		return e
	case parts[2] != "s3":
		return errorf(http.StatusBadRequest, code, lead+"incorrect service '"+parts[2]+"'. This endpoint belongs to 's3'.")
	case len(date) < 8 || parts[0] != date[:8]:
		return errorf(http.StatusBadRequest, code, lead+"Invalid credential date. Date is not the same as X-Amz-Date.")
	}
	return nil
}

// canonicalRequest is SigV4's canonical form of r as it arrived.
func canonicalRequest(r *http.Request, q url.Values, signedHeaders []string, payload string) string {
	var b strings.Builder
	b.WriteString(r.Method)
	b.WriteByte('\n')
	// S3 signs the path as the client sent it, escaped once; a request
	// built in-process (no RequestURI) is taken in its escaped form.
	path, _, _ := strings.Cut(r.RequestURI, "?")
	if path == "" || !strings.HasPrefix(path, "/") {
		path = r.URL.EscapedPath()
	}
	b.WriteString(path)
	b.WriteByte('\n')
	names := make([]string, 0, len(q))
	for n := range q {
		if n != "X-Amz-Signature" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	first := true
	for _, n := range names {
		vs := append([]string(nil), q[n]...)
		sort.Strings(vs)
		for _, v := range vs {
			if !first {
				b.WriteByte('&')
			}
			first = false
			b.WriteString(uriEncode(n, true))
			b.WriteByte('=')
			b.WriteString(uriEncode(v, true))
		}
	}
	b.WriteByte('\n')
	for _, h := range signedHeaders {
		b.WriteString(h)
		b.WriteByte(':')
		if h == "host" {
			b.WriteString(r.Host)
		} else {
			vs := r.Header.Values(h)
			for i, v := range vs {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(strings.Join(strings.Fields(v), " "))
			}
		}
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	b.WriteString(strings.Join(signedHeaders, ";"))
	b.WriteByte('\n')
	b.WriteString(payload)
	return b.String()
}

// uriEncode is SigV4's URI encoding: every byte but A-Z a-z 0-9 - . _ ~
// as %XX, and '/' kept in a path.
func uriEncode(s string, encodeSlash bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '.', c == '_', c == '~':
			b.WriteByte(c)
		case c == '/' && !encodeSlash:
			b.WriteByte(c)
		default:
			b.WriteString("%" + strings.ToUpper(hex.EncodeToString([]byte{c})))
		}
	}
	return b.String()
}

func hmacSHA256(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}

// trailerSignature is the signature of an aws-chunked body's trailers
// (name:value lines, each ending in a newline), chained from the last
// chunk's.
func (s *signed) trailerSignature(prev, trailers string) string {
	sum := sha256.Sum256([]byte(trailers))
	sts := "AWS4-HMAC-SHA256-TRAILER\n" + s.date + "\n" + s.scope + "\n" + prev + "\n" + hex.EncodeToString(sum[:])
	return hex.EncodeToString(hmacSHA256(s.key, sts))
}

// chunkSignature is the signature of one aws-chunked chunk, chained from
// the previous one.
func (s *signed) chunkSignature(prev string, data []byte) string {
	sum := sha256.Sum256(data)
	sts := chunkAlgorithm + "\n" + s.date + "\n" + s.scope + "\n" + prev + "\n" + emptySHA256 + "\n" + hex.EncodeToString(sum[:])
	return hex.EncodeToString(hmacSHA256(s.key, sts))
}
