package replay

import (
	"bufio"
	"bytes"
	num "github.com/objbench/objbench/internal/digits"
	"github.com/objbench/objbench/oplog"
	"net/url"
	"strconv"
	"time"

	"github.com/objbench/objbench/metrics"
)

// The fields of an S3 server access log line that replay reads, by
// position (AWS documents the layout; later fields, from the referer on,
// are not needed and may be absent or new).
const (
	fBucket = 1
	fTime   = 2
	fOp     = 6
	fKey    = 7
	fURI    = 8
	fStatus = 9
	fError  = 10
	fSent   = 11
	fSize   = 12
	fTotal  = 13
	fTurn   = 14
	nFields = 15
	// minFields: a line must reach the object size.
	minFields = fSize + 1
)

// accessParser reads S3 server access logs: space-separated fields, the
// time in [brackets], some in "quotes", "-" for unknown.
type accessParser struct {
	name     string
	lines    lineReader
	f        [nFields][]byte
	lastTime []byte
	lastT    time.Time
	bucket   string
}

func newAccessParser(name string, br *bufio.Reader) *accessParser {
	return &accessParser{name: name, lines: lineReader{br: br}}
}

func (p *accessParser) next(rec *Record) (outcome, error) {
	for {
		line, err := p.lines.next()
		*rec = Record{Record: oplog.Record{Worker: -1}, Pos: Pos{File: p.name, Line: p.lines.line}}
		if err == errLongLine {
			return outcome{skip: "malformed line", detail: err.Error()}, nil
		}
		if err != nil {
			return outcome{}, err
		}
		if blank(line) {
			continue
		}
		return p.parse(line, rec), nil
	}
}

// split cuts line into its first fields; n is how many it found.
func (p *accessParser) split(line []byte) (n int, ok bool) {
	i := 0
	for n < nFields {
		for i < len(line) && line[i] == ' ' {
			i++
		}
		if i >= len(line) {
			return n, true
		}
		var end, next int
		switch line[i] {
		case '[':
			j := bytes.IndexByte(line[i:], ']')
			if j < 0 {
				return n, false
			}
			end, next = i+j, i+j+1
			i++
		case '"':
			j := closingQuote(line, i+1)
			if j < 0 {
				return n, false
			}
			end, next = j, j+1
			i++
		default:
			j := bytes.IndexByte(line[i:], ' ')
			if j < 0 {
				j = len(line) - i
			}
			end, next = i+j, i+j
		}
		p.f[n] = line[i:end]
		n++
		i = next
	}
	return n, true
}

// closingQuote finds the quote that ends a quoted field starting at i,
// passing over backslash-escaped quotes.
func closingQuote(line []byte, i int) int {
	for i < len(line) {
		switch line[i] {
		case '\\':
			i += 2
			continue
		case '"':
			return i
		}
		i++
	}
	return -1
}

func (p *accessParser) parse(line []byte, rec *Record) outcome {
	n, ok := p.split(line)
	if !ok {
		return outcome{skip: "malformed line", detail: "a [ or \" field is not closed"}
	}
	if n < minFields {
		return outcome{skip: "malformed line", detail: strconv.Itoa(n) + " fields, want at least " + strconv.Itoa(minFields)}
	}
	t, ok := p.time(p.f[fTime])
	if !ok {
		return outcome{skip: "malformed line", detail: "time [" + string(p.f[fTime]) + "]"}
	}
	rec.Start, rec.Resolution = t, time.Second // the log's times are whole seconds
	if string(p.f[fBucket]) != p.bucket {
		p.bucket = string(p.f[fBucket])
	}
	rec.Bucket = p.bucket
	var bad string
	rec.Status, bad = p.num(fStatus, "HTTP status", bad)
	sent, bad := p.num(fSent, "bytes sent", bad)
	size, bad := p.num(fSize, "object size", bad)
	total, bad := p.num(fTotal, "total time", bad)
	turn, bad := p.num(fTurn, "turn-around time", bad)
	if bad != "" {
		return outcome{skip: "malformed line", detail: bad}
	}
	rec.BytesOut, rec.Size = int64(sent), int64(size)
	rec.Latency, rec.TTFB = time.Duration(total)*time.Millisecond, time.Duration(turn)*time.Millisecond
	if e := p.f[fError]; string(e) != "-" {
		rec.Class = string(e)
	}
	return p.op(rec)
}

// num reads field i as a whole number ("-" or absent: 0); bad collects the
// first field that is not one.
func (p *accessParser) num(i int, what, bad string) (int, string) {
	b := p.f[i]
	if len(b) == 0 || string(b) == "-" {
		return 0, bad
	}
	v, ok := atoi(b)
	if !ok || v < 0 {
		if bad == "" {
			bad = what + " " + strconv.Quote(string(b)) + " is not a number"
		}
		return 0, bad
	}
	return int(v), bad
}

func (p *accessParser) op(rec *Record) outcome {
	op := p.f[fOp]
	switch string(op) {
	case "REST.GET.BUCKET":
		rec.Op, rec.Key = metrics.OpList, listPrefix(p.f[fURI])
		return outcome{}
	case "REST.POST.UPLOADS":
		return outcome{merged: "multipart upload created (replayed at its completion)"}
	case "REST.PUT.PART":
		return outcome{merged: "multipart part uploaded (replayed with its upload)"}
	}
	switch string(op) {
	case "REST.GET.OBJECT":
		rec.Op = metrics.OpGet
		if rec.Status == 206 {
			rec.Op = metrics.OpRangeGet
			rec.Range.Offset, rec.Range.Length = -1, rec.BytesOut
		}
	case "REST.PUT.OBJECT":
		rec.Op, rec.BytesIn = metrics.OpPut, rec.Size
	case "REST.HEAD.OBJECT":
		rec.Op = metrics.OpStat
	case "REST.DELETE.OBJECT", "BATCH.DELETE.OBJECT":
		rec.Op = metrics.OpDelete
	case "REST.POST.UPLOAD":
		rec.Op = metrics.OpMultipart
	default:
		return outcome{skip: "operation " + string(op) + " is not replayed"}
	}
	k := p.f[fKey]
	if len(k) == 0 || string(k) == "-" {
		return outcome{skip: "no key", detail: string(op)}
	}
	rec.Key = unescapeKey(k)
	return outcome{}
}

// unescapeKey undoes the URL encoding of the key field; a key that does
// not decode is kept as written.
func unescapeKey(k []byte) string {
	if bytes.IndexByte(k, '%') < 0 {
		return string(k)
	}
	if s, err := url.PathUnescape(string(k)); err == nil {
		return s
	}
	return string(k)
}

// listPrefix is the prefix parameter of a "GET /bucket?prefix=... HTTP/1.1"
// request URI field.
func listPrefix(uri []byte) string {
	_, target, _ := bytes.Cut(uri, []byte(" "))
	target, _, _ = bytes.Cut(target, []byte(" "))
	_, query, ok := bytes.Cut(target, []byte("?"))
	if !ok {
		return ""
	}
	v, err := url.ParseQuery(string(query))
	if err != nil {
		return ""
	}
	return v.Get("prefix")
}

var months = [12]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// time reads "06/Feb/2019:00:00:38 +0000"; consecutive lines mostly share
// their second, so the last one is kept.
func (p *accessParser) time(b []byte) (time.Time, bool) {
	if bytes.Equal(b, p.lastTime) && len(b) > 0 {
		return p.lastT, true
	}
	if len(b) != 26 || b[2] != '/' || b[6] != '/' || b[11] != ':' || b[14] != ':' || b[17] != ':' || b[20] != ' ' {
		return time.Time{}, false
	}
	mon := -1
	for i, m := range months {
		if string(b[3:6]) == m {
			mon = i + 1
		}
	}
	d, ok1 := digits(b[0:2])
	y, ok2 := digits(b[7:11])
	h, ok3 := digits(b[12:14])
	mi, ok4 := digits(b[15:17])
	s, ok5 := digits(b[18:20])
	zh, ok6 := digits(b[22:24])
	zm, ok7 := digits(b[24:26])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) || mon < 0 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60 ||
		(b[21] != '+' && b[21] != '-') {
		return time.Time{}, false
	}
	off := (zh*60 + zm) * 60
	if b[21] == '-' {
		off = -off
	}
	t := time.Date(y, time.Month(mon), d, h, mi, s, 0, time.UTC).Add(-time.Duration(off) * time.Second)
	p.lastTime, p.lastT = append(p.lastTime[:0], b...), t
	return t, true
}

func digits(b []byte) (int, bool) {
	v := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, len(b) > 0
}

// atoi reads a decimal integer of at most 18 digits without allocating.
var atoi = num.Atoi
