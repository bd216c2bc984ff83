package probe

import (
	"bytes"
	"context"
	"crypto/md5" //nolint:gosec // S3's ETag form, not security
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/objbench/objbench/storage"
)

// checks is every question, in the order asked. Checks that need an
// object make their own.
func checks() []check {
	return []check{
		{"server", []string{"server"}, checkServer},
		{"addressing", []string{"addressing.path", "addressing.virtual-host"}, checkAddressing},
		{"tls", []string{"tls"}, checkTLS},
		{"etag", []string{"etag.put"}, checkETag},
		{"list", []string{"list.v2", "list.v1", "list.order"}, checkLists},
		{"multipart", []string{"multipart", "multipart.etag", "multipart.min-part-size"}, checkMultipart},
		{"checksum", checksumNames(), checkChecksums},
		{"conditional", []string{"conditional.put.if-none-match", "conditional.put.if-match",
			"conditional.get.if-none-match", "conditional.get.if-match"}, checkConditional},
		// Before versioning, which may enable it on the probe's bucket:
		// deletes of keys that were never written then leave no markers.
		{"delete-objects", []string{"delete-objects", "delete-objects.limit"}, checkDeleteObjects},
		{"versioning", []string{"versioning"}, checkVersioning},
		{"object-lock", []string{"object-lock"}, checkObjectLock},
		{"tagging", []string{"tagging"}, checkTagging},
		{"sse", []string{"sse.s3", "sse.kms", "sse.c"}, checkSSE},
		{"copy", []string{"copy-object", "upload-part-copy"}, checkCopy},
		{"presigned-url", []string{"presigned-url"}, checkPresign},
		{"clock-skew", []string{"clock-skew"}, checkClock},
		{"throttling", []string{"throttling"}, checkThrottling},
	}
}

// put writes data under the probe's key name and returns what the store said.
func (p *prober) put(ctx context.Context, name string, data []byte, o storage.PutOptions) (storage.ObjectInfo, error) {
	oi, err := p.st.Put(ctx, p.key(name), bytes.NewReader(data), int64(len(data)), o)
	return oi, p.seen(err)
}

func md5Hex(b []byte) string {
	h := md5.Sum(b) //nolint:gosec // S3's ETag form
	return hex.EncodeToString(h[:])
}

func checkETag(ctx context.Context, p *prober) {
	data := payload(1024, 1)
	oi, err := p.put(ctx, "etag", data, storage.PutOptions{})
	switch {
	case err != nil:
		p.add("etag.put", No, "PUT failed: %v", err)
	case strings.Trim(oi.ETag, `"`) == md5Hex(data):
		p.add("etag.put", Yes, "the body's MD5 (hex)")
	default:
		p.add("etag.put", Differs, "%q, not the body's MD5 %s: tools that check ETags against MD5 fail here", oi.ETag, md5Hex(data))
	}
}

// listing is the part of a ListObjects (v1 or v2) answer the probe reads.
type listing struct {
	IsTruncated           bool     `xml:"IsTruncated"`
	MaxKeys               int      `xml:"MaxKeys"`
	NextContinuationToken string   `xml:"NextContinuationToken"`
	NextMarker            string   `xml:"NextMarker"`
	Keys                  []string `xml:"Contents>Key"`
}

func (p *prober) list(ctx context.Context, q url.Values) (*listing, error) {
	r, err := p.st.Exchange(ctx, "GET", "", q.Encode(), nil, nil)
	if err != nil {
		return nil, p.seen(err)
	}
	if r.StatusCode != 200 {
		return nil, p.seen(p.st.ReplyError(ctx, r))
	}
	var l listing
	if err := xml.Unmarshal(r.Body, &l); err != nil {
		return nil, fmt.Errorf("unreadable listing: %w", err)
	}
	return &l, nil
}

// listKeys are three keys whose byte order differs from a case-blind or
// locale order: "B" < "a" < "é" in UTF-8 bytes, as S3 sorts.
var listKeys = []string{"list/B", "list/a", "list/\u00e9"}

func checkLists(ctx context.Context, p *prober) {
	for _, k := range listKeys {
		if _, err := p.put(ctx, k, []byte(k), storage.PutOptions{}); err != nil {
			p.add("list.v2", NotChecked, "could not write the keys to list: %v", err)
			return
		}
	}
	want := make([]string, len(listKeys))
	for i, k := range listKeys {
		want[i] = p.prefix + k
	}
	prefix := p.prefix + "list/"
	v2, order := p.pages(ctx, prefix, "2")
	p.rep.Findings = append(p.rep.Findings, v2)
	v1, _ := p.pages(ctx, prefix, "1")
	p.rep.Findings = append(p.rep.Findings, v1)
	switch {
	case order == nil:
		p.add("list.order", NotChecked, "the v2 listing failed")
	case slices.Equal(order, want):
		p.add("list.order", Yes, "UTF-8 byte order (B < a < \u00e9)")
	default:
		p.add("list.order", Differs, "keys came as %q, not in UTF-8 byte order", order)
	}
}

// pages lists prefix (three keys) two at a time with ListObjects version
// v and says whether the pages were honoured and followed.
func (p *prober) pages(ctx context.Context, prefix, v string) (Finding, []string) {
	name := "list.v" + v
	var keys []string
	q := url.Values{"prefix": {prefix}, "max-keys": {"2"}}
	if v == "2" {
		q.Set("list-type", "2")
	}
	var sizes []int
	maxKeys := 0
	for page := 0; page < 4; page++ {
		l, err := p.list(ctx, q)
		if err != nil {
			return Finding{name, No, fmt.Sprintf("listing refused: %v", err)}, nil
		}
		keys, sizes, maxKeys = append(keys, l.Keys...), append(sizes, len(l.Keys)), l.MaxKeys
		if !l.IsTruncated {
			break
		}
		switch {
		case v == "2" && l.NextContinuationToken == "":
			return Finding{name, Differs, "a truncated page without a continuation token"}, keys
		case v == "2":
			q.Set("continuation-token", l.NextContinuationToken)
		case l.NextMarker != "":
			q.Set("marker", l.NextMarker)
		case len(l.Keys) > 0:
			q.Set("marker", l.Keys[len(l.Keys)-1])
		}
	}
	switch {
	case len(keys) != 3:
		return Finding{name, Differs, fmt.Sprintf("pages of max-keys=2 over 3 keys gave %d keys (pages of %v)", len(keys), sizes)}, keys
	case len(sizes) != 2 || sizes[0] != 2:
		return Finding{name, Differs, fmt.Sprintf("max-keys=2 not honoured: pages of %v keys", sizes)}, keys
	}
	return Finding{name, Yes, fmt.Sprintf("pages of max-keys followed (page sizes %v, MaxKeys %d)", sizes, maxKeys)}, keys
}

// partMin is S3's smallest part but the last.
const partMin = 5 << 20

func checkMultipart(ctx context.Context, p *prober) {
	parts := [][]byte{payload(partMin, 2), payload(1024, 3)}
	answered, err := p.multipart(ctx, "multipart", parts)
	if err != nil {
		p.add("multipart", No, "%s", refusal(err))
		p.add("multipart.etag", NotChecked, "no multipart object")
	} else {
		p.add("multipart", Yes, "a 5 MiB part and a 1 KiB last part, completed")
		p.multipartETag(ctx, parts, answered)
	}
	_, err = p.multipart(ctx, "multipart-small", [][]byte{payload(1024, 4), payload(1024, 5)})
	switch {
	case err == nil:
		p.add("multipart.min-part-size", Differs, "parts under 5 MiB accepted (a 1 KiB first part): S3 refuses them (EntityTooSmall)")
	case errors.As(err, new(*storage.StatusError)):
		p.add("multipart.min-part-size", Yes, "parts under 5 MiB but the last refused (%v)", rootStatus(err))
	default:
		p.add("multipart.min-part-size", NotChecked, "%v", err)
	}
}

// multipartETag compares the completed object's ETag with S3's form, and
// the ETag the completion answered with with the object's.
func (p *prober) multipartETag(ctx context.Context, parts [][]byte, answered string) {
	var cat []byte
	for _, b := range parts {
		h := md5.Sum(b) //nolint:gosec // S3's ETag form
		cat = append(cat, h[:]...)
	}
	want := fmt.Sprintf("%s-%d", md5Hex(cat), len(parts))
	oi, err := p.st.Stat(ctx, p.prefix+"multipart")
	got := strings.Trim(oi.ETag, `"`)
	switch {
	case err != nil:
		p.add("multipart.etag", NotChecked, "HEAD of the object: %v", p.seen(err))
	case got != want:
		p.add("multipart.etag", Differs, "%q, not S3's %q: the ETag cannot be checked against the parts", oi.ETag, want)
	case strings.Trim(answered, `"`) == "":
		p.add("multipart.etag", Differs, "CompleteMultipartUpload answered an empty ETag; HEAD gives S3's form (MD5 of the parts' MD5s, -%d), which objbench asks for", len(parts))
	case strings.Trim(answered, `"`) != got:
		p.add("multipart.etag", Differs, "CompleteMultipartUpload answered %q, HEAD %q", answered, oi.ETag)
	default:
		p.add("multipart.etag", Yes, "MD5 of the parts' MD5s, -%d", len(parts))
	}
}

// multipart uploads parts as one object, completed by a request of the
// probe's own so that the ETag the store answered is seen as it was
// (storage/s3 fills in an empty one). The upload is aborted at cleanup
// if it did not complete.
func (p *prober) multipart(ctx context.Context, name string, parts [][]byte) (etag string, err error) {
	key := p.key(name)
	id, err := p.st.CreateMultipart(ctx, key)
	if err != nil {
		return "", p.seen(err)
	}
	p.startUpload(key, id)
	var doc strings.Builder
	doc.WriteString(`<CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">`)
	for i, b := range parts {
		pt, err := p.st.UploadPart(ctx, key, id, i+1, bytes.NewReader(b), int64(len(b)), storage.PutOptions{})
		if err != nil {
			return "", p.seen(err)
		}
		fmt.Fprintf(&doc, "<Part><PartNumber>%d</PartNumber><ETag>&quot;%s&quot;</ETag></Part>", i+1, strings.Trim(pt.ETag, `"`))
	}
	doc.WriteString("</CompleteMultipartUpload>")
	r, err := p.st.Exchange(ctx, "POST", key, "uploadId="+url.QueryEscape(id), nil, []byte(doc.String()))
	if err != nil {
		return "", p.seen(err)
	}
	var out struct {
		XMLName xml.Name
		ETag    string `xml:"ETag"`
	}
	if r.StatusCode != 200 || xml.Unmarshal(r.Body, &out) != nil || out.XMLName.Local == "Error" {
		return "", p.seen(p.st.ReplyError(ctx, r))
	}
	p.endUpload(key, id)
	return out.ETag, nil
}
