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

// scanListPage reads S3's own layout and nothing looser: a <ListBucketResult>
// root (after an optional XML declaration), plain <Name> and </Name> tags
// inside it (no attributes, namespace prefixes, comments, CDATA or
// processing instructions), properly nested. It walks the tags keeping
// depth, so a field counts only where encoding/xml would see it: IsTruncated,
// NextContinuationToken, EncodingType and Contents as children of the root,
// Key, Size, ETag and LastModified as children of a Contents; a repeated
// field keeps its last value, as encoding/xml does. Anything else is
// errNotFast, and encoding/xml decides.
func scanListPage(body []byte) (*listPage, error) {
	rest, err := rootContent(body)
	if err != nil {
		return nil, err
	}
	p := &listPage{}
	for {
		var name []byte
		var end bool
		if name, end, rest, err = nextTag(rest); err != nil {
			return nil, err
		}
		if end {
			if string(name) != "ListBucketResult" {
				return nil, errNotFast
			}
			return p, nil
		}
		var text string
		switch string(name) {
		case "Contents":
			var e listEntry
			if e, rest, err = scanEntry(rest); err != nil {
				return nil, err
			}
			p.Contents = append(p.Contents, e)
			continue
		case "IsTruncated":
			if text, rest, err = leafText(rest, name); err != nil {
				return nil, err
			}
			p.IsTruncated = false
			if t := strings.TrimSpace(text); t != "" {
				if p.IsTruncated, err = strconv.ParseBool(t); err != nil {
					return nil, errNotFast
				}
			}
		case "NextContinuationToken":
			p.NextContinuationToken, rest, err = leafText(rest, name)
		case "EncodingType":
			p.EncodingType, rest, err = leafText(rest, name)
		default:
			rest, err = skipElement(rest, name)
		}
		if err != nil {
			return nil, err
		}
	}
}

// scanEntry reads a <Contents> element's children up to its end tag and
// returns what follows.
func scanEntry(b []byte) (listEntry, []byte, error) {
	var e listEntry
	for {
		name, end, rest, err := nextTag(b)
		if err != nil {
			return e, nil, err
		}
		if end {
			if string(name) != "Contents" {
				return e, nil, errNotFast
			}
			return e, rest, nil
		}
		var text string
		switch string(name) {
		case "Key":
			e.Key, rest, err = leafText(rest, name)
		case "ETag":
			e.ETag, rest, err = leafText(rest, name)
		case "Size":
			if text, rest, err = leafText(rest, name); err == nil {
				if e.Size, err = strconv.ParseInt(strings.TrimSpace(text), 10, 64); err != nil {
					err = errNotFast
				}
			}
		case "LastModified":
			if text, rest, err = leafText(rest, name); err == nil {
				e.LastModified = time.Time{}
				if text != "" {
					if e.LastModified, err = time.Parse(time.RFC3339, strings.TrimSpace(text)); err != nil {
						err = errNotFast
					}
				}
			}
		default:
			rest, err = skipElement(rest, name)
		}
		if err != nil {
			return e, nil, err
		}
		b = rest
	}
}

// rootContent returns what follows the <ListBucketResult ...> start tag,
// which may be preceded only by white space and an XML declaration. The
// root alone may carry attributes (xmlns); nothing reads them.
func rootContent(b []byte) ([]byte, error) {
	b = bytes.TrimLeft(b, xmlSpace)
	if bytes.HasPrefix(b, []byte("<?xml")) {
		i := bytes.Index(b, []byte("?>"))
		if i < 0 {
			return nil, errNotFast
		}
		b = bytes.TrimLeft(b[i+2:], xmlSpace)
	}
	const root = "<ListBucketResult"
	if !bytes.HasPrefix(b, []byte(root)) || len(b) == len(root) {
		return nil, errNotFast
	}
	b = b[len(root):]
	if b[0] == '>' {
		return b[1:], nil
	}
	if !strings.ContainsRune(xmlSpace, rune(b[0])) {
		return nil, errNotFast
	}
	var quote byte // the attribute value's quote we are inside, or 0
	for i, c := range b {
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '<' {
				return nil, errNotFast
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '<':
			return nil, errNotFast
		case c == '>':
			if b[i-1] == '/' { // an empty page written <ListBucketResult .../>
				return nil, errNotFast
			}
			return b[i+1:], nil
		}
	}
	return nil, errNotFast
}

const xmlSpace = " \t\r\n"

// nextTag skips the text up to the next tag and returns the tag's name,
// whether it is an end tag, and what follows it. A tag other than a plain
// <Name> or </Name> is errNotFast.
func nextTag(b []byte) (name []byte, end bool, rest []byte, err error) {
	i := bytes.IndexByte(b, '<')
	if i < 0 {
		return nil, false, nil, errNotFast
	}
	b = b[i+1:]
	j := bytes.IndexByte(b, '>')
	if j < 0 {
		return nil, false, nil, errNotFast
	}
	name, rest = b[:j], b[j+1:]
	if len(name) > 0 && name[0] == '/' {
		name, end = name[1:], true
	}
	if !plainName(name) {
		return nil, false, nil, errNotFast
	}
	return name, end, rest, nil
}

// plainName reports whether b is an element name S3 would write: ASCII
// letters and digits, starting with a letter.
func plainName(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for i, c := range b {
		letter := c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// leafText returns the unescaped text of an element whose start tag was
// just read, which must be followed by text and its own end tag (no child
// elements), and what follows the end tag.
func leafText(b, name []byte) (string, []byte, error) {
	i := bytes.IndexByte(b, '<')
	if i < 0 || !bytes.HasPrefix(b[i+1:], []byte{'/'}) || !bytes.HasPrefix(b[i+2:], name) ||
		!bytes.HasPrefix(b[i+2+len(name):], []byte{'>'}) {
		return "", nil, errNotFast
	}
	text, err := unescapeXML(b[:i])
	return text, b[i+3+len(name):], err
}

// maxSkipDepth bounds the nesting inside an element the scanner skips; S3
// pages nest one level (Owner in Contents).
const maxSkipDepth = 8

// skipElement skips past the end tag of the element whose start tag was
// just read, checking that the elements inside it nest properly.
func skipElement(b, name []byte) ([]byte, error) {
	var open [maxSkipDepth][]byte
	open[0] = name
	depth := 1
	for {
		tag, end, rest, err := nextTag(b)
		if err != nil {
			return nil, err
		}
		b = rest
		if !end {
			if depth == maxSkipDepth {
				return nil, errNotFast
			}
			open[depth] = tag
			depth++
			continue
		}
		if depth--; !bytes.Equal(tag, open[depth]) {
			return nil, errNotFast
		}
		if depth == 0 {
			return b, nil
		}
	}
}

// unescapeXML resolves the five named entities and numeric references.
// A carriage return is errNotFast: encoding/xml turns "\r\n" and "\r" into
// "\n".
func unescapeXML(b []byte) (string, error) {
	if bytes.IndexByte(b, '\r') >= 0 {
		return "", errNotFast
	}
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
