package s3

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/objbench/objbench/storage"
)

// maxPresignExpiry is the longest a SigV4 presigned URL lives (S3's limit).
const maxPresignExpiry = 7 * 24 * time.Hour

// Presign returns a URL that GETs key without credentials until expiry
// has passed (AWS Signature Version 4 in the query string), as a browser
// or a CDN's origin fetch would use it.
func (s *Store) Presign(ctx context.Context, key string, expiry time.Duration) (string, error) {
	return s.presignAt(ctx, key, expiry, time.Now())
}

func (s *Store) presignAt(ctx context.Context, key string, expiry time.Duration, now time.Time) (string, error) {
	if err := keyErr(key); err != nil {
		return "", opError("presign", key, err)
	}
	if expiry < time.Second || expiry > maxPresignExpiry {
		return "", opError("presign", key, fmt.Errorf("s3: a presigned URL lives from 1s to %v, not %v", maxPresignExpiry, expiry))
	}
	creds, err := s.creds.Retrieve(ctx)
	if err != nil {
		return "", opError("presign", key, err)
	}
	req := s.newRequest(ctx, http.MethodGet, key, "")
	s.signer.presign(req, creds, now, expiry)
	return req.URL.String(), nil
}

// presign puts the signature's parameters in req's query: the signed
// headers are host only, the payload UNSIGNED-PAYLOAD.
func (s *signer) presign(req *http.Request, creds aws.Credentials, now time.Time, expiry time.Duration) {
	now = now.UTC()
	amzDate := now.Format("20060102T150405Z")
	key := s.keyFor(amzDate[:8], creds.SecretAccessKey)
	q := url.Values{
		"X-Amz-Algorithm":     {sigAlgorithm},
		"X-Amz-Credential":    {creds.AccessKeyID + "/" + amzDate[:8] + key.scopeSuffix},
		"X-Amz-Date":          {amzDate},
		"X-Amz-Expires":       {strconv.FormatInt(int64(expiry/time.Second), 10)},
		"X-Amz-SignedHeaders": {"host"},
	}
	if creds.SessionToken != "" {
		q.Set("X-Amz-Security-Token", creds.SessionToken)
	}
	req.URL.RawQuery = q.Encode()
	canon, _ := canonicalRequest(nil, req) // no signable header: host only, UNSIGNED-PAYLOAD
	reqHash := sha256.Sum256(canon)
	sts := sigAlgorithm + "\n" + amzDate + "\n" + amzDate[:8] + key.scopeSuffix + "\n" + hex.EncodeToString(reqHash[:])
	mac := key.macs.Get().(hash.Hash)
	mac.Reset()
	mac.Write([]byte(sts))
	sig := hex.EncodeToString(mac.Sum(nil))
	key.macs.Put(mac)
	req.URL.RawQuery += "&X-Amz-Signature=" + sig
}

var errForeignURL = errors.New("s3: the presigned URL is not for this store's endpoint")

// GetPresigned reads an object by a presigned URL (Presign's, or any for
// the store's endpoint) into w: the request is not signed, so this is
// what a browser or a CDN's origin fetch costs the client. o's Range,
// Trace and conditions apply.
func (s *Store) GetPresigned(ctx context.Context, rawURL string, o storage.GetOptions, w io.Writer) (int64, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return 0, opError("get-presigned", "", errors.New("s3: not a URL"))
	}
	if u.Scheme != s.base.Scheme || stripDefaultPort(u.Scheme, u.Host) != s.base.Host {
		return 0, opError("get-presigned", u.Path, errForeignURL)
	}
	r := http.Request{Method: http.MethodGet, URL: u, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: make(http.Header, 4), Host: s.base.Host}
	req := r.WithContext(ctx)
	if o.Range != nil {
		v, err := rangeHeader(o.Range)
		if err != nil {
			return 0, opError("get-presigned", u.Path, err)
		}
		req.Header["Range"] = []string{v}
	}
	if o.IfNoneMatch != "" || o.IfMatch != "" {
		setConditions(req.Header, o.IfNoneMatch, o.IfMatch)
	}
	resp, err := s.roundTrip(req, o.Trace)
	if err == nil && (resp.StatusCode < 200 || resp.StatusCode > 299) {
		err = s.statusError(ctx, resp)
		s.release(resp)
	}
	if err != nil {
		return 0, opError("get-presigned", u.Path, err)
	}
	return s.readBody(resp, u.Path, "get-presigned", o, w)
}
