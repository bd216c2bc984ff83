package workload

import (
	"fmt"
	"strings"
	"time"

	"github.com/objbench/objbench/units"
)

// Canonical op names; CanonicalOp maps the aliases files use onto them.
const (
	OpPut       = "put"
	OpGet       = "get"
	OpStat      = "stat"
	OpDelete    = "delete"
	OpList      = "list"
	OpMultipart = "multipart"
	OpRangeGet  = "range-get"
	// The S3 surface beyond plain requests (docs/measuring.md, "The S3 of
	// today").
	OpCopy         = "copy"          // CopyObject of a live object to a new key
	OpPartCopy     = "part-copy"     // a multipart upload whose one part is UploadPartCopy of a live object
	OpDeleteBatch  = "delete-batch"  // DeleteObjects of up to batch_size live objects
	OpListVersions = "list-versions" // ListObjectVersions of the key space
	OpCAS          = "cas"           // PUT If-Match the ETag this run last wrote (compare and swap)
)

// OpNames lists the canonical op names, as messages name them.
const OpNames = "put, get, stat, delete, list, multipart, range-get, copy, part-copy, delete-batch, list-versions or cas"

var opAliases = map[string]string{
	"put": OpPut, "write": OpPut, "get": OpGet, "read": OpGet, "stat": OpStat, "head": OpStat,
	"delete": OpDelete, "list": OpList, "multipart": OpMultipart, "multipart-write": OpMultipart,
	"multipart-put": OpMultipart, "mpu": OpMultipart, "range-get": OpRangeGet, "ranged-get": OpRangeGet,
	"ranged-read": OpRangeGet, "range-read": OpRangeGet,
	"copy": OpCopy, "copy-object": OpCopy, "part-copy": OpPartCopy, "upload-part-copy": OpPartCopy,
	"delete-batch": OpDeleteBatch, "delete-objects": OpDeleteBatch, "batch-delete": OpDeleteBatch,
	"list-versions": OpListVersions, "list-object-versions": OpListVersions, "cas": OpCAS, "cas-put": OpCAS,
}

// CanonicalOp returns the canonical name of an op given in any case, with
// '_' or '-' ("ranged_read" is "range-get"), and whether it is known.
func CanonicalOp(s string) (string, bool) {
	op, ok := opAliases[strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "_", "-")]
	return op, ok
}

func opWrites(op string) bool {
	c, _ := CanonicalOp(op)
	switch c {
	case OpPut, OpDelete, OpMultipart, OpCopy, OpPartCopy, OpDeleteBatch, OpCAS:
		return true
	}
	return false
}

// opNeedsObjects: the op fails unless the object it names exists.
func opNeedsObjects(op string) bool {
	c, _ := CanonicalOp(op)
	switch c {
	case OpGet, OpStat, OpRangeGet, OpCopy, OpPartCopy, OpCAS:
		return true
	}
	return false
}

// Sweep holds per-step values of a stream's numeric fields; the stage runs
// once per value of its longest list, shorter lists holding their last value.
type Sweep struct {
	SizeDists  []Selector      `json:"size_dists,omitempty"`
	RangeSizes []int64         `json:"range_sizes,omitempty"`
	Durations  []time.Duration `json:"durations_ns,omitempty"`
	Ops        []int64         `json:"ops,omitempty"`
	Bytes      []int64         `json:"bytes,omitempty"`
	Rates      []Rate          `json:"rates,omitempty"` // open loop: a step per rate
}

func (w *Sweep) steps() int {
	if w == nil {
		return 1
	}
	return max(1, len(w.SizeDists), len(w.RangeSizes), len(w.Durations), len(w.Ops), len(w.Bytes), len(w.Rates))
}

func pick[T any](xs []T, i int) T { return xs[min(i, len(xs)-1)] }

// Steps is how many times the stage runs: the longest sweep list of a main
// stage; other stages run once.
func (s Stage) Steps() int {
	n := 1
	if s.Kind != KindMain {
		return n
	}
	for _, st := range s.Streams {
		n = max(n, st.Steps())
	}
	return n
}

// StepLabel names step i by its swept values other than concurrency (the
// report has a column for that), e.g. "size=4 KiB"; with several sweeping
// streams each is named. "" when nothing else is swept.
func (s Stage) StepLabel(i int) string {
	if s.Kind != KindMain {
		return ""
	}
	var parts []string
	var named []string
	for _, st := range s.Streams {
		if l := st.StepLabel(i); l != "" {
			parts = append(parts, l)
			named = append(named, st.Name+": "+l)
		}
	}
	if len(parts) > 1 {
		return strings.Join(named, "; ")
	}
	return strings.Join(parts, "")
}

// StepLabel names the stream's swept values other than concurrency in step i.
func (s Stream) StepLabel(i int) string {
	w := s.Sweep
	if w == nil {
		return ""
	}
	var parts []string
	if len(w.SizeDists) > 1 {
		parts = append(parts, "size="+pick(w.SizeDists, i).SizeString())
	}
	if len(w.RangeSizes) > 1 {
		parts = append(parts, "range="+units.FormatSize(pick(w.RangeSizes, i)))
	}
	if len(w.Durations) > 1 {
		parts = append(parts, "duration="+pick(w.Durations, i).String())
	}
	if len(w.Ops) > 1 {
		parts = append(parts, fmt.Sprintf("ops=%d", pick(w.Ops, i)))
	}
	if len(w.Bytes) > 1 {
		parts = append(parts, "bytes="+units.FormatSize(pick(w.Bytes, i)))
	}
	if len(w.Rates) > 1 {
		parts = append(parts, "rate="+pick(w.Rates, i).String())
	}
	return strings.Join(parts, " ")
}

// Steps is how many values the stream's longest sweep list has.
func (s Stream) Steps() int { return max(len(s.Concurrency), s.Sweep.steps()) }

// At is the stream as it runs in step i: one concurrency, swept fields
// resolved, no sweep left.
func (s Stream) At(i int) Stream {
	out := s
	out.Concurrency = []int{s.ConcurrencyAt(i)}
	out.Sweep = nil
	w := s.Sweep
	if w == nil {
		return out
	}
	if len(w.SizeDists) > 0 {
		d := pick(w.SizeDists, i)
		out.SizeDist, out.Size = &d, d.Min
	}
	if len(w.RangeSizes) > 0 {
		out.RangeSize = pick(w.RangeSizes, i)
	}
	if len(w.Durations) > 0 {
		out.Bounds.Duration = pick(w.Durations, i)
	}
	if len(w.Ops) > 0 {
		out.Bounds.Ops = pick(w.Ops, i)
	}
	if len(w.Bytes) > 0 {
		out.Bounds.Bytes = pick(w.Bytes, i)
	}
	if len(w.Rates) > 0 {
		r := pick(w.Rates, i)
		out.Rate = &r
	}
	return out
}

// ConcurrencyAt is the stream's concurrency in step i of its stage (a
// shorter list keeps its last value).
func (s Stream) ConcurrencyAt(i int) int {
	if len(s.Concurrency) == 0 {
		return 1
	}
	return s.Concurrency[min(i, len(s.Concurrency)-1)]
}

// MaxConcurrency is the largest value of the stream's concurrency list.
func (s Stream) MaxConcurrency() int {
	n := 1
	for _, c := range s.Concurrency {
		n = max(n, c)
	}
	return n
}

// Writes reports whether the mix can create or delete objects.
func (s Stream) Writes() bool {
	for _, m := range s.Mix {
		if opWrites(m.Op) {
			return true
		}
	}
	return false
}

// Sizes is the distribution of sizes the stream writes.
func (s Stream) Sizes() Selector {
	if s.SizeDist != nil {
		return *s.SizeDist
	}
	return Const(s.Size)
}

// OpObjects is the key space op m works on: its own, or the stream's.
func (s Stream) OpObjects(m OpWeight) KeySpace {
	if m.Objects != nil {
		return *m.Objects
	}
	return s.Objects
}

// OpSizes is the size distribution op m writes.
func (s Stream) OpSizes(m OpWeight) Selector {
	if m.SizeDist != nil {
		return *m.SizeDist
	}
	return s.Sizes()
}
