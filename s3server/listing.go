package s3server

import (
	"encoding/base64"
	"encoding/xml"
	"strconv"
	"strings"
	"time"
)

// listPage is what a listing request asks: prefix, delimiter, where to
// start, how many, and whether keys go out URL-encoded.
type listPage struct {
	prefix, delimiter string
	start             string // list keys after this one
	maxKeys           int
	encode            bool // encoding-type=url
}

func parseListPage(c *call, maxName string) (listPage, error) {
	p := listPage{prefix: c.query("prefix"), delimiter: c.query("delimiter"), maxKeys: 1000}
	if v := c.query(maxName); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return p, errInvalidArgument(maxName + " must be a non-negative integer")
		}
		p.maxKeys = min(n, 1000)
	}
	switch c.query("encoding-type") {
	case "":
	case "url":
		p.encode = true
	default:
		return p, errInvalidArgument("Invalid Encoding Method specified in Request")
	}
	return p, nil
}

// enc is a name as the listing prints it: with encoding-type=url,
// percent-encoded as S3 does it (every byte but A-Z a-z 0-9 - . _ ~ and
// '/', so a space is %20 and a '+' %2B).
func (p listPage) enc(s string) string {
	if p.encode {
		return uriEncode(s, false)
	}
	return s
}

// scan calls fn, in key order after p.start, for each key under p.prefix
// whose versions visible accepts (vs set) and for each common prefix (vs
// nil), until fn returns false. The caller holds bk.mu. Keys under a
// common prefix are skipped by seeking past them.
func (bk *bucket) scan(p listPage, visible func(*versions) bool, fn func(key string, vs *versions, common string) bool) {
	it := bk.order.Iter()
	start := max(p.start, p.prefix)
	for ok := it.Seek(start); ok; {
		key := it.Key()
		if !strings.HasPrefix(key, p.prefix) {
			return // keys are ordered and start >= prefix: none further match
		}
		vs := bk.keys[key]
		if key == p.start || !visible(vs) {
			ok = it.Next()
			continue
		}
		if common := commonPrefix(p, key); common != "" {
			// A group the start is in was listed on an earlier page.
			if (p.start == "" || !strings.HasPrefix(p.start, common)) && !fn("", nil, common) {
				return
			}
			next := prefixEnd(common)
			if next == "" {
				return
			}
			ok = it.Seek(next)
			continue
		}
		if !fn(key, vs, "") {
			return
		}
		ok = it.Next()
	}
}

// commonPrefix returns the S3 common prefix key rolls up into (prefix up to
// and including the first delimiter after it), or "" if none.
func commonPrefix(p listPage, key string) string {
	if p.delimiter == "" {
		return ""
	}
	rest := key[len(p.prefix):]
	i := strings.Index(rest, p.delimiter)
	if i < 0 {
		return ""
	}
	return key[:len(p.prefix)+i+len(p.delimiter)]
}

// prefixEnd returns the smallest string greater than every string that
// starts with s, or "" if there is none (s is all 0xff bytes).
func prefixEnd(s string) string {
	b := []byte(s)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1])
		}
	}
	return ""
}

// current listings see a key whose newest version is not a delete marker.
func currentVisible(vs *versions) bool { return !vs.v[0].marker }

// owner is the one owner of everything here.
type owner struct {
	ID          string
	DisplayName string
}

func theOwner() *owner { return &owner{ID: "objbench", DisplayName: "objbench"} }

type listEntry struct {
	Key          string
	LastModified string
	ETag         string
	Size         int64
	StorageClass string
	Owner        *owner `xml:",omitempty"`
}

type commonPrefixXML struct{ Prefix string }

type listResult struct {
	XMLName               xml.Name `xml:"ListBucketResult"`
	Xmlns                 string   `xml:"xmlns,attr"`
	Name                  string
	Prefix                string
	Marker                *string `xml:",omitempty"`
	NextMarker            string  `xml:",omitempty"`
	ContinuationToken     *string `xml:",omitempty"`
	NextContinuationToken string  `xml:",omitempty"`
	StartAfter            string  `xml:",omitempty"`
	KeyCount              *int    `xml:",omitempty"`
	MaxKeys               int
	Delimiter             string `xml:",omitempty"`
	EncodingType          string `xml:",omitempty"`
	IsTruncated           bool
	Contents              []listEntry
	CommonPrefixes        []commonPrefixXML
}

// xmlTime is a time as S3's documents print it.
func xmlTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// listObjects serves ListObjects (V1: marker) and ListObjectsV2
// (list-type=2: continuation-token, start-after, fetch-owner).
func (s *service) listObjects(c *call) error {
	bk, err := s.be.bucket(c.bucket)
	if err != nil {
		return err
	}
	p, err := parseListPage(c, "max-keys")
	if err != nil {
		return err
	}
	v2 := c.query("list-type") == "2"
	res, err := listStart(c, bk.name, &p, v2)
	if err != nil {
		return err
	}
	withOwner := !v2 || c.query("fetch-owner") == "true"
	last := ""
	bk.mu.RLock()
	bk.scan(p, currentVisible, func(key string, vs *versions, common string) bool {
		if len(res.Contents)+len(res.CommonPrefixes) == p.maxKeys {
			res.IsTruncated = p.maxKeys > 0
			return false
		}
		if vs == nil {
			res.CommonPrefixes = append(res.CommonPrefixes, commonPrefixXML{p.enc(common)})
			last = common
			return true
		}
		o := vs.v[0]
		e := listEntry{Key: p.enc(key), LastModified: xmlTime(o.mod), ETag: o.etag, Size: o.size, StorageClass: o.attrs.storageClass()}
		if withOwner {
			e.Owner = theOwner()
		}
		res.Contents = append(res.Contents, e)
		last = key
		return true
	})
	bk.mu.RUnlock()
	if v2 {
		n := len(res.Contents) + len(res.CommonPrefixes)
		res.KeyCount = &n
		if res.IsTruncated {
			res.NextContinuationToken = base64.RawURLEncoding.EncodeToString([]byte(last))
		}
	} else if res.IsTruncated && p.delimiter != "" {
		res.NextMarker = p.enc(last) // S3 sends it only with a delimiter
	}
	writeXML(c.w, res)
	return nil
}

// listStart is a listing's answer before its entries, and where in the
// bucket it starts (V1: marker; V2: start-after, then a continuation
// token).
func listStart(c *call, bucket string, p *listPage, v2 bool) (listResult, error) {
	// V1 sends Prefix as given even with encoding-type=url (botocore does
	// not decode it); V2 encodes it.
	res := listResult{Xmlns: s3ns, Name: bucket, Prefix: p.prefix, MaxKeys: p.maxKeys, Delimiter: p.enc(p.delimiter)}
	if p.encode {
		res.EncodingType = "url"
	}
	if !v2 {
		p.start = c.query("marker")
		m := p.enc(p.start)
		res.Marker = &m
		return res, nil
	}
	p.start = c.query("start-after")
	res.StartAfter, res.Prefix = p.enc(p.start), p.enc(p.prefix)
	if c.q.Has("continuation-token") {
		tok := c.query("continuation-token")
		after, err := base64.RawURLEncoding.DecodeString(tok)
		if err != nil {
			return res, errInvalidArgument("The continuation token provided is incorrect")
		}
		res.ContinuationToken = &tok
		if tok != "" {
			p.start = string(after)
		}
	}
	return res, nil
}
