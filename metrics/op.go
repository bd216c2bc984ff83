package metrics

import (
	"fmt"
	"strings"
	"time"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
)

// Op is one kind of storage operation, a small index used on the hot path.
type Op uint8

// The operations objbench measures.
const (
	OpPut Op = iota
	OpGet
	OpStat
	OpDelete
	OpList
	OpMultipart    // a whole multipart upload: create, parts, complete
	OpRangeGet     // a GET of part of an object, as its own op of a mix
	OpCopy         // a server-side copy (CopyObject)
	OpPartCopy     // a multipart upload of one part copied server-side (UploadPartCopy)
	OpDeleteBatch  // one DeleteObjects request (up to 1,000 keys)
	OpListVersions // a version listing (ListObjectVersions)
	OpCAS          // a compare-and-swap PUT (If-Match)
	NumOps         // count of ops, not an op
)

var opNames = [NumOps]string{"PUT", "GET", "STAT", "DELETE", "LIST", "MULTIPART", "RANGE-GET", "COPY", "PART-COPY", "DELETE-BATCH", "LIST-VERSIONS", "CAS"}

func (o Op) String() string {
	if o < NumOps {
		return opNames[o]
	}
	return fmt.Sprintf("op(%d)", o)
}

// ParseOp accepts an op name in any case; "head" is an alias of STAT,
// "read"/"write" of GET/PUT (COSBench's words), "ranged-read" of RANGE-GET.
func ParseOp(s string) (Op, error) {
	switch u := strings.ReplaceAll(strings.ToUpper(strings.TrimSpace(s)), "_", "-"); u {
	case "HEAD":
		return OpStat, nil
	case "READ":
		return OpGet, nil
	case "WRITE":
		return OpPut, nil
	case "RANGED-READ", "RANGED-GET", "RANGE-READ":
		return OpRangeGet, nil
	case "MULTIPART-WRITE", "MULTIPART-PUT", "MPU":
		return OpMultipart, nil
	case "COPY-OBJECT":
		return OpCopy, nil
	case "UPLOAD-PART-COPY":
		return OpPartCopy, nil
	case "DELETE-OBJECTS", "BATCH-DELETE":
		return OpDeleteBatch, nil
	case "LIST-OBJECT-VERSIONS":
		return OpListVersions, nil
	case "CAS-PUT":
		return OpCAS, nil
	default:
		for i, n := range opNames {
			if n == u {
				return Op(i), nil
			}
		}
	}
	return 0, fmt.Errorf("unknown operation %q (want put, get, stat, delete, list, multipart, range-get, copy, part-copy, delete-batch, list-versions or cas)", s)
}

// Result is the outcome of one operation.
type Result struct {
	Op Op
	// Intended is when the schedule wanted the op to start (open loop);
	// equal to Start in closed loop.
	Intended  time.Time
	Start     time.Time
	FirstByte time.Time // zero when not measured
	End       time.Time
	Bytes     int64
	Err       error
	// Phases, for a network store's op, is where its (last) request
	// spent its time; nil: not known.
	Phases *storage.Phases
}

func micros(d time.Duration) int64 {
	us := int64(d / time.Microsecond)
	return min(max(us, result.HistLowest), result.HistHighest)
}
