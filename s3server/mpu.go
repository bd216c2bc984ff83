package s3server

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/xml"
	"io"
	"net/http"
	"slices"
	"strconv"
)

func (s *service) createUpload(c *call) error {
	if _, err := s.be.bucket(c.bucket); err != nil {
		return err
	}
	if err := checkKey(c.key); err != nil {
		return err
	}
	a, err := attrsFromRequest(c.r.Header)
	if err != nil {
		return err
	}
	if a.sum, err = uploadChecksum(c.r.Header); err != nil {
		return err
	}
	u := s.be.newUpload(c.bucket, c.key, a)
	h := c.w.Header()
	if a.sum.Alg != "" {
		h.Set("X-Amz-Checksum-Algorithm", a.sum.Alg)
		h.Set("X-Amz-Checksum-Type", a.sum.Type)
	}
	setSSEHeaders(h, a)
	writeXML(c.w, struct {
		XMLName  xml.Name `xml:"InitiateMultipartUploadResult"`
		Xmlns    string   `xml:"xmlns,attr"`
		Bucket   string
		Key      string
		UploadID string `xml:"UploadId"`
	}{Xmlns: s3ns, Bucket: c.bucket, Key: c.key, UploadID: u.id})
	return nil
}

// uploadPart stores a part (or copies one: x-amz-copy-source). Its
// checksum is the upload's algorithm, checked when the client sent one.
func (s *service) uploadPart(c *call) error {
	n, err := partNumber(c)
	if err != nil {
		return err
	}
	u, err := s.be.upload(c.bucket, c.key, c.query("uploadId"), false)
	if err != nil {
		return err
	}
	if err := checkSSEKey(c.r.Header, u.attrs, false); err != nil { // a part of an SSE-C upload brings its key
		return err
	}
	if _, ok := c.r.Header["X-Amz-Copy-Source"]; ok {
		return s.uploadPartCopy(c, u, n)
	}
	alg, _, err := requestChecksum(c.r.Header)
	if err != nil {
		return err
	}
	if alg != "" && u.attrs.sum.Alg != "" && alg != u.attrs.sum.Alg {
		return errInvalidRequest("Checksum Type mismatch occurred, expected checksum Type: " + u.attrs.sum.Alg + ", actual checksum Type: " + alg)
	}
	got, err := s.receiveWith(c, u.attrs.sum.Alg, func(r io.Reader, size int64) (blob, error) {
		return s.be.blobs.writePart(u.id, n, r, size)
	})
	if err != nil {
		return err
	}
	p := &part{body: got.body, md5: got.md5, sum: got.sum, etag: `"` + hex.EncodeToString(got.md5) + `"`, mod: s.be.now()}
	if err := s.be.addPart(u, n, p); err != nil {
		return err
	}
	h := c.w.Header()
	h["Etag"] = []string{p.etag}
	if got.alg != "" {
		h[checksumHeader(got.alg)] = []string{base64.StdEncoding.EncodeToString(got.sum)}
	}
	setSSEHeaders(h, u.attrs)
	c.w.WriteHeader(http.StatusOK)
	return nil
}

type partXML struct {
	PartNumber   int
	LastModified string
	ETag         string
	Size         int64
	checksumsXML
}

// checksumsXML are the elements S3's documents carry a checksum in, one
// per algorithm.
type checksumsXML struct {
	ChecksumCRC32     string `xml:",omitempty"`
	ChecksumCRC32C    string `xml:",omitempty"`
	ChecksumCRC64NVME string `xml:",omitempty"`
	ChecksumSHA1      string `xml:",omitempty"`
	ChecksumSHA256    string `xml:",omitempty"`
}

// set puts a value in the element of its algorithm.
func (p *checksumsXML) set(alg, v string) {
	switch alg {
	case "CRC32":
		p.ChecksumCRC32 = v
	case "CRC32C":
		p.ChecksumCRC32C = v
	case "CRC64NVME":
		p.ChecksumCRC64NVME = v
	case "SHA1":
		p.ChecksumSHA1 = v
	case "SHA256":
		p.ChecksumSHA256 = v
	}
}

func (s *service) listParts(c *call) error {
	u, err := s.be.upload(c.bucket, c.key, c.query("uploadId"), false)
	if err != nil {
		return err
	}
	limit, marker := 1000, 0
	if v := c.query("max-parts"); v != "" {
		if limit, err = strconv.Atoi(v); err != nil || limit < 0 {
			return errInvalidArgument("max-parts must be a non-negative integer")
		}
		limit = min(limit, 1000)
	}
	if v := c.query("part-number-marker"); v != "" {
		if marker, err = strconv.Atoi(v); err != nil || marker < 0 {
			return errInvalidArgument("part-number-marker must be a non-negative integer")
		}
	}
	res := struct {
		XMLName              xml.Name `xml:"ListPartsResult"`
		Xmlns                string   `xml:"xmlns,attr"`
		Bucket, Key          string
		UploadID             string `xml:"UploadId"`
		Initiator, Owner     *owner
		StorageClass         string
		PartNumberMarker     int
		NextPartNumberMarker int
		MaxParts             int
		IsTruncated          bool
		ChecksumAlgorithm    string `xml:",omitempty"`
		ChecksumType         string `xml:",omitempty"`
		Part                 []partXML
	}{Xmlns: s3ns, Bucket: c.bucket, Key: c.key, UploadID: u.id, Initiator: theOwner(), Owner: theOwner(),
		StorageClass: "STANDARD", PartNumberMarker: marker, MaxParts: limit,
		ChecksumAlgorithm: u.attrs.sum.Alg, ChecksumType: u.attrs.sum.Type}
	u.mu.Lock()
	nums := make([]int, 0, len(u.parts))
	for n := range u.parts {
		if n > marker {
			nums = append(nums, n)
		}
	}
	slices.Sort(nums)
	for _, n := range nums {
		if len(res.Part) >= limit {
			res.IsTruncated = true
			break
		}
		p := u.parts[n]
		px := partXML{PartNumber: n, ETag: p.etag, Size: p.body.size(), LastModified: xmlTime(p.mod)}
		if p.sum != nil {
			px.set(u.attrs.sum.Alg, base64.StdEncoding.EncodeToString(p.sum))
		}
		res.Part = append(res.Part, px)
		res.NextPartNumberMarker = n
	}
	u.mu.Unlock()
	writeXML(c.w, res)
	return nil
}

func (s *service) completeUpload(c *call) error {
	bk, err := s.be.bucket(c.bucket)
	if err != nil {
		return err
	}
	u, err := s.be.upload(c.bucket, c.key, c.query("uploadId"), false)
	if err != nil {
		if obj := s.be.completedAs(c.bucket, c.key, c.query("uploadId")); obj != nil {
			return s.completed(c, obj) // a repeated completion: the same answer
		}
		return err
	}
	cond, err := parseWriteConditions(c.r.Header)
	if err != nil {
		return err
	}
	if !cond.none() {
		bk.mu.RLock()
		err = cond.check(bk.current(c.key))
		bk.mu.RUnlock()
		if err != nil {
			return err
		}
	}
	var in struct {
		Part []completedPart
	}
	if err := readXML(c.r, 4<<20, &in); err != nil {
		return err
	}
	want := ""
	if u.attrs.sum.Alg != "" {
		want = c.r.Header.Get(checksumHeader(u.attrs.sum.Alg))
	}
	obj, err := s.be.complete(bk, u, in.Part, want, cond)
	if err != nil {
		return err
	}
	return s.completed(c, obj)
}

// completed answers a CompleteMultipartUpload that made obj.
func (s *service) completed(c *call, obj *object) error {
	if obj.version != "" {
		c.w.Header().Set("X-Amz-Version-Id", obj.version)
	}
	setSSEHeaders(c.w.Header(), obj.attrs)
	res := struct {
		XMLName               xml.Name `xml:"CompleteMultipartUploadResult"`
		Xmlns                 string   `xml:"xmlns,attr"`
		Location, Bucket, Key string
		ETag                  string
		checksumsXML                 // the object's checksum, if it has one
		ChecksumType          string `xml:",omitempty"`
	}{Xmlns: s3ns, Location: "/" + c.bucket + "/" + c.key, Bucket: c.bucket, Key: c.key, ETag: obj.etag}
	if obj.attrs.sum.Alg != "" {
		res.set(obj.attrs.sum.Alg, obj.attrs.sum.Value)
		res.ChecksumType = obj.attrs.sum.Type
	}
	writeXML(c.w, res)
	return nil
}

func (s *service) abortUpload(c *call) error {
	if err := s.be.abort(c.bucket, c.key, c.query("uploadId")); err != nil {
		return err
	}
	c.w.WriteHeader(http.StatusNoContent)
	return nil
}

type uploadXML struct {
	Key          string
	UploadID     string `xml:"UploadId"`
	Initiator    *owner
	Owner        *owner
	StorageClass string
	Initiated    string
}

func (s *service) listUploads(c *call) error {
	if _, err := s.be.bucket(c.bucket); err != nil {
		return err
	}
	p, err := parseListPage(c, "max-uploads")
	if err != nil {
		return err
	}
	keyMarker, idMarker := c.query("key-marker"), c.query("upload-id-marker")
	res := struct {
		XMLName            xml.Name `xml:"ListMultipartUploadsResult"`
		Xmlns              string   `xml:"xmlns,attr"`
		Bucket             string
		KeyMarker          string
		UploadIDMarker     string `xml:"UploadIdMarker"`
		NextKeyMarker      string
		NextUploadIDMarker string `xml:"NextUploadIdMarker"`
		Prefix             string
		Delimiter          string `xml:",omitempty"`
		MaxUploads         int
		EncodingType       string `xml:",omitempty"`
		IsTruncated        bool
		Upload             []uploadXML
		CommonPrefixes     []commonPrefixXML
	}{Xmlns: s3ns, Bucket: c.bucket, KeyMarker: p.enc(keyMarker), UploadIDMarker: idMarker, Prefix: p.enc(p.prefix),
		Delimiter: p.enc(p.delimiter), MaxUploads: p.maxKeys}
	if p.encode {
		res.EncodingType = "url"
	}
	seen := map[string]bool{}
	for _, u := range afterMarker(s.be.uploadsOf(c.bucket, p.prefix), keyMarker, idMarker) {
		common := commonPrefix(p, u.key)
		if len(res.Upload)+len(res.CommonPrefixes) >= p.maxKeys && !seen[common] {
			res.IsTruncated = p.maxKeys > 0
			break
		}
		if common != "" {
			if !seen[common] {
				seen[common] = true
				res.CommonPrefixes = append(res.CommonPrefixes, commonPrefixXML{p.enc(common)})
			}
			continue
		}
		res.Upload = append(res.Upload, uploadXML{Key: p.enc(u.key), UploadID: u.id, Initiator: theOwner(),
			Owner: theOwner(), StorageClass: "STANDARD", Initiated: xmlTime(u.initiated)})
		res.NextKeyMarker, res.NextUploadIDMarker = p.enc(u.key), u.id
	}
	writeXML(c.w, res)
	return nil
}
