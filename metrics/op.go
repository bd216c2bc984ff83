package metrics

import (
	"fmt"
	"strings"
	"time"

	"github.com/objbench/objbench/result"
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
	OpMultipart // a whole multipart upload: create, parts, complete
	OpRangeGet  // a GET of part of an object, as its own op of a mix
	NumOps      // count of ops, not an op
)

var opNames = [NumOps]string{"PUT", "GET", "STAT", "DELETE", "LIST", "MULTIPART", "RANGE-GET"}

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
	default:
		for i, n := range opNames {
			if n == u {
				return Op(i), nil
			}
		}
	}
	return 0, fmt.Errorf("unknown operation %q (want put, get, stat, delete, list, multipart or range-get)", s)
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
}

func micros(d time.Duration) int64 {
	us := int64(d / time.Microsecond)
	return min(max(us, result.HistLowest), result.HistHighest)
}
