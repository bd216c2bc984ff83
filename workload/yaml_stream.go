package workload

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"

	"github.com/objbench/objbench/units"
)

var (
	streamFields = []string{"name", "ops", "concurrency", "workers", "duration", "total_ops", "total_bytes",
		"objects", "size", "range_size", "part_size", "compress", "verify", "fsync", "rate", "ramp", "arrival", "max_workers", "s3", "per_target"}
	objectFields = []string{"buckets", "bucket_pick", "prefix", "suffix", "index", "count", "existing", "source"}
	opFields     = []string{"ratio", "objects", "size"}
)

// stream reads one stream from the fields of its mapping n.
func (d *ydec) stream(n *yaml.Node, f map[string]*yaml.Node) Stream {
	s := Stream{Pos: d.pos(resolve(n))}
	if v, ok := f["name"]; ok {
		s.Name, _ = d.scalar(v, "stream name")
	}
	if v, ok := f["ops"]; ok {
		s.Percent = true
		s.Mix = d.ops(v, &s)
	}
	d.streamNumbers(f, &s)
	d.rate(f, &s)
	if v, ok := f["objects"]; ok {
		s.Objects = d.objects(v)
	}
	if v, ok := f["compress"]; ok {
		s.Data.Compress, _ = one(d, v, "compress", parseCompress)
	}
	if v, ok := f["verify"]; ok {
		s.Data.Verify, _ = one(d, v, "verify", parseBool)
	}
	if v, ok := f["fsync"]; ok {
		if m, ok := one(d, v, "fsync", ParseFsync); ok {
			s.Fsync, s.SyncAtEnd = m.PerFile(), m == FsyncAtEnd
		}
	}
	if v, ok := f["part_size"]; ok {
		s.PartSize, _ = one(d, v, "part_size", units.ParseSize)
	}
	if v, ok := f["s3"]; ok {
		s.S3 = d.s3options(v)
	}
	if v, ok := f["per_target"]; ok {
		s.PerTarget = d.perTarget(v)
	}
	return s
}

// rate reads rate ("2000/s", "100/s..5000/s" or a list: a step each),
// ramp and arrival.
func (d *ydec) rate(f map[string]*yaml.Node, s *Stream) {
	v, ok := f["rate"]
	if !ok {
		for _, k := range []string{"ramp", "arrival", "max_workers"} {
			if n := f[k]; n != nil {
				d.fail(n, "%s needs a rate", k)
			}
		}
		return
	}
	rates := each(d, v, "rate", ParseRate)
	if len(rates) == 0 {
		return
	}
	var ramp time.Duration
	var arrival string
	if n := f["ramp"]; n != nil {
		ramp, _ = one(d, n, "ramp", parseDuration)
	}
	if n := f["arrival"]; n != nil {
		arrival, _ = one(d, n, "arrival", ParseArrival)
	}
	maxWorkers := 0
	if n := f["max_workers"]; n != nil {
		n64, _ := one(d, n, "max_workers", parsePositive)
		maxWorkers = int(n64)
	}
	for i := range rates {
		rates[i].Ramp, rates[i].Arrival, rates[i].MaxWorkers = ramp, arrival, maxWorkers
	}
	s.Rate = &rates[0]
	if len(rates) > 1 {
		if s.Sweep == nil {
			s.Sweep = &Sweep{}
		}
		s.Sweep.Rates = rates
	}
}

// streamNumbers reads the fields that may be lists (sweeps).
func (d *ydec) streamNumbers(f map[string]*yaml.Node, s *Stream) {
	conc, workers := f["concurrency"], f["workers"]
	if conc != nil && workers != nil {
		d.fail(workers, "give concurrency or workers (the same thing), not both")
	}
	if conc == nil {
		conc = workers
	}
	if conc != nil {
		for _, c := range each(d, conc, "concurrency", parsePositive) {
			s.Concurrency = append(s.Concurrency, int(min(c, 1<<40))) // Validate refuses what is too many
		}
	}
	w := &Sweep{}
	if v, ok := f["size"]; ok {
		w.SizeDists = each(d, v, "size", ParseSizeSelector)
	}
	if v, ok := f["range_size"]; ok {
		w.RangeSizes = each(d, v, "range_size", units.ParseSize)
	}
	if v, ok := f["duration"]; ok {
		w.Durations = each(d, v, "duration", parseDuration)
	}
	if v, ok := f["total_ops"]; ok {
		w.Ops = each(d, v, "total_ops", parsePositive)
	}
	if v, ok := f["total_bytes"]; ok {
		w.Bytes = each(d, v, "total_bytes", units.ParseSize)
	}
	s.applySweep(w)
}

// applySweep keeps single values as plain fields and lists as a sweep.
func (s *Stream) applySweep(w *Sweep) {
	if len(w.SizeDists) > 0 {
		d := w.SizeDists[0]
		s.SizeDist, s.Size = &d, d.Min
		if d.Kind == SelConst {
			s.SizeDist = nil
		}
	}
	if len(w.RangeSizes) > 0 {
		s.RangeSize = w.RangeSizes[0]
	}
	if len(w.Durations) > 0 {
		s.Bounds.Duration = w.Durations[0]
	}
	if len(w.Ops) > 0 {
		s.Bounds.Ops = w.Ops[0]
	}
	if len(w.Bytes) > 0 {
		s.Bounds.Bytes = w.Bytes[0]
	}
	keep := &Sweep{}
	if len(w.SizeDists) > 1 {
		keep.SizeDists = w.SizeDists
	}
	if len(w.RangeSizes) > 1 {
		keep.RangeSizes = w.RangeSizes
	}
	if len(w.Durations) > 1 {
		keep.Durations = w.Durations
	}
	if len(w.Ops) > 1 {
		keep.Ops = w.Ops
	}
	if len(w.Bytes) > 1 {
		keep.Bytes = w.Bytes
	}
	if keep.steps() > 1 {
		s.Sweep = keep
	}
}

// parseCompress reads how many times the data should compress ("2", "2:1").
func parseCompress(s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), ":1"), 64)
	if err != nil || f < 0 || f > 4096 || (f > 0 && f < 1) {
		return 0, fmt.Errorf("%q: want a ratio like 2 (compresses to half), from 1 to 4096", s)
	}
	return f, nil
}

// ops reads the mix: op: ratio, or op: {ratio, objects, size}.
func (d *ydec) ops(n *yaml.Node, s *Stream) []OpWeight {
	f := d.fields(n, "ops", nil...)
	var mix []OpWeight
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := resolve(n.Content[i])
		if k == nil || f[k.Value] == nil {
			continue
		}
		op, ok := CanonicalOp(k.Value)
		if !ok {
			d.fail(k, "unknown operation %q (want read, write, stat, delete, list, multipart or ranged-read)", k.Value)
			s.Percent = false // the ratios cannot add up now; say so once
			continue
		}
		m, ok := d.op(n.Content[i+1], op)
		if !ok {
			s.Percent = false
			continue
		}
		if m.Weight == 0 {
			continue // as in COSBench, a 0% op is not run
		}
		m.Pos = d.pos(k)
		mix = append(mix, m)
	}
	return mix
}

func (d *ydec) op(n *yaml.Node, op string) (OpWeight, bool) {
	m := OpWeight{Op: op}
	r := resolve(n)
	if r != nil && r.Kind == yaml.MappingNode {
		f := d.fields(r, "operation "+op, opFields...)
		if v, ok := f["objects"]; ok {
			ks := d.objects(v)
			m.Objects = &ks
		}
		if v, ok := f["size"]; ok {
			if sel, ok := one(d, v, "size", ParseSizeSelector); ok {
				m.SizeDist = &sel
			}
		}
		if n = f["ratio"]; n == nil {
			d.fail(r, "operation %s has no ratio", op)
			return m, false
		}
	}
	w, ok := one(d, n, "ratio of "+op, parseInt)
	if ok && (w < 0 || w > 100) {
		d.fail(n, "ratio of %s is %d; ratios are percentages from 0 to 100", op, w)
		ok = false
	}
	m.Weight = int(w)
	return m, ok
}

// objects reads a key space.
func (d *ydec) objects(n *yaml.Node) (ks KeySpace) {
	errs := len(d.errs)
	defer func() {
		if len(d.errs) > errs {
			ks.broken = true
		}
	}()
	f := d.fields(n, "objects", objectFields...)
	if v, ok := f["buckets"]; ok {
		ks.Buckets = d.buckets(v)
	}
	if v, ok := f["prefix"]; ok {
		ks.Prefix, _ = d.scalar(v, "prefix")
		ks.Prefix = strings.TrimPrefix(ks.Prefix, "/")
	}
	if v, ok := f["suffix"]; ok {
		ks.Suffix, _ = d.scalar(v, "suffix")
	}
	if v, ok := f["index"]; ok {
		if sel, ok := one(d, v, "index", ParseSelector); ok {
			ks.Index = &sel
		}
	}
	if v, ok := f["bucket_pick"]; ok {
		if sel, ok := one(d, v, "bucket_pick", ParseSelector); ok {
			ks.BucketPick = &sel
		}
	}
	if v, ok := f["count"]; ok {
		c, _ := one(d, v, "count", parseInt)
		ks.Count = int(min(max(c, -1), 1<<40))
		if ks.Index != nil {
			d.fail(v, "give count (a pool of objects) or index (numbered objects), not both")
		}
	}
	if v, ok := f["existing"]; ok {
		ks.Existing, _ = one(d, v, "existing", parseBool)
	}
	if v, ok := f["source"]; ok {
		ks.Source, _ = d.scalar(v, "source")
	}
	return ks
}
