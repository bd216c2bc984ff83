package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/objbench/objbench/metrics"
)

// ctEvent is the part of a CloudTrail event that replay reads.
type ctEvent struct {
	EventTime         string `json:"eventTime"`
	EventSource       string `json:"eventSource"`
	EventName         string `json:"eventName"`
	ErrorCode         string `json:"errorCode"`
	RequestParameters struct {
		BucketName string `json:"bucketName"`
		Key        string `json:"key"`
		Prefix     string `json:"prefix"`
		Range      string `json:"Range"`
	} `json:"requestParameters"`
	AdditionalEventData struct {
		BytesIn  float64 `json:"bytesTransferredIn"`
		BytesOut float64 `json:"bytesTransferredOut"`
	} `json:"additionalEventData"`
}

// ctParser streams the Records of CloudTrail log files: the top-level
// object is walked token by token and each event decoded alone, so a file
// of any size takes the memory of one event.
type ctParser struct {
	name    string
	count   *countingReader
	dec     *json.Decoder
	inList  bool // inside a Records array
	event   int
	uploads uploads
	scratch [4096]byte
}

func newCloudTrailParser(name string, br *bufio.Reader) *ctParser {
	c := &countingReader{r: br}
	return &ctParser{name: name, count: c, dec: json.NewDecoder(c)}
}

func (p *ctParser) next(rec *Record) (outcome, error) {
	for !p.inList {
		if err := p.findRecords(); err != nil {
			return outcome{}, err
		}
	}
	if !p.dec.More() {
		if _, err := p.dec.Token(); err != nil { // ]
			return outcome{}, err
		}
		p.inList = false
		return p.next(rec)
	}
	p.event++
	var ev ctEvent
	err := p.dec.Decode(&ev)
	*rec = Record{Worker: -1, Pos: Pos{File: p.name, Line: p.line(), Event: p.event}}
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) || err == io.ErrUnexpectedEOF {
			return outcome{}, fmt.Errorf("event %d: %w", p.event, err)
		}
		// A field of the wrong type: this event only.
		return outcome{skip: "malformed event", detail: err.Error()}, nil
	}
	return p.event2record(&ev, rec), nil
}

// findRecords walks the top-level object(s) to the next Records array,
// passing over other fields; io.EOF when there are no more.
func (p *ctParser) findRecords() error {
	for {
		tok, err := p.dec.Token()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case json.Delim: // the object's { and }
			continue
		case string:
			if t == "Records" {
				open, err := p.dec.Token()
				if err != nil {
					return err
				}
				if open != json.Delim('[') {
					return errors.New("the Records field is not a list")
				}
				p.inList = true
				return nil
			}
			var skip json.RawMessage
			if err := p.dec.Decode(&skip); err != nil {
				return err
			}
		default:
			return fmt.Errorf("not a CloudTrail log: %v at the top level", tok)
		}
	}
}

// line is the line the decoder has reached: lines read minus those still
// buffered ahead of it.
func (p *ctParser) line() int {
	return 1 + p.count.lines - countLines(p.dec.Buffered(), p.scratch[:])
}

// countLines counts the newlines left in r, reading through scratch.
func countLines(r io.Reader, scratch []byte) int {
	n := 0
	for {
		k, err := r.Read(scratch)
		n += bytes.Count(scratch[:k], []byte("\n"))
		if err != nil || k == 0 {
			return n
		}
	}
}

func (p *ctParser) event2record(ev *ctEvent, rec *Record) outcome {
	if ev.EventSource != "" && ev.EventSource != "s3.amazonaws.com" {
		return outcome{skip: "not an S3 event", detail: ev.EventSource}
	}
	t, err := time.Parse(time.RFC3339Nano, ev.EventTime)
	if err != nil {
		return outcome{skip: "malformed event", detail: "eventTime " + ev.EventTime}
	}
	rp, ad := &ev.RequestParameters, &ev.AdditionalEventData
	rec.Time, rec.Bucket, rec.Key, rec.Error = t, rp.BucketName, rp.Key, ev.ErrorCode
	if t.Nanosecond() == 0 { // eventTime is given in whole seconds
		rec.Resolution = time.Second
	}
	rec.BytesIn, rec.BytesOut = bytesCount(ad.BytesIn), bytesCount(ad.BytesOut)
	switch ev.EventName {
	case "ListObjects", "ListObjectsV2", "ListObjectVersions":
		rec.Op, rec.Key = metrics.OpList, rp.Prefix
		return outcome{}
	case "CreateMultipartUpload":
		return outcome{merged: "multipart upload created (replayed at its completion)"}
	case "UploadPart":
		p.uploads.part(rp.BucketName, rp.Key, rec.BytesIn)
		return outcome{merged: "multipart part uploaded (replayed with its upload)"}
	case "GetObject":
		rec.Op = metrics.OpGet
		if rec.OK() { // a failed GET sends an error document, not the object
			rec.Size = rec.BytesOut
		}
		if off, n, ok := parseRange(rp.Range); ok {
			rec.Op, rec.Size, rec.Range.Offset, rec.Range.Length = metrics.OpRangeGet, 0, off, n
		}
	case "PutObject":
		rec.Op, rec.Size = metrics.OpPut, rec.BytesIn
	case "HeadObject":
		rec.Op = metrics.OpStat
	case "DeleteObject":
		rec.Op = metrics.OpDelete
	case "CompleteMultipartUpload":
		rec.Op, rec.Size = metrics.OpMultipart, p.uploads.complete(rp.BucketName, rp.Key)
	default:
		return outcome{skip: "operation " + ev.EventName + " is not replayed"}
	}
	if rec.Key == "" {
		return outcome{skip: "no key", detail: ev.EventName}
	}
	return outcome{}
}

func bytesCount(f float64) int64 {
	if !(f > 0) || f > math.MaxInt64/2 {
		return 0
	}
	return int64(f)
}

// parseRange reads an HTTP Range header "bytes=a-b" (a closed range).
func parseRange(h string) (off, n int64, ok bool) {
	spec, found := strings.CutPrefix(strings.TrimSpace(h), "bytes=")
	a, b, dash := strings.Cut(spec, "-")
	if !found || !dash {
		return 0, 0, false
	}
	lo, ok1 := atoi([]byte(a))
	hi, ok2 := atoi([]byte(b))
	if !ok1 || !ok2 || lo < 0 || hi < lo {
		return 0, 0, false
	}
	return lo, hi - lo + 1, true
}

// countingReader counts the newlines that pass through it.
type countingReader struct {
	r     io.Reader
	lines int
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.lines += bytes.Count(b[:n], []byte("\n"))
	return n, err
}
