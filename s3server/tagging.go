package s3server

import (
	"encoding/xml"
	"net/http"
)

type taggingXML struct {
	XMLName xml.Name `xml:"Tagging"`
	Xmlns   string   `xml:"xmlns,attr,omitempty"`
	TagSet  struct {
		Tag []tag
	}
}

// getTagging serves GetObjectTagging (of a version, with ?versionId).
func (s *service) getTagging(c *call) error {
	bk, err := s.be.bucket(c.bucket)
	if err != nil {
		return err
	}
	bk.mu.RLock()
	obj, err := s.readable(c, bk, c.key, c.query("versionId"))
	bk.mu.RUnlock()
	if err != nil {
		return err
	}
	res := taggingXML{Xmlns: s3ns}
	res.TagSet.Tag = obj.attrs.tags
	if obj.version != "" {
		c.w.Header().Set("X-Amz-Version-Id", obj.version)
	}
	writeXML(c.w, res)
	return nil
}

// putTagging serves PutObjectTagging: the tags replace the version's.
func (s *service) putTagging(c *call) error {
	var in taggingXML
	if err := readXML(c.r, 64<<10, &in); err != nil {
		return err
	}
	if err := checkTags(in.TagSet.Tag); err != nil {
		return err
	}
	return s.setTags(c, in.TagSet.Tag, http.StatusOK)
}

// deleteTagging serves DeleteObjectTagging.
func (s *service) deleteTagging(c *call) error { return s.setTags(c, nil, http.StatusNoContent) }

// setTags publishes a copy of the version with new tags in its place: the
// body is shared, and nothing else about the version changes.
func (s *service) setTags(c *call, tags []tag, status int) error {
	bk, err := s.be.bucket(c.bucket)
	if err != nil {
		return err
	}
	for {
		bk.mu.RLock()
		obj, err := s.readable(c, bk, c.key, c.query("versionId"))
		bk.mu.RUnlock()
		if err != nil {
			return err
		}
		changed := *obj
		a := *obj.attrs
		a.tags = tags
		changed.attrs = &a
		if err := s.be.blobs.commit(bk.name, &changed); err != nil {
			return err
		}
		bk.mu.Lock()
		ok := bk.replaceIn(obj, &changed)
		bk.mu.Unlock()
		if ok {
			if obj.version != "" {
				c.w.Header().Set("X-Amz-Version-Id", obj.version)
			}
			c.w.WriteHeader(status)
			return nil
		}
		// The version changed (or went) meanwhile: look again.
	}
}
