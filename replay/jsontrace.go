package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"github.com/objbench/objbench/oplog"
	"io"
	"math"
	"strings"

	"github.com/objbench/objbench/metrics"
)

// What the JSON traces (CloudTrail logs, MinIO's mc admin trace) share:
// a decoder that knows the line it has reached, the multipart uploads
// seen so far, and how an S3 call they name becomes a record.

// jsonTrace decodes one file of JSON entries, counting its lines.
type jsonTrace struct {
	name    string
	count   *countingReader
	dec     *json.Decoder
	uploads uploads
	scratch [4096]byte
}

func newJSONTrace(name string, br *bufio.Reader) jsonTrace {
	c := &countingReader{r: br}
	return jsonTrace{name: name, count: c, dec: json.NewDecoder(c)}
}

// line is the line the decoder has reached: lines read minus those still
// buffered ahead of it.
func (j *jsonTrace) line() int {
	return 1 + j.count.lines - countLines(j.dec.Buffered(), j.scratch[:])
}

// start empties rec for the entry the decoder is at (event: its index
// in a CloudTrail file's Records, 0 elsewhere).
func (j *jsonTrace) start(rec *Record, event int) {
	*rec = Record{Record: oplog.Record{Worker: -1}, Pos: Pos{File: j.name, Line: j.line(), Event: event}}
}

// malformed says whether a decoding error spoils the rest of the file (a
// syntax error, an end in the middle of an entry), not the entry alone (a
// field of the wrong type).
func malformed(err error) bool {
	var se *json.SyntaxError
	return errors.As(err, &se) || err == io.ErrUnexpectedEOF
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

// s3Call is one S3 call of a trace, as replay reads it: what it did, and
// what the trace says of its listing prefix, the bytes of its body and
// the range it asked for. rec already holds its time, bucket, key, status
// or error and the bytes it moved.
type s3Call struct {
	kind   callKind
	api    string // as the trace names it
	prefix string // a listing's
	body   int64  // the bytes a PUT or an upload's part wrote
	rng    string // the Range header
}

// callKind is what an S3 call does, as far as replay is concerned.
type callKind int

const (
	callOther callKind = iota
	callList
	callCreateUpload
	callUploadPart
	callGet
	callPut
	callHead
	callDelete
	callCompleteUpload
)

// record makes rec the op that c replays (a multipart upload: one
// MULTIPART at its completion, of its parts' bytes), or says why none.
func (u *uploads) record(c s3Call, rec *Record) outcome {
	switch c.kind {
	case callList:
		rec.Op, rec.Key = metrics.OpList, c.prefix
		return outcome{}
	case callCreateUpload:
		return outcome{merged: "multipart upload created (replayed at its completion)"}
	case callUploadPart:
		u.part(rec.Bucket, rec.Key, c.body)
		return outcome{merged: "multipart part uploaded (replayed with its upload)"}
	case callGet:
		rec.Op = metrics.OpGet
		if rec.OK() { // a failed GET sends an error document, not the object
			rec.Size = rec.BytesOut
		}
		off, n, ok := parseRange(c.rng)
		switch {
		case ok:
			rec.Op, rec.Size, rec.Range.Offset, rec.Range.Length = metrics.OpRangeGet, 0, off, n
		case rec.Status == 206: // a range the trace does not give
			rec.Op, rec.Size, rec.Range.Offset, rec.Range.Length = metrics.OpRangeGet, 0, -1, rec.BytesOut
		}
	case callPut:
		rec.Op, rec.Size = metrics.OpPut, c.body
	case callHead:
		rec.Op = metrics.OpStat
	case callDelete:
		rec.Op = metrics.OpDelete
	case callCompleteUpload:
		rec.Op, rec.Size = metrics.OpMultipart, u.complete(rec.Bucket, rec.Key)
	default:
		return outcome{skip: "operation " + c.api + " is not replayed"}
	}
	if rec.Key == "" {
		return outcome{skip: "no key", detail: c.api}
	}
	return outcome{}
}

// bytesCount is a byte count a trace gives as a JSON number, 0 when it
// is none.
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
