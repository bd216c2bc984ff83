package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// peekSize is how much of a file format detection looks at.
const peekSize = 64 << 10

// detect wraps src in a buffered reader and tells its format from the
// first non-empty line (want, when given, is taken as is). Format "" with
// no error is an empty stream.
func detect(src io.Reader, want Format) (*bufio.Reader, Format, error) {
	br := bufio.NewReaderSize(src, 256<<10)
	if want != FormatAuto {
		return br, want, nil
	}
	head, err := br.Peek(peekSize)
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, "", err
	}
	head = bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(head) == 0 {
		return br, "", nil
	}
	first, _, _ := bytes.Cut(head, []byte("\n"))
	if head[0] == '{' {
		if f := jsonFormat(head, first); f != "" {
			return br, f, nil
		}
	} else if looksLikeAccessLog(first) {
		return br, FormatS3Access, nil
	}
	return nil, "", fmt.Errorf("cannot tell the trace format from the first line %s: give it (s3-access, cloudtrail, minio-trace or oplog)",
		strconv.Quote(string(first[:min(len(first), 120)])))
}

// jsonFormat tells the JSON formats apart by their fields: CloudTrail's
// Records, mc admin trace's api, the op log's op and time. A first line
// that is not a whole object (pretty-printed JSON) is judged by which of
// those field names comes first.
func jsonFormat(head, first []byte) Format {
	if json.Valid(first) {
		var fields map[string]json.RawMessage
		if json.Unmarshal(first, &fields) == nil {
			_, ct := fields["Records"]
			_, api := fields["api"]
			_, op := fields["op"]
			_, t := fields["time"]
			switch {
			case ct:
				return FormatCloudTrail
			case api:
				return FormatMinIOTrace
			case op && t:
				return FormatOpLog
			}
		}
		return ""
	}
	best, f := -1, Format("")
	for name, format := range map[string]Format{`"Records"`: FormatCloudTrail, `"api"`: FormatMinIOTrace} {
		if i := bytes.Index(head, []byte(name)); i >= 0 && (best < 0 || i < best) {
			best, f = i, format
		}
	}
	return f
}

// looksLikeAccessLog: "OWNER BUCKET [dd/Mon/yyyy:hh:mm:ss ...".
func looksLikeAccessLog(line []byte) bool {
	owner, rest, ok := bytes.Cut(line, []byte(" "))
	if !ok || len(owner) == 0 {
		return false
	}
	bucket, rest, ok := bytes.Cut(rest, []byte(" "))
	if !ok || len(bucket) == 0 || len(rest) < 13 {
		return false
	}
	return rest[0] == '[' && rest[3] == '/' && rest[7] == '/' && rest[12] == ':'
}
