package s3server

import (
	"encoding/base64"
	"encoding/xml"
	"strconv"
	"strings"
)

type partAttrXML struct {
	PartNumber int
	Size       int64
	checksumsXML
}

type objectPartsXML struct {
	IsTruncated          bool
	MaxParts             int
	NextPartNumberMarker int
	PartNumberMarker     int
	Part                 []partAttrXML
	PartsCount           int
}

type objectAttributesXML struct {
	XMLName  xml.Name `xml:"GetObjectAttributesResponse"`
	Xmlns    string   `xml:"xmlns,attr"`
	ETag     string   `xml:",omitempty"`
	Checksum *struct {
		checksumsXML
		ChecksumType string `xml:",omitempty"`
	} `xml:",omitempty"`
	ObjectParts  *objectPartsXML `xml:",omitempty"`
	StorageClass string          `xml:",omitempty"`
	ObjectSize   *int64          `xml:",omitempty"`
}

// getAttributes serves GetObjectAttributes: of the version asked for, the
// attributes x-amz-object-attributes names (ETag, Checksum, ObjectParts,
// StorageClass, ObjectSize), its parts in pages (x-amz-max-parts,
// x-amz-part-number-marker), each with its checksum when it has one.
func (s *service) getAttributes(c *call) error {
	bk, err := s.be.bucket(c.bucket)
	if err != nil {
		return err
	}
	want := map[string]bool{}
	for a := range strings.SplitSeq(c.r.Header.Get("X-Amz-Object-Attributes"), ",") {
		want[strings.TrimSpace(a)] = true
	}
	maxParts, marker := 1000, 0
	if v := c.r.Header.Get("X-Amz-Max-Parts"); v != "" {
		if maxParts, err = strconv.Atoi(v); err != nil || maxParts < 0 {
			return errInvalidArgument("x-amz-max-parts must be a non-negative integer")
		}
	}
	if v := c.r.Header.Get("X-Amz-Part-Number-Marker"); v != "" {
		if marker, err = strconv.Atoi(v); err != nil || marker < 0 {
			return errInvalidArgument("x-amz-part-number-marker must be a non-negative integer")
		}
	}
	bk.mu.RLock()
	versioned := bk.versioning != ""
	obj, err := s.readable(c, bk, c.key, c.query("versionId"))
	if err == nil {
		err = checkSSEKey(c.r.Header, obj.attrs, false)
	}
	bk.mu.RUnlock()
	if err != nil {
		return err
	}
	res := objectAttributesXML{Xmlns: s3ns}
	if want["ETag"] {
		res.ETag = strings.Trim(obj.etag, `"`)
	}
	if want["StorageClass"] {
		res.StorageClass = obj.attrs.storageClass()
	}
	if want["ObjectSize"] {
		size := obj.size
		res.ObjectSize = &size
	}
	if sum := obj.attrs.sum; want["Checksum"] && sum.Alg != "" {
		res.Checksum = &struct {
			checksumsXML
			ChecksumType string `xml:",omitempty"`
		}{ChecksumType: sum.Type}
		res.Checksum.set(sum.Alg, sum.Value)
	}
	if want["ObjectParts"] && len(obj.parts) > 0 {
		res.ObjectParts = objectParts(obj, maxParts, marker)
	}
	h := c.w.Header()
	h.Set("Last-Modified", obj.lastMod)
	if versioned {
		h.Set("X-Amz-Version-Id", wireVersion(obj.version))
	}
	writeXML(c.w, res)
	return nil
}

func objectParts(obj *object, maxParts, marker int) *objectPartsXML {
	p := &objectPartsXML{MaxParts: maxParts, PartNumberMarker: marker, PartsCount: len(obj.parts)}
	for i := marker; i < len(obj.parts); i++ {
		if len(p.Part) == maxParts {
			p.IsTruncated = true
			break
		}
		part := partAttrXML{PartNumber: i + 1, Size: obj.parts[i]}
		if i < len(obj.attrs.partSums) && obj.attrs.partSums[i] != "" {
			part.set(obj.attrs.sum.Alg, obj.attrs.partSums[i])
		}
		p.Part = append(p.Part, part)
		p.NextPartNumberMarker = i + 1
	}
	return p
}

// partSums are a completed upload's part checksums as S3 prints them.
func partSums(sums [][]byte) []string {
	out := make([]string, len(sums))
	for i, s := range sums {
		if s != nil {
			out[i] = base64.StdEncoding.EncodeToString(s)
		}
	}
	return out
}
