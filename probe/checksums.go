package probe

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"hash/crc64"
	"net/http"
	"net/url"
	"strings"

	"github.com/objbench/objbench/storage"
)

// checksumNames are the checksum features: each algorithm sent in a
// header and (but MD5, which S3 takes only as Content-MD5) as an
// aws-chunked trailer; a stored checksum read back and verified; a
// multipart upload with part checksums, and the kind it ends with.
func checksumNames() []string {
	var names []string
	for _, c := range storage.Checksums() {
		names = append(names, "checksum."+string(c)+".header")
		if c != storage.ChecksumMD5 {
			names = append(names, "checksum."+string(c)+".trailer")
		}
	}
	return append(names, "checksum.get", "checksum.multipart", "checksum.full-object")
}

func checkChecksums(ctx context.Context, p *prober) {
	data := payload(4096, 6)
	stored := ""
	for _, c := range storage.Checksums() {
		for _, trailer := range []bool{false, true} {
			if trailer && c == storage.ChecksumMD5 {
				continue
			}
			how, name := "header", "checksum."+string(c)+".header"
			if trailer {
				how, name = "trailer", "checksum."+string(c)+".trailer"
			}
			_, err := p.put(ctx, name, data, storage.PutOptions{Checksum: c, ChecksumTrailer: trailer})
			switch {
			case err == nil && c == storage.ChecksumMD5:
				p.add(name, Yes, "Content-MD5 accepted")
			case err == nil:
				p.add(name, Yes, "%s in a %s, verified and echoed", c, how)
				if stored == "" && !trailer {
					stored = p.prefix + name
				}
			default:
				p.add(name, No, "%s", refusal(err))
			}
		}
	}
	checkStoredChecksum(ctx, p, stored, data)
	checkMultipartChecksum(ctx, p)
	checkFullObjectChecksum(ctx, p)
}

// checkStoredChecksum reads back an object written with a checksum and
// verifies the body against the checksum the store kept.
func checkStoredChecksum(ctx context.Context, p *prober, key string, data []byte) {
	if key == "" {
		p.add("checksum.get", NotChecked, "no object was stored with a checksum")
		return
	}
	var buf bytes.Buffer
	_, err := p.st.Get(ctx, key, storage.GetOptions{VerifyChecksum: true}, &buf)
	switch {
	case err == nil && bytes.Equal(buf.Bytes(), data):
		p.add("checksum.get", Yes, "the stored checksum comes back with the object (x-amz-checksum-mode) and matches")
	case err == nil:
		p.add("checksum.get", Differs, "the body read back differs from what was written")
	case errors.Is(err, storage.ErrNotImplemented):
		p.add("checksum.get", No, "the object comes back without its checksum")
	default:
		p.add("checksum.get", No, "%s", refusal(p.seen(err)))
	}
}

// checkMultipartChecksum uploads two parts with CRC32C checksums and asks
// which checksum the object ends with: COMPOSITE (a checksum of the
// parts' checksums, "-2") or FULL_OBJECT.
func checkMultipartChecksum(ctx context.Context, p *prober) {
	const name = "checksum.multipart"
	key := p.key("checksum-multipart")
	id, err := p.st.CreateMultipartWith(ctx, key, storage.PutOptions{Checksum: storage.ChecksumCRC32C})
	if err != nil {
		p.add(name, No, "%s", refusal(p.seen(err)))
		return
	}
	p.startUpload(key, id)
	var parts []storage.Part
	for i, b := range [][]byte{payload(partMin, 7), payload(1024, 8)} {
		pt, err := p.st.UploadPart(ctx, key, id, i+1, bytes.NewReader(b), int64(len(b)),
			storage.PutOptions{Checksum: storage.ChecksumCRC32C})
		if err != nil {
			p.add(name, No, "part %d: %s", i+1, refusal(p.seen(err)))
			return
		}
		parts = append(parts, pt)
	}
	if _, err := p.st.CompleteMultipart(ctx, key, id, parts); err != nil {
		p.add(name, No, "complete: %s", refusal(p.seen(err)))
		return
	}
	p.endUpload(key, id)
	r, err := p.st.Exchange(ctx, http.MethodHead, key, "", http.Header{"X-Amz-Checksum-Mode": {"ENABLED"}}, nil)
	if err != nil || r.StatusCode != 200 {
		p.add(name, Yes, "parts with CRC32C accepted; the completed object's checksum could not be read")
		return
	}
	v, kind := r.Header.Get("X-Amz-Checksum-Crc32c"), r.Header.Get("X-Amz-Checksum-Type")
	switch {
	case v == "":
		p.add(name, Differs, "parts with CRC32C accepted, but the object keeps no checksum")
	case kind == "" && strings.Contains(v, "-"):
		p.add(name, Yes, "CRC32C COMPOSITE (%s; no x-amz-checksum-type)", v)
	case kind == "":
		p.add(name, Yes, "CRC32C of unstated type (%s)", v)
	default:
		p.add(name, Yes, "CRC32C %s (%s)", strings.ToUpper(kind), v)
	}
}

// crc64NVME is CRC-64/NVME (polynomial 0xAD93D23594C93659, bit reversed
// as hash/crc64 takes it), S3's CRC64NVME.
var crc64NVME = crc64.MakeTable(0x9A6C9329AC4BC9B5)

// checkFullObjectChecksum uploads two parts with CRC64NVME checksums in an
// upload created as FULL_OBJECT, completes it with the whole object's
// CRC64NVME, and asks which checksum the object ends with.
func checkFullObjectChecksum(ctx context.Context, p *prober) {
	const name = "checksum.full-object"
	key := p.key("checksum-full-object")
	r, err := p.st.Exchange(ctx, http.MethodPost, key, "uploads=", http.Header{
		"X-Amz-Checksum-Algorithm": {"CRC64NVME"}, "X-Amz-Checksum-Type": {"FULL_OBJECT"}}, nil)
	var created struct {
		UploadID string `xml:"UploadId"`
	}
	if err != nil || r.StatusCode != 200 || xml.Unmarshal(r.Body, &created) != nil || created.UploadID == "" {
		if err == nil {
			err = p.st.ReplyError(ctx, r)
		}
		p.add(name, No, "create: %s", refusal(p.seen(err)))
		return
	}
	p.startUpload(key, created.UploadID)
	whole := crc64.New(crc64NVME)
	var doc strings.Builder
	doc.WriteString(`<CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">`)
	for i, b := range [][]byte{payload(partMin, 13), payload(1024, 14)} {
		whole.Write(b)
		pt, err := p.st.UploadPart(ctx, key, created.UploadID, i+1, bytes.NewReader(b), int64(len(b)),
			storage.PutOptions{Checksum: storage.ChecksumCRC64NVME})
		if err != nil {
			p.add(name, No, "part %d: %s", i+1, refusal(p.seen(err)))
			return
		}
		fmt.Fprintf(&doc, "<Part><PartNumber>%d</PartNumber><ETag>&quot;%s&quot;</ETag><ChecksumCRC64NVME>%s</ChecksumCRC64NVME></Part>",
			i+1, strings.Trim(pt.ETag, `"`), pt.Checksum)
	}
	doc.WriteString("</CompleteMultipartUpload>")
	sum := base64.StdEncoding.EncodeToString(whole.Sum(nil))
	r, err = p.st.Exchange(ctx, http.MethodPost, key, "uploadId="+url.QueryEscape(created.UploadID), http.Header{
		"X-Amz-Checksum-Crc64nvme": {sum}, "X-Amz-Checksum-Type": {"FULL_OBJECT"}}, []byte(doc.String()))
	if err != nil || r.StatusCode != 200 || bytes.Contains(r.Body, []byte("<Error>")) {
		if err == nil {
			err = p.st.ReplyError(ctx, r)
		}
		p.add(name, No, "complete: %s", refusal(p.seen(err)))
		return
	}
	p.endUpload(key, created.UploadID)
	h, err := p.st.Exchange(ctx, http.MethodHead, key, "", http.Header{"X-Amz-Checksum-Mode": {"ENABLED"}}, nil)
	if err != nil || h.StatusCode != 200 {
		p.add(name, Yes, "completed as FULL_OBJECT; the object's checksum could not be read")
		return
	}
	got, kind := h.Header.Get("X-Amz-Checksum-Crc64nvme"), h.Header.Get("X-Amz-Checksum-Type")
	switch {
	case got == sum && (kind == "" || strings.EqualFold(kind, "FULL_OBJECT")):
		p.add(name, Yes, "CRC64NVME of the whole object (%s), from parts with their own", sum)
	case got == "":
		p.add(name, No, "completed, but the object keeps no CRC64NVME")
	default:
		p.add(name, Differs, "asked FULL_OBJECT %s, the object has %s %s", sum, kind, got)
	}
}
