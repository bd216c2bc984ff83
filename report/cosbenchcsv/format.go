package cosbenchcsv

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/objbench/objbench/result"
)

// num is Java's DecimalFormat("0.##"): at most two decimals, none trailing.
func num(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "N/A"
	}
	t := strconv.FormatFloat(v, 'f', 2, 64) // rounds the exact value, half to even, as Java's does
	t = strings.TrimRight(strings.TrimRight(t, "0"), ".")
	if t == "-0" {
		return "0"
	}
	return t
}

// ratio is DecimalFormat("0.##%").
func ratio(v float64) string { return num(v*100) + "%" }

// orNA is num(v), or N/A when v is not above 0 (COSBench's rule for
// response and processing times and success ratios).
func orNA(v float64, f func(float64) string) string {
	if v > 0 {
		return f(v)
	}
	return "N/A"
}

const (
	timeLayout     = "15:04:05"            // HH:mm:ss
	dateTimeLayout = "2006-01-02 15:04:05" // yyyy-MM-dd HH:mm:ss
)

func dateTime(t time.Time) string { return t.Local().Format(dateTimeLayout) }

// opNames are COSBench's operation names for objbench's ops.
var opNames = map[string]string{"GET": "read", "PUT": "write", "DELETE": "delete", "LIST": "list"}

// opName is COSBench's name for op in a stage of kind: the operation's
// name and its sample type, joined as COSBench's writers join them
// ("read", "prepare-write", "cleanup-delete"), and the operation type.
func opName(kind, op string) (name, typ string) {
	sample := opNames[op]
	if sample == "" {
		sample = strings.ToLower(op)
	}
	switch kind {
	case result.KindPrepare, result.KindCleanup, result.KindInit, result.KindDispose:
		if kind == sample {
			return sample, kind
		}
		return kind + "-" + sample, kind
	}
	return sample, sample
}

// safeName keeps a name fit for a file name (COSBench uses the workload
// and stage names as they are; a slash would make a directory).
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 {
			return '_'
		}
		return r
	}, s)
}
