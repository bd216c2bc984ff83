package s3server

import (
	"encoding/xml"
)

// deleteResult is what a delete did: the version it removed or the
// marker it made (id as S3 prints it), and whether that is a marker.
type deleteResult struct {
	version string
	marker  bool
}

// deleteOne deletes as S3 does: with a version id, that version (or
// marker) for good; without, the null version of an unversioned bucket,
// or a new delete marker under versioning (a null one when suspended,
// which replaces the null version). ifMatch, when set, must name the
// current version's ETag (412; 404 without a current version).
func (b *backend) deleteOne(bk *bucket, key, id, ifMatch string) (deleteResult, error) {
	if id != "" && !validVersionID(id) {
		return deleteResult{}, errInvalidArgument("Invalid version id specified")
	}
	var cond precondition
	if ifMatch != "" {
		cond = writeConditions{ifMatch: ifMatch}.check
	}
	bk.mu.RLock()
	versioning := bk.versioning
	bk.mu.RUnlock()
	if id == "" && versioning != "" {
		m := newMarker(key, b.now())
		if err := b.publish(bk, m, cond); err != nil {
			return deleteResult{}, err
		}
		return deleteResult{version: wireVersion(m.version), marker: true}, nil
	}
	bk.mu.Lock()
	var gone *object
	var err error
	switch {
	case bk.deleted:
		err = errNoSuchBucket()
	case cond != nil:
		err = cond(bk.current(key))
	}
	if err == nil {
		if gone = bk.find(key, id); gone != nil {
			bk.remove(gone)
		}
	}
	bk.mu.Unlock()
	if err != nil {
		return deleteResult{}, err
	}
	res := deleteResult{version: id}
	if gone != nil {
		res.marker = gone.marker
		b.release(gone)
	}
	return res, nil
}

type versionEntry struct {
	XMLName      xml.Name // Version or DeleteMarker
	Key          string
	VersionID    string `xml:"VersionId"`
	IsLatest     bool
	LastModified string
	ETag         string `xml:",omitempty"`
	Size         *int64 `xml:",omitempty"`
	StorageClass string `xml:",omitempty"`
	Owner        *owner
}

type versionsResult struct {
	XMLName             xml.Name `xml:"ListVersionsResult"`
	Xmlns               string   `xml:"xmlns,attr"`
	Name                string
	Prefix              string
	KeyMarker           string
	VersionIDMarker     string `xml:"VersionIdMarker"`
	NextKeyMarker       string `xml:",omitempty"`
	NextVersionIDMarker string `xml:"NextVersionIdMarker,omitempty"`
	MaxKeys             int
	Delimiter           string `xml:",omitempty"`
	EncodingType        string `xml:",omitempty"`
	IsTruncated         bool
	Entries             []versionEntry
	CommonPrefixes      []commonPrefixXML
}

// listVersions serves ListObjectVersions: keys in order, each key's
// versions and delete markers newest first, in pages that resume at
// key-marker and version-id-marker.
func (s *service) listVersions(c *call) error {
	bk, err := s.be.bucket(c.bucket)
	if err != nil {
		return err
	}
	p, err := parseListPage(c, "max-keys")
	if err != nil {
		return err
	}
	keyMarker, idMarker := c.query("key-marker"), c.query("version-id-marker")
	if idMarker != "" && keyMarker == "" {
		return errInvalidArgument("A version-id marker cannot be specified without a key marker.")
	}
	res := versionsResult{Xmlns: s3ns, Name: bk.name, Prefix: p.enc(p.prefix), KeyMarker: p.enc(keyMarker),
		VersionIDMarker: idMarker, MaxKeys: p.maxKeys, Delimiter: p.enc(p.delimiter)}
	if p.encode {
		res.EncodingType = "url"
	}
	bk.mu.RLock()
	if idMarker != "" {
		s.versionsAfter(&res, p, bk.keys[keyMarker], idMarker)
	}
	p.start = keyMarker
	if !res.IsTruncated {
		bk.scan(p, func(*versions) bool { return true }, func(key string, vs *versions, common string) bool {
			if vs == nil {
				if len(res.Entries)+len(res.CommonPrefixes) == p.maxKeys {
					res.IsTruncated = p.maxKeys > 0
					return false
				}
				res.CommonPrefixes = append(res.CommonPrefixes, commonPrefixXML{p.enc(common)})
				res.NextKeyMarker, res.NextVersionIDMarker = p.enc(common), ""
				return true
			}
			return s.addVersions(&res, p, vs.v, 0)
		})
	}
	bk.mu.RUnlock()
	if !res.IsTruncated {
		res.NextKeyMarker, res.NextVersionIDMarker = "", ""
	}
	writeXML(c.w, res)
	return nil
}

// versionsAfter lists the versions of the key-marker's key older than
// version-id-marker.
func (s *service) versionsAfter(res *versionsResult, p listPage, vs *versions, idMarker string) {
	if vs == nil {
		return
	}
	for i, o := range vs.v {
		if wireVersion(o.version) == idMarker {
			s.addVersions(res, p, vs.v, i+1)
			return
		}
	}
}

// addVersions adds v[from:] to the page; false when the page is full.
func (s *service) addVersions(res *versionsResult, p listPage, v []*object, from int) bool {
	for i := from; i < len(v); i++ {
		if len(res.Entries)+len(res.CommonPrefixes) == p.maxKeys {
			res.IsTruncated = p.maxKeys > 0
			return false
		}
		o := v[i]
		e := versionEntry{XMLName: xml.Name{Local: "Version"}, Key: p.enc(o.key), VersionID: wireVersion(o.version),
			IsLatest: i == 0, LastModified: xmlTime(o.mod), Owner: theOwner()}
		if o.marker {
			e.XMLName.Local = "DeleteMarker"
		} else {
			size := o.size
			e.ETag, e.Size, e.StorageClass = o.etag, &size, o.attrs.storageClass()
		}
		res.Entries = append(res.Entries, e)
		res.NextKeyMarker, res.NextVersionIDMarker = p.enc(o.key), wireVersion(o.version)
	}
	return true
}
