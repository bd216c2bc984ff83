package s3server

import (
	"encoding/base64"
	"encoding/xml"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// validBucketName applies S3's rules for bucket names (general purpose
// buckets): 3 to 63 characters of a-z, 0-9, '.' and '-', starting and
// ending with a letter or digit, no "..", not an IP address.
func validBucketName(name string) error {
	bad := errorf(http.StatusBadRequest, "InvalidBucketName", "The specified bucket is not valid.")
	if len(name) < 3 || len(name) > 63 || strings.Contains(name, "..") || net.ParseIP(name) != nil {
		return bad
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		alnum := (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
		if !alnum && ((i == 0 || i == len(name)-1) || (c != '.' && c != '-')) {
			return bad
		}
	}
	return nil
}

type bucketsResult struct {
	XMLName xml.Name `xml:"ListAllMyBucketsResult"`
	Xmlns   string   `xml:"xmlns,attr"`
	Owner   *owner
	Buckets struct {
		Bucket []bucketXML
	}
	ContinuationToken string  `xml:",omitempty"`
	Prefix            *string `xml:",omitempty"`
}

type bucketXML struct {
	Name         string
	CreationDate string
}

func (s *service) listBuckets(c *call) error {
	res := bucketsResult{Xmlns: s3ns, Owner: theOwner()}
	prefix, after := c.query("prefix"), ""
	limit := 10000
	if v := c.query("max-buckets"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 10000 {
			return errInvalidArgument("max-buckets must be an integer from 1 to 10000")
		}
		limit = n
	}
	if tok := c.query("continuation-token"); tok != "" {
		b, err := base64.RawURLEncoding.DecodeString(tok)
		if err != nil {
			return errInvalidArgument("The continuation token provided is incorrect")
		}
		after = string(b)
	}
	for _, bk := range s.be.bucketList() {
		if !strings.HasPrefix(bk.name, prefix) || bk.name <= after {
			continue
		}
		if len(res.Buckets.Bucket) == limit {
			res.ContinuationToken = base64.RawURLEncoding.EncodeToString([]byte(res.Buckets.Bucket[limit-1].Name))
			break
		}
		res.Buckets.Bucket = append(res.Buckets.Bucket, bucketXML{bk.name, xmlTime(bk.created)})
	}
	if prefix != "" {
		res.Prefix = &prefix
	}
	writeXML(c.w, res)
	return nil
}

// createBucket creates a bucket. One that exists already belongs to the
// one owner there is here: S3 answers 409 BucketAlreadyOwnedByYou, except
// in us-east-1, where it answers 200.
func (s *service) createBucket(c *call) error {
	if err := validBucketName(c.bucket); err != nil {
		return err
	}
	if c.r.ContentLength > 0 { // CreateBucketConfiguration: the location must be ours
		var conf struct{ LocationConstraint string }
		if err := readXML(c.r, 64<<10, &conf); err != nil {
			return err
		}
		if conf.LocationConstraint != "" && conf.LocationConstraint != s.region {
			return errorf(http.StatusBadRequest, "IllegalLocationConstraintException",
				"The "+conf.LocationConstraint+" location constraint is incompatible for the region specific endpoint this request was sent to.")
		}
	}
	ok, err := s.be.createBucket(c.bucket)
	if err != nil {
		return err
	}
	if !ok && s.region != "us-east-1" { // us-east-1 answers 200 to its owner, as S3 does there
		return errorf(http.StatusConflict, "BucketAlreadyOwnedByYou", "Your previous request to create the named bucket succeeded and you already own it.")
	}
	c.w.Header().Set("Location", "/"+c.bucket)
	c.w.WriteHeader(http.StatusOK)
	return nil
}

func (s *service) headBucket(c *call) error {
	if _, err := s.be.bucket(c.bucket); err != nil {
		return err
	}
	c.w.Header().Set("X-Amz-Bucket-Region", s.region)
	c.w.WriteHeader(http.StatusOK)
	return nil
}

func (s *service) deleteBucket(c *call) error {
	if err := s.be.deleteBucket(c.bucket); err != nil {
		return err
	}
	c.w.WriteHeader(http.StatusNoContent)
	return nil
}

// bucketLocation answers the server's region; us-east-1 is an empty
// constraint, as S3 prints it.
func (s *service) bucketLocation(c *call) error {
	if _, err := s.be.bucket(c.bucket); err != nil {
		return err
	}
	loc := s.region
	if loc == "us-east-1" {
		loc = ""
	}
	writeXML(c.w, struct {
		XMLName xml.Name `xml:"LocationConstraint"`
		Xmlns   string   `xml:"xmlns,attr"`
		Value   string   `xml:",chardata"`
	}{Xmlns: s3ns, Value: loc})
	return nil
}

type versioningXML struct {
	XMLName   xml.Name `xml:"VersioningConfiguration"`
	Xmlns     string   `xml:"xmlns,attr,omitempty"`
	Status    string   `xml:",omitempty"`
	MfaDelete string   `xml:",omitempty"`
}

func (s *service) getVersioning(c *call) error {
	bk, err := s.be.bucket(c.bucket)
	if err != nil {
		return err
	}
	bk.mu.RLock()
	v := bk.versioning
	bk.mu.RUnlock()
	writeXML(c.w, versioningXML{Xmlns: s3ns, Status: v})
	return nil
}

// putVersioning enables or suspends versioning; once enabled, a bucket
// never goes back to unversioned, as in S3.
func (s *service) putVersioning(c *call) error {
	bk, err := s.be.bucket(c.bucket)
	if err != nil {
		return err
	}
	var conf versioningXML
	if err := readXML(c.r, 64<<10, &conf); err != nil {
		return err
	}
	if conf.Status != versioningEnabled && conf.Status != versioningSuspended {
		return errMalformedXML("Status must be Enabled or Suspended")
	}
	if conf.MfaDelete == "Enabled" {
		return errNotImplemented("MfaDelete")
	}
	bk.mu.Lock()
	bk.versioning = conf.Status
	bk.mu.Unlock()
	if err := s.be.blobs.saveBucket(bk.name, conf.Status); err != nil {
		return err
	}
	c.w.WriteHeader(http.StatusOK)
	return nil
}
