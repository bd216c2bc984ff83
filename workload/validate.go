package workload

import (
	"errors"
	"fmt"
	"strings"

	"github.com/objbench/objbench/corpus"
	"github.com/objbench/objbench/units"
)

// MinPartSize is S3's smallest part of a multipart upload (but the last).
const MinPartSize = 5 << 20

// problems collects validation errors, each prefixed with file:line when
// the spec came from a file.
// The same problem found twice (a storage shared by several streams) is
// reported once.
type problems struct {
	errs  []error
	seen  map[string]bool
	warns []Warning // what runs, but not quite as written
}

func (p *problems) warn(at Pos, where, format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	if where != "" {
		msg = where + ": " + msg
	}
	p.warns = append(p.warns, Warning{Pos: at, Msg: msg})
}

func (p *problems) add(at Pos, where, format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	if where != "" {
		msg = where + ": " + msg
	}
	if at.File != "" {
		msg = at.String() + ": " + msg
	}
	if p.seen[msg] {
		return
	}
	if p.seen == nil {
		p.seen = map[string]bool{}
	}
	p.seen[msg] = true
	p.errs = append(p.errs, errors.New(msg))
}

// Validate lists every problem in the spec, each naming where it is.
func (sp Spec) Validate() []error {
	errs, _ := sp.Check()
	return errs
}

// Check is Validate with the warnings about what runs, but not as the
// file may expect (reads of objects only partly written before).
func (sp Spec) Check() ([]error, []Warning) {
	p := &problems{}
	if len(sp.Stages) == 0 && sp.Profile == nil {
		p.add(Pos{}, "", "workload has no stages")
	}
	if sp.Dataset != "" && !ValidDatasetName(sp.Dataset) {
		p.add(Pos{}, "", "data set name %q: want 1 to 64 letters, digits, '.', '_' or '-'", sp.Dataset)
	}
	if sp.Storage != nil {
		sp.Storage.validate(p)
	}
	for i, st := range sp.Stages {
		st.validate(p, fmt.Sprintf("stage %d (%s)", i+1, st.Name))
	}
	if sp.Source != nil && sp.Source.Format == "cosbench" {
		p.hintTarget()
	}
	sp.checkBareKeys(p)
	sp.checkPrepared(p)
	return p.errs, p.warns
}

func (s *Storage) validate(p *problems) {
	if t := strings.ToLower(s.Type); t != "" && t != "s3" {
		p.add(s.Pos, "", "storage type %q is not supported: objbench measures S3-compatible stores (type \"s3\")", s.Type)
	}
}

// hintTarget says, after a COSBench workload's refused storage types, how
// to run it anyway.
func (p *problems) hintTarget() {
	for i, e := range p.errs {
		if strings.Contains(e.Error(), "is not supported: objbench measures S3-compatible stores") {
			p.errs[i] = fmt.Errorf("%w; name an S3 target (an endpoint and a bucket, or a target URL) to run this workload there, containers as buckets", e)
		}
	}
}

var stageKinds = map[StageKind]bool{KindInit: true, KindPrepare: true, KindMain: true, KindCleanup: true, KindDispose: true, KindDelay: true}

func (st Stage) validate(p *problems, where string) {
	switch {
	case st.Kind == "":
		p.add(st.Pos, where, "no kind (want init, prepare, main, cleanup, dispose or delay)")
	case !stageKinds[st.Kind]:
		p.add(st.Pos, where, "unknown kind %q (want init, prepare, main, cleanup, dispose or delay)", st.Kind)
	}
	needStreams := st.Kind == KindPrepare || st.Kind == KindMain || !stageKinds[st.Kind]
	if len(st.Streams) == 0 && needStreams {
		p.add(st.Pos, where, "no streams")
	}
	if st.Kind == KindDelay && st.Delay <= 0 {
		p.add(st.Pos, where, "a delay stage needs a delay above zero")
	}
	if st.Delay < 0 {
		p.add(st.Pos, where, "delay %v is negative", st.Delay)
	}
	if f := st.OnError; f != nil && (f.MaxErrorRatio < 0 || f.MaxErrorRatio > 1 || f.MaxErrorRatio != f.MaxErrorRatio) {
		p.add(st.Pos, where, "max error ratio %v must be between 0 and 1", f.MaxErrorRatio)
	}
	for j, s := range st.Streams {
		s.validate(p, fmt.Sprintf("%s stream %d (%s)", where, j+1, s.Name), st.Kind)
	}
}

func (s Stream) validate(p *problems, where string, kind StageKind) {
	bad := func(format string, a ...any) { p.add(s.Pos, where, format, a...) }
	if kind == KindMain && len(s.Mix) == 0 {
		bad("no operations")
	}
	s.validateMix(p, where)
	for _, c := range s.Concurrency {
		switch {
		case c < 1:
			bad("concurrency %d; must be at least 1", c)
		case c > MaxConcurrency:
			bad("concurrency %d: one objbench process runs at most %d workers; split the run over processes (the workers of one run: docs/many-clients.md)", c, MaxConcurrency)
		}
	}
	if s.Rate != nil && s.Rate.MaxWorkers > MaxConcurrency {
		bad("max_workers %d: one objbench process runs at most %d workers; split the run over processes (the workers of one run)", s.Rate.MaxWorkers, MaxConcurrency)
	}
	if s.Size < 0 {
		bad("size %d bytes is negative", s.Size)
	}
	s.validateSizes(p, where)
	b := s.At(0).Bounds
	if s.Bounds.Duration < 0 || s.Bounds.Ops < 0 || s.Bounds.Bytes < 0 {
		bad("bounds must not be negative")
	}
	if kind == KindMain && b == (Bounds{}) {
		bad("no bound: give a duration, an op count or a byte count")
	}
	if s.Bounds.PerWorker && (s.Rate != nil || s.Sweep != nil) {
		bad("per-worker bounds (COSBench's totalOps and totalBytes) need a closed-loop stream of one concurrency")
	}
	if r := s.MaxErrorRatio; r != nil && (*r < 0 || *r > 1 || *r != *r) {
		bad("max error ratio %v must be between 0 and 1", *r)
	}
	if s.Rampup < 0 || s.Rampdown < 0 || (s.Rampup > 0 || s.Rampdown > 0) && (kind != KindMain || s.Rampup+s.Rampdown >= s.Bounds.Duration) {
		bad("rampup %v and rampdown %v: only a main stream with a duration longer than both together has them", s.Rampup, s.Rampdown)
	}
	if s.Sweep != nil && kind != KindMain {
		bad("only main stages sweep: a list of values here has no meaning")
	}
	s.Sweep.validate(bad)
	s.Rate.Validate(bad)
	if s.Rate != nil && kind != KindMain {
		bad("only main stages run at a fixed rate")
	}
	if s.Data.Compress < 0 || s.Data.Compress != s.Data.Compress {
		bad("compress ratio %v must be 0 (incompressible) or above 1", s.Data.Compress)
	}
	if d := s.Data; d.Pattern != "" && (d.Pattern != PatternLetters || d.Compress > 1) {
		bad("data pattern %q: want %q (COSBench's letters), and no compress ratio with it", d.Pattern, PatternLetters)
	}
	s.Objects.validate(p, s.Pos, where)
	if kind == KindPrepare {
		s.Objects.checkPool(p, s.Pos, where)
	}
	if s.Storage != nil {
		s.Storage.validate(p)
	}
	s.S3.validate(p, s.Pos, where)
	s.validateS3Ops(p, where)
}

func (s Stream) validateMix(p *problems, where string) {
	sum, multipart, ranged := 0, false, false
	for _, m := range s.Mix {
		at := m.Pos
		if at.File == "" {
			at = s.Pos
		}
		op, ok := CanonicalOp(m.Op)
		if !ok {
			p.add(at, where, "unknown operation %q (want "+OpNames+")", m.Op)
		}
		if m.Weight <= 0 {
			p.add(at, where, "operation %s has weight %d; weights must be positive", m.Op, m.Weight)
		}
		sum += m.Weight
		multipart = multipart || op == OpMultipart
		ranged = ranged || op == OpRangeGet
		ks := s.OpObjects(m)
		if ks.Existing && opWrites(m.Op) {
			p.add(at, where, "writes and deletes need objects this run created; existing objects under %q are only ever read", ks.Prefix)
		}
		if m.Objects != nil {
			m.Objects.validate(p, at, where)
		}
		if op != OpList && op != OpListVersions {
			ks.checkPool(p, at, where)
		}
		if m.SizeDist != nil {
			if err := m.SizeDist.check(); err != nil {
				p.add(at, where, "operation %s: size: %v", m.Op, err)
			}
		}
		if s.Data.Verify && ks.Source != "" && opNeedsObjects(m.Op) {
			p.add(at, where, "verify: objects from %s are not generated, so a read cannot know which bytes to expect", ks.Source)
		}
		if s.Data.Verify && ks.Existing && opNeedsObjects(m.Op) {
			p.add(at, where, "verify: objects under %q were not written by this run, so there is nothing to compare with", ks.Prefix)
		}
	}
	if s.Percent && len(s.Mix) > 0 && sum != 100 {
		p.add(s.Pos, where, "operation ratios sum to %d, want 100", sum)
	}
	if ranged && s.RangeSize <= 0 && (s.Sweep == nil || len(s.Sweep.RangeSizes) == 0) {
		p.add(s.Pos, where, "range-get needs a range size")
	}
	if multipart && s.PartSize > 0 && s.PartSize < MinPartSize {
		p.add(s.Pos, where, "part size %s is below S3's minimum of 5 MiB", units.FormatSize(s.PartSize))
	}
	if s.PartSize < 0 {
		p.add(s.Pos, where, "part size %d is negative", s.PartSize)
	}
}

func (s Stream) validateSizes(p *problems, where string) {
	if s.SizeDist != nil {
		if err := s.SizeDist.check(); err != nil {
			p.add(s.Pos, where, "size: %v", err)
		}
	}
	maxSize := s.Sizes().Max
	if s.RangeSize < 0 || (s.RangeSize > 0 && s.RangeSize > maxSize && !s.Objects.Existing && s.Sweep == nil) {
		p.add(s.Pos, where, "range size %d must be between 1 and the object size %d", s.RangeSize, maxSize)
	}
}

func (w *Sweep) validate(bad func(string, ...any)) {
	if w == nil {
		return
	}
	for _, d := range w.SizeDists {
		if err := d.check(); err != nil {
			bad("size: %v", err)
		}
	}
	for _, r := range w.Rates {
		r.Validate(bad)
	}
	for _, d := range w.Durations {
		if d <= 0 {
			bad("swept duration %v must be above zero", d)
		}
	}
	for _, xs := range [][]int64{w.RangeSizes, w.Ops, w.Bytes} {
		for _, x := range xs {
			if x <= 0 {
				bad("swept value %d must be above zero", x)
			}
		}
	}
}

// checkPool: a pool of objects lives in one bucket; several buckets need
// numbered objects.
func (k KeySpace) checkPool(p *problems, at Pos, where string) {
	if len(k.Buckets) > 1 && k.Index == nil && !k.Existing {
		p.add(at, where, "objects spread over %d buckets need an index selector (e.g. index: r(1,%d)), not a count", len(k.Buckets), max(k.Count, 1))
	}
}

func (k KeySpace) validate(p *problems, at Pos, where string) {
	bad := func(format string, a ...any) { p.add(at, where, format, a...) }
	if k.Count < 0 {
		bad("object count %d is negative", k.Count)
	}
	if k.Source != "" {
		if err := corpus.CheckSource(k.Source); err != nil {
			bad("source: %v", err)
		}
		if k.Index != nil || k.Existing || len(k.Buckets) > 1 {
			bad("source %s fills a pool of objects in one bucket: no index, existing or several buckets with it", k.Source)
		}
	}
	if k.Index != nil {
		if err := k.Index.check(); err != nil {
			bad("objects: %v", err)
		}
	}
	for _, b := range k.Buckets {
		if b == "" || strings.ContainsAny(b, "/\\") || b == "." || b == ".." {
			bad("bad bucket name %q", b)
		}
	}
	// Keys are joined as namespace + prefix + name + suffix; a dot segment
	// or an empty one would let a server or proxy that normalises paths
	// put objects outside the run's namespace, where cleanup never looks.
	if err := keyPart(k.Prefix, false); err != nil {
		bad("prefix %q: %v", k.Prefix, err)
	}
	if err := keyPart(k.Suffix, true); err != nil {
		bad("suffix %q: %v", k.Suffix, err)
	}
	if bp := k.BucketPick; bp != nil {
		if err := bp.check(); err != nil || bp.Min < 1 || bp.Max > int64(len(k.Buckets)) {
			bad("bucket selector %s does not pick among the %d buckets", bp, len(k.Buckets))
		}
	}
}

// keyPart checks a prefix (or, with glued, a suffix whose first segment
// continues the object's name) for "." and ".." segments and for empty
// segments ("//", a leading "/").
func keyPart(s string, glued bool) error {
	segs := strings.Split(s, "/")
	for i, seg := range segs {
		switch {
		case seg == "." || seg == "..":
			return fmt.Errorf("%q segments are not allowed in keys", seg)
		case seg == "" && i == len(segs)-1, seg == "" && i == 0 && glued:
		case seg == "":
			return errors.New("empty path segments (a leading '/' or '//') are not allowed in keys")
		}
	}
	return nil
}
