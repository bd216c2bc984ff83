package replay

import (
	"strconv"
	"time"

	"github.com/objbench/objbench/oplog"
)

// Record is one request of a trace, whatever its source.
type Record struct {
	// Record is the request as objbench's op log records an op, whatever
	// the source: Start is when the request started (access logs and
	// CloudTrail: when the server received it; op logs: when objbench
	// issued it). A multipart upload is one MULTIPART op at its
	// completion; for LIST, Key is the prefix listed ("" for all). Size is
	// the object's size when the source says it: the bytes a PUT or
	// MULTIPART wrote, the size of the object a GET or STAT read; 0 when
	// unknown. Range.Offset is -1 when the source does not say where a
	// RANGE-GET's range started (access logs only give its length).
	// Status is 0 when the source does not give one (CloudTrail). Class is
	// the source's error code (AccessDenied, NoSuchKey; an op log's error
	// class), "" when the request succeeded. Latency is how long the
	// request took as the source measured it, TTFB until the first byte
	// of the response (an access log's turn-around time), 0 when unknown.
	// Worker is the op log's worker id, -1 for other sources; Stream and
	// Step are an op log's, "" for other sources.
	oplog.Record
	// Resolution is how finely the source tells Start: a second for
	// access logs and CloudTrail, whose requests of one second all carry
	// that second; 0 when exact (op logs, MinIO traces). Schedule spreads
	// a tick's requests over it, in log order.
	Resolution time.Duration
	// BytesOut and BytesIn are the body bytes the server sent and
	// received, 0 when unknown.
	BytesOut, BytesIn int64
	// Pos is where the record was read.
	Pos Pos
}

// OK reports whether the source says the request succeeded.
func (r *Record) OK() bool { return r.Class == "" && (r.Status == 0 || r.Status < 300) }

// Pos is a place in the input: a file, a line (for JSON sources, the line
// where the entry ends) and, for CloudTrail (whose files are often one
// line), the 1-based index of the event in Records.
type Pos struct {
	File  string
	Line  int
	Event int
}

func (p Pos) String() string {
	s := p.File + ":" + strconv.Itoa(p.Line)
	if p.Event > 0 {
		s += " (event " + strconv.Itoa(p.Event) + ")"
	}
	return s
}
