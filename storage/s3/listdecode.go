package s3

import (
	"bytes"
	"encoding/xml"
	"errors"
	"strconv"
	"strings"
	"time"
)

// listEntry is one object of a ListObjectsV2 page.
type listEntry struct {
	Key          string    `xml:"Key"`
	Size         int64     `xml:"Size"`
	ETag         string    `xml:"ETag"`
	LastModified time.Time `xml:"LastModified"`
}

// errNotFast means the page has a shape the fast decoder does not handle.
var errNotFast = errors.New("s3: list page needs the full XML decoder")

// decodeListPage decodes a ListObjectsV2 page. encoding/xml spends ~18 ms
// and ~50k allocations on a 1,000-key page, which made LIST measure the
// client; the scanner below reads just the fields objbench uses, and pages
// it does not recognise go to encoding/xml.
func decodeListPage(body []byte) (*listPage, error) {
	if p, err := scanListPage(body); err == nil {
		return p, nil
	}
	p := &listPage{}
	if err := xml.Unmarshal(body, p); err != nil {
		return nil, err
	}
	return p, nil
}

// scanListPage handles S3's own layout: unprefixed elements without
// attributes inside <ListBucketResult>, no CDATA.
func scanListPage(body []byte) (*listPage, error) {
	if !bytes.Contains(body, []byte("<ListBucketResult")) || bytes.Contains(body, []byte("<![CDATA[")) {
		return nil, errNotFast
	}
	p := &listPage{}
	rest := body
	for {
		start := bytes.Index(rest, []byte("<Contents>"))
		if start < 0 {
			break
		}
		end := bytes.Index(rest[start:], []byte("</Contents>"))
		if end < 0 {
			return nil, errNotFast
		}
		e, err := scanEntry(rest[start+len("<Contents>") : start+end])
		if err != nil {
			return nil, err
		}
		p.Contents = append(p.Contents, e)
		rest = rest[start+end+len("</Contents>"):]
	}
	head := body // top-level fields, outside the entries
	if i := bytes.Index(body, []byte("<Contents>")); i >= 0 {
		head = append(append([]byte(nil), body[:i]...), rest...)
	}
	var err error
	var truncated string
	if truncated, err = element(head, "IsTruncated"); err != nil {
		return nil, err
	}
	if truncated = strings.TrimSpace(truncated); truncated != "" {
		if p.IsTruncated, err = strconv.ParseBool(truncated); err != nil {
			return nil, errNotFast
		}
	}
	if p.NextContinuationToken, err = element(head, "NextContinuationToken"); err != nil {
		return nil, err
	}
	if p.EncodingType, err = element(head, "EncodingType"); err != nil {
		return nil, err
	}
	return p, nil
}

func scanEntry(b []byte) (listEntry, error) {
	var e listEntry
	var err error
	var size, mod string
	if e.Key, err = element(b, "Key"); err != nil {
		return e, err
	}
	if e.ETag, err = element(b, "ETag"); err != nil {
		return e, err
	}
	if size, err = element(b, "Size"); err != nil {
		return e, err
	}
	if e.Size, err = strconv.ParseInt(strings.TrimSpace(size), 10, 64); err != nil {
		return e, errNotFast
	}
	if mod, err = element(b, "LastModified"); err != nil {
		return e, err
	}
	if mod != "" {
		if e.LastModified, err = time.Parse(time.RFC3339, strings.TrimSpace(mod)); err != nil {
			return e, errNotFast
		}
	}
	return e, nil
}

// element returns the unescaped text of the first <name>...</name> in b,
// or "" if there is none.
func element(b []byte, name string) (string, error) {
	open := "<" + name + ">"
	i := bytes.Index(b, []byte(open))
	if i < 0 {
		return "", nil
	}
	b = b[i+len(open):]
	j := bytes.Index(b, []byte("</"+name+">"))
	if j < 0 || bytes.IndexByte(b[:j], '<') >= 0 {
		return "", errNotFast
	}
	return unescapeXML(b[:j])
}

// unescapeXML resolves the five named entities and numeric references.
func unescapeXML(b []byte) (string, error) {
	if bytes.IndexByte(b, '&') < 0 {
		return string(b), nil
	}
	var out strings.Builder
	for len(b) > 0 {
		i := bytes.IndexByte(b, '&')
		if i < 0 {
			out.Write(b)
			break
		}
		out.Write(b[:i])
		b = b[i:]
		j := bytes.IndexByte(b, ';')
		if j < 0 {
			return "", errNotFast
		}
		ref := string(b[1:j])
		switch ref {
		case "amp":
			out.WriteByte('&')
		case "lt":
			out.WriteByte('<')
		case "gt":
			out.WriteByte('>')
		case "quot":
			out.WriteByte('"')
		case "apos":
			out.WriteByte('\'')
		default:
			r, err := numericRef(ref)
			if err != nil {
				return "", err
			}
			out.WriteRune(r)
		}
		b = b[j+1:]
	}
	return out.String(), nil
}

func numericRef(ref string) (rune, error) {
	var n uint64
	var err error
	switch {
	case strings.HasPrefix(ref, "#x"):
		n, err = strconv.ParseUint(ref[2:], 16, 32)
	case strings.HasPrefix(ref, "#"):
		n, err = strconv.ParseUint(ref[1:], 10, 32)
	default:
		return 0, errNotFast
	}
	if err != nil || n == 0 || n > 0x10FFFF || (n >= 0xD800 && n <= 0xDFFF) {
		return 0, errNotFast
	}
	return rune(n), nil
}
