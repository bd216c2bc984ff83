package replay

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"time"
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
	jsonTrace
	inList bool // inside a Records array
	event  int
}

func newCloudTrailParser(name string, br *bufio.Reader) *ctParser {
	return &ctParser{jsonTrace: newJSONTrace(name, br)}
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
	p.start(rec, p.event)
	if err != nil {
		if malformed(err) {
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

func (p *ctParser) event2record(ev *ctEvent, rec *Record) outcome {
	if ev.EventSource != "" && ev.EventSource != "s3.amazonaws.com" {
		return outcome{skip: "not an S3 event", detail: ev.EventSource}
	}
	t, err := time.Parse(time.RFC3339Nano, ev.EventTime)
	if err != nil {
		return outcome{skip: "malformed event", detail: "eventTime " + ev.EventTime}
	}
	rp, ad := &ev.RequestParameters, &ev.AdditionalEventData
	rec.Start, rec.Bucket, rec.Key, rec.Class = t, rp.BucketName, rp.Key, ev.ErrorCode
	if t.Nanosecond() == 0 { // eventTime is given in whole seconds
		rec.Resolution = time.Second
	}
	rec.BytesIn, rec.BytesOut = bytesCount(ad.BytesIn), bytesCount(ad.BytesOut)
	c := s3Call{kind: ctCall(ev.EventName), api: ev.EventName, prefix: rp.Prefix, body: rec.BytesIn, rng: rp.Range}
	return p.uploads.record(c, rec)
}

// ctCall is what the CloudTrail event of name does.
func ctCall(name string) callKind {
	switch name {
	case "ListObjects", "ListObjectsV2", "ListObjectVersions":
		return callList
	case "CreateMultipartUpload":
		return callCreateUpload
	case "UploadPart":
		return callUploadPart
	case "CompleteMultipartUpload":
		return callCompleteUpload
	case "GetObject":
		return callGet
	case "PutObject":
		return callPut
	case "HeadObject":
		return callHead
	case "DeleteObject":
		return callDelete
	}
	return callOther
}
