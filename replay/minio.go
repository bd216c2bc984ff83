package replay

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/objbench/objbench/metrics"
)

// mcTrace is the part of one `mc admin trace --json` entry replay reads:
// the short form has statusCode at the top, the verbose form (-v) in
// response, with the request's headers and query.
type mcTrace struct {
	Type       string    `json:"type"`
	API        string    `json:"api"`
	Time       time.Time `json:"time"`
	Path       string    `json:"path"`
	Query      string    `json:"query"`
	StatusCode int       `json:"statusCode"`
	Error      string    `json:"error"`
	Duration   int64     `json:"duration"` // nanoseconds
	CallStats  *struct {
		Rx       int64 `json:"rx"`
		Tx       int64 `json:"tx"`
		Duration int64 `json:"duration"`
		TTFB     int64 `json:"timeToFirstByte"`
	} `json:"callStats"`
	Request *struct {
		RawQuery string            `json:"rawQuery"`
		Headers  map[string]string `json:"headers"`
	} `json:"request"`
	Response *struct {
		StatusCode int `json:"statusCode"`
	} `json:"response"`
}

// minioParser reads a stream of mc admin trace JSON objects, one per line
// or pretty-printed over several.
type minioParser struct {
	name    string
	count   *countingReader
	dec     *json.Decoder
	uploads uploads
	scratch [4096]byte
}

func newMinIOParser(name string, br *bufio.Reader) *minioParser {
	c := &countingReader{r: br}
	return &minioParser{name: name, count: c, dec: json.NewDecoder(c)}
}

func (p *minioParser) next(rec *Record) (outcome, error) {
	var tr mcTrace
	err := p.dec.Decode(&tr)
	*rec = Record{Worker: -1, Pos: Pos{File: p.name, Line: 1 + p.count.lines - countLines(p.dec.Buffered(), p.scratch[:])}}
	if err != nil {
		var se *json.SyntaxError
		if err == io.EOF || errors.As(err, &se) || err == io.ErrUnexpectedEOF {
			return outcome{}, err
		}
		return outcome{skip: "malformed entry", detail: err.Error()}, nil
	}
	return p.trace2record(&tr, rec), nil
}

func (p *minioParser) trace2record(tr *mcTrace, rec *Record) outcome {
	if tr.Type != "" && !strings.EqualFold(tr.Type, "S3") {
		return outcome{skip: "not an S3 call", detail: tr.Type + " " + tr.API}
	}
	if tr.Time.IsZero() {
		return outcome{skip: "malformed entry", detail: "no time"}
	}
	rec.Time, rec.Error = tr.Time, tr.Error
	rec.Status = tr.StatusCode
	if tr.Response != nil && tr.Response.StatusCode != 0 {
		rec.Status = tr.Response.StatusCode
	}
	rec.Total = time.Duration(tr.Duration)
	if cs := tr.CallStats; cs != nil {
		rec.BytesIn, rec.BytesOut, rec.TTFB = cs.Rx, cs.Tx, time.Duration(cs.TTFB)
		if cs.Duration > 0 {
			rec.Total = time.Duration(cs.Duration)
		}
	}
	path := strings.TrimPrefix(tr.Path, "/")
	rec.Bucket, rec.Key, _ = strings.Cut(path, "/")
	var headers map[string]string
	query := tr.Query
	if tr.Request != nil {
		headers = tr.Request.Headers
		if tr.Request.RawQuery != "" {
			query = tr.Request.RawQuery
		}
	}
	return p.op(tr.API, query, headers, rec)
}

func (p *minioParser) op(api, query string, headers map[string]string, rec *Record) outcome {
	switch api {
	case "s3.ListObjectsV1", "s3.ListObjectsV2", "s3.ListObjectVersions":
		rec.Op, rec.Key = metrics.OpList, ""
		if v, err := url.ParseQuery(query); err == nil {
			rec.Key = v.Get("prefix")
		}
		return outcome{}
	case "s3.NewMultipartUpload":
		return outcome{merged: "multipart upload created (replayed at its completion)"}
	case "s3.PutObjectPart":
		p.uploads.part(rec.Bucket, rec.Key, bodySize(headers, rec.BytesIn))
		return outcome{merged: "multipart part uploaded (replayed with its upload)"}
	case "s3.GetObject":
		rec.Op = metrics.OpGet
		if rec.OK() { // a failed GET sends an error document, not the object
			rec.Size = rec.BytesOut
		}
		off, n, ok := parseRange(headers["Range"])
		switch {
		case ok:
			rec.Op, rec.Size, rec.Range.Offset, rec.Range.Length = metrics.OpRangeGet, 0, off, n
		case rec.Status == 206:
			rec.Op, rec.Size, rec.Range.Offset, rec.Range.Length = metrics.OpRangeGet, 0, -1, rec.BytesOut
		}
	case "s3.PutObject":
		rec.Op, rec.Size = metrics.OpPut, bodySize(headers, rec.BytesIn)
	case "s3.HeadObject":
		rec.Op = metrics.OpStat
	case "s3.DeleteObject":
		rec.Op = metrics.OpDelete
	case "s3.CompleteMultipartUpload":
		rec.Op, rec.Size = metrics.OpMultipart, p.uploads.complete(rec.Bucket, rec.Key)
	default:
		return outcome{skip: "operation " + api + " is not replayed"}
	}
	if rec.Key == "" {
		return outcome{skip: "no key", detail: api}
	}
	return outcome{}
}

// bodySize is the object bytes of a PUT: the decoded length of an
// aws-chunked body when the verbose trace has it (rx counts the chunk
// signatures too), else rx.
func bodySize(headers map[string]string, rx int64) int64 {
	for _, h := range []string{"X-Amz-Decoded-Content-Length", "Content-Length"} {
		if v, ok := atoi([]byte(headers[h])); ok && v >= 0 {
			return v
		}
	}
	return rx
}
