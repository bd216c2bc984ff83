package oplog

import (
	"errors"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/storage"
)

// Record is one operation as the op log keeps it.
type Record struct {
	// Start is when the op was issued.
	Start time.Time
	// Intended is when an open-loop schedule wanted the op to start; zero
	// in closed loop.
	Intended time.Time
	Op       metrics.Op
	Bucket   string
	Key      string
	// Size is the bytes written (PUT, MULTIPART) or the object's size
	// when known (GET); 0 when unknown.
	Size int64
	// Range is the part of the object a ranged GET asked for; a zero
	// Length means the op was not ranged.
	Range storage.Range
	// Status is the HTTP status when known, 0 otherwise.
	Status int
	// Class is the op's error class (storage.ErrorClass), "" when it
	// succeeded.
	Class   string
	Latency time.Duration
	TTFB    time.Duration // 0 when not measured
	// Worker is the worker that issued the op. Writer.Record takes it as
	// an argument (it also picks the buffer); Reader fills it in.
	Worker int
	Stream string
	// Step names the step the op belonged to, as the result file's tables
	// do ("main", "main step 2", "main #3", "prepare"): an op log rebuilds
	// the tables step by step. "" when the source has no steps.
	Step string
}

// SetError fills Class and, for an HTTP failure, Status from the op's
// error (nil: a success, both cleared).
func (r *Record) SetError(err error) {
	r.Class = storage.ErrorClass(err)
	var se *storage.StatusError
	switch {
	case err == nil:
		r.Status = 0
	case errors.As(err, &se):
		r.Status = se.StatusCode
	}
}

// MaxLine bounds one line of an op log; a key is at most 1 KiB in S3, so a
// real line is far shorter.
const MaxLine = 64 << 10

// appendRecord encodes rec as one line, worker given apart.
func appendRecord(b []byte, worker int, rec *Record) []byte {
	b = append(b, `{"time":"`...)
	b = rec.Start.UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","op":"`...)
	b = append(b, rec.Op.String()...)
	b = append(b, '"')
	if rec.Bucket != "" {
		b = append(b, `,"bucket":`...)
		b = appendString(b, rec.Bucket)
	}
	b = append(b, `,"key":`...)
	b = appendString(b, rec.Key)
	b = appendInt(b, `,"size":`, rec.Size)
	if rec.Range.Length > 0 {
		b = append(b, `,"range":[`...)
		b = strconv.AppendInt(b, rec.Range.Offset, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, rec.Range.Length, 10)
		b = append(b, ']')
	}
	b = appendInt(b, `,"status":`, int64(rec.Status))
	if rec.Class != "" {
		b = append(b, `,"error":`...)
		b = appendString(b, rec.Class)
	}
	b = append(b, `,"latency_us":`...)
	b = strconv.AppendInt(b, rec.Latency.Microseconds(), 10)
	b = appendInt(b, `,"ttfb_us":`, rec.TTFB.Microseconds())
	if !rec.Intended.IsZero() {
		b = append(b, `,"intended":"`...)
		b = rec.Intended.UTC().AppendFormat(b, time.RFC3339Nano)
		b = append(b, '"')
	}
	b = append(b, `,"worker":`...)
	b = strconv.AppendInt(b, int64(worker), 10)
	if rec.Stream != "" {
		b = append(b, `,"stream":`...)
		b = appendString(b, rec.Stream)
	}
	if rec.Step != "" {
		b = append(b, `,"step":`...)
		b = appendString(b, rec.Step)
	}
	return append(b, "}\n"...)
}

// appendInt appends a field only when v is set (above zero).
func appendInt(b []byte, field string, v int64) []byte {
	if v <= 0 {
		return b
	}
	return strconv.AppendInt(append(b, field...), v, 10)
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string. Bytes that are not valid UTF-8
// become U+FFFD, as encoding/json does: keys are whatever a store was
// sent, and the line must stay valid JSON.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\t':
				b = append(b, '\\', 't')
			case '\r':
				b = append(b, '\\', 'r')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
