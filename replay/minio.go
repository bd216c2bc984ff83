package replay

import (
	"bufio"
	"io"
	"net/url"
	"strings"
	"time"
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
type minioParser struct{ jsonTrace }

func newMinIOParser(name string, br *bufio.Reader) *minioParser {
	return &minioParser{newJSONTrace(name, br)}
}

func (p *minioParser) next(rec *Record) (outcome, error) {
	var tr mcTrace
	err := p.dec.Decode(&tr)
	p.start(rec, 0)
	if err != nil {
		if err == io.EOF || malformed(err) {
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
	rec.Start, rec.Class = tr.Time, tr.Error
	rec.Status = tr.StatusCode
	if tr.Response != nil && tr.Response.StatusCode != 0 {
		rec.Status = tr.Response.StatusCode
	}
	rec.Latency = time.Duration(tr.Duration)
	if cs := tr.CallStats; cs != nil {
		rec.BytesIn, rec.BytesOut, rec.TTFB = cs.Rx, cs.Tx, time.Duration(cs.TTFB)
		if cs.Duration > 0 {
			rec.Latency = time.Duration(cs.Duration)
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
	c := s3Call{kind: mcCall(api), api: api, body: bodySize(headers, rec.BytesIn), rng: headers["Range"]}
	if c.kind == callList {
		if v, err := url.ParseQuery(query); err == nil {
			c.prefix = v.Get("prefix")
		}
	}
	return p.uploads.record(c, rec)
}

// mcCall is what the call an mc admin trace names api does.
func mcCall(api string) callKind {
	switch api {
	case "s3.ListObjectsV1", "s3.ListObjectsV2", "s3.ListObjectVersions":
		return callList
	case "s3.NewMultipartUpload":
		return callCreateUpload
	case "s3.PutObjectPart":
		return callUploadPart
	case "s3.CompleteMultipartUpload":
		return callCompleteUpload
	case "s3.GetObject":
		return callGet
	case "s3.PutObject":
		return callPut
	case "s3.HeadObject":
		return callHead
	case "s3.DeleteObject":
		return callDelete
	}
	return callOther
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
