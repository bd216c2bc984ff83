package workload

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/objbench/objbench/units"
)

// PlanNamespace stands for the run's namespace in a plan written before
// the run has an id.
const PlanNamespace = "objbench/RUN-ID/"

// WritePlan describes what sp will do, stage by stage, with the op counts
// and bytes its bounds fix, where every object goes and what of the file
// is not honoured. It touches no storage and never prints credentials.
func WritePlan(w io.Writer, sp Spec) error { return WritePlanWith(w, sp, nil) }

// CorpusFacts is what a corpus holds, measured by listing it: objects and
// bytes, the smallest and largest.
type CorpusFacts struct {
	Objects, Bytes, Min, Max int64
}

// CorpusKey names a key space's corpus as WritePlanWith's facts are keyed:
// its source and the most objects taken from it.
func CorpusKey(ks KeySpace) string { return ks.Source + " max " + strconv.Itoa(ks.Count) }

// WritePlanWith is WritePlan with the corpora the key spaces upload
// measured (by CorpusKey), so the plan states their real counts and
// bytes; a corpus missing from corpora is described without them.
func WritePlanWith(w io.Writer, sp Spec, corpora map[string]CorpusFacts) error {
	pw := &planWriter{w: w, written: map[string]Selector{}, corpora: corpora}
	switch {
	case sp.Dataset != "":
		pw.ns = strings.NewReplacer(PlanNamespace, DatasetNamespace(sp.Dataset))
	case sp.BareKeys:
		pw.ns, pw.bare = strings.NewReplacer(PlanNamespace, ""), true
	}
	pw.header(sp)
	for i, st := range sp.Stages {
		pw.stage(sp, i, st)
		pw.remember(st)
	}
	return pw.err
}

type planWriter struct {
	w   io.Writer
	err error
	// written remembers the sizes earlier stages write into each key
	// space, to estimate the bytes of later reads.
	written map[string]Selector
	corpora map[string]CorpusFacts
	ns      *strings.Replacer // a data set's namespace for the run's
	bare    bool              // COSBench's key layout
}

func (p *planWriter) line(indent int, format string, a ...any) {
	if p.err != nil {
		return
	}
	text := strings.Repeat("  ", indent) + fmt.Sprintf(format, a...) + "\n"
	if p.ns != nil {
		text = p.ns.Replace(text)
	}
	_, p.err = io.WriteString(p.w, text)
}

func (p *planWriter) header(sp Spec) {
	name := sp.Name
	if name == "" {
		name = "(unnamed)"
	}
	if src := sp.Source; src != nil {
		p.line(0, "workload %q from %s (%s)", name, src.File, formatName(src.Format))
	} else {
		p.line(0, "workload %q", name)
	}
	if sp.ScaledBy > 0 {
		p.line(0, "scaled by %v: object counts, containers, op and byte limits and durations (not sizes or concurrency)", sp.ScaledBy)
	}
	if sp.RuntimeCap > 0 {
		p.line(0, "a trial run: every main stream runs at most %v and every delay waits at most %v (prepare and cleanup do all their work)", sp.RuntimeCap, sp.RuntimeCap)
	}
	if st := sp.Storage; st != nil {
		p.line(0, "storage (command-line flags override it): %s", st.describe())
	}
	if sp.BareKeys {
		p.bareKeys()
	} else {
		p.line(0, "keys: every object this run writes is stored as %s<name> in its bucket; buckets are", PlanNamespace)
		p.line(0, "  created only when missing and removed only when this run created them")
	}
	if sp.Dataset != "" {
		p.line(0, "data set %q: kept after the run (cleanup and dispose stages are skipped); reads of objects no stage", sp.Dataset)
		p.line(0, "  of this run writes find what earlier runs wrote into it; objbench dataset rm %s deletes it", sp.Dataset)
	}
	if sp.Source != nil && len(sp.Source.Warnings) > 0 {
		p.line(0, "not honoured as written (%d):", len(sp.Source.Warnings))
		for _, w := range sp.Source.Warnings {
			p.line(1, "%s", w)
		}
	}
	switch {
	case slices.ContainsFunc(sp.Stages, func(st Stage) bool { return st.Kind == KindCleanup }):
	case sp.BareKeys:
		p.line(0, "no cleanup stage: the objects this run writes stay after the run")
	default:
		p.line(0, "no cleanup stage: objects stay under %s after the run", PlanNamespace)
	}
}

func formatName(f string) string {
	switch f {
	case "cosbench":
		return "COSBench XML"
	case "yaml":
		return "YAML"
	}
	return f
}

func (s *Storage) describe() string {
	parts := []string{cmpOr(s.Type, "s3")}
	if s.Endpoint != "" {
		parts = append(parts, "endpoint "+s.Endpoint)
	}
	if s.Region != "" {
		parts = append(parts, "region "+s.Region)
	}
	if s.Addressing != "" {
		parts = append(parts, s.Addressing+"-style addressing")
	}
	if s.Credentials {
		parts = append(parts, "credentials in the file (never printed or recorded)")
	}
	if c := s.Connections(); c != "" {
		parts = append(parts, c)
	}
	return strings.Join(parts, ", ")
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (p *planWriter) stage(sp Spec, i int, st Stage) {
	head := fmt.Sprintf("stage %d %s %q", i+1, st.Kind, st.Name)
	if at := st.Pos.String(); at != "" {
		head += " (" + at + ")"
	}
	switch st.Kind {
	case KindDelay:
		p.line(0, "%s: wait %v", head, st.Delay)
	case KindInit:
		p.line(0, "%s: create buckets %s unless they exist", head, listNames(stageBuckets(sp, st)))
	case KindDispose:
		p.line(0, "%s: delete buckets %s if this run created them (others are kept)", head, listNames(stageBuckets(sp, st)))
	case KindPrepare:
		p.line(0, "%s:", head)
		for _, s := range st.Streams {
			p.prepare(s)
		}
	case KindCleanup:
		p.cleanup(head, st)
		if sp.Versioned() {
			p.line(1, "versioned: every version and delete marker under this run's prefixes, and nothing else, is removed")
		}
	default:
		p.main(head, st)
	}
	for _, s := range st.Streams {
		if o := s.S3.String(); o != "" {
			p.line(1, "stream %s s3 options: %s", s.Name, o)
		}
	}
	switch f := st.OnError; {
	case f == nil:
	case f.AtEnd:
		p.line(1, "at its end, a stream (work) whose failed ops exceed its afr (%s) fails the stage and the run; later stages still run", streamRatios(st))
	case f.MaxErrorRatio == 0:
		p.line(1, "stop the workflow at the first failed op")
	default:
		p.line(1, "stop the workflow when more than %s of this stage's ops fail", percent(f.MaxErrorRatio))
	}
}

// streamRatios lists the acceptable failure ratio of each stream of st.
func streamRatios(st Stage) string {
	var parts []string
	for _, s := range st.Streams {
		r := st.OnError.MaxErrorRatio
		if s.MaxErrorRatio != nil {
			r = *s.MaxErrorRatio
		}
		parts = append(parts, s.Name+" "+percent(r))
	}
	return strings.Join(parts, ", ")
}

func (p *planWriter) prepare(s Stream) {
	if s.Objects.Source != "" {
		p.prepareCorpus(s)
		return
	}
	n, exact := objectCount(s.Objects)
	sizes := s.Sizes()
	if s.Objects.Existing || n == 0 {
		p.line(1, "stream %q: nothing to write (%s)", s.Name, describeObjects(s.Objects))
		return
	}
	p.line(1, "stream %q: write %s objects of %s with %s: %s in all", s.Name, countString(n, exact),
		sizes.SizeString(), plural(s.MaxConcurrency(), "worker"), bytesString(float64(n)*sizes.Mean(), sizes.Kind == SelConst))
	p.line(2, "%s", describeObjects(s.Objects))
	if s.Data.Pattern == PatternLetters {
		p.line(2, "COSBench's data: each object repeats one 4 KiB piece of random letters (compressible; --incompressible for random bytes)")
	}
	if s.Data.HashCheck {
		p.line(2, "%s", hashCheckWrites)
	}
}

// hashCheckWrites says what COSBench's hashCheck does to writes.
const hashCheckWrites = "hashCheck: each object over 40 bytes ends in COSBench's checksum, !!!!<MD5 of the bytes before it, in hex>!!!!"

func (p *planWriter) cleanup(head string, st Stage) {
	if len(st.Streams) == 0 || !slices.ContainsFunc(st.Streams, func(s Stream) bool { return s.Objects.Index != nil }) {
		p.line(0, "%s: delete every object this run wrote (all of %s in each bucket it used)", head, PlanNamespace)
		return
	}
	p.line(0, "%s:", head)
	for _, s := range st.Streams {
		n, _ := objectCount(s.Objects)
		what := "delete up to"
		if p.bare {
			what = "delete those this run wrote of"
		}
		p.line(1, "stream %q: %s %s objects with %s: %s", s.Name, what, countString(n, true), plural(s.MaxConcurrency(), "worker"), describeObjects(s.Objects))
	}
}

func (p *planWriter) main(head string, st Stage) {
	p.line(0, "%s:", head)
	steps := st.Steps()
	for _, s := range st.Streams {
		p.line(1, "stream %q: %s", s.Name, describeMix(s))
		p.line(2, "objects: %s", describeObjects(s.Objects))
		for _, m := range s.Mix {
			if m.Objects != nil || m.SizeDist != nil {
				op, _ := CanonicalOp(m.Op)
				p.line(2, "%s: %s", op, describeOpOwn(s, m))
			}
		}
		if extra := streamExtras(s); extra != "" {
			p.line(2, "%s", extra)
		}
		for i := range steps {
			si := s.At(i)
			label := ""
			if steps > 1 {
				label = fmt.Sprintf("step %d", i+1)
				if l := s.StepLabel(i); l != "" {
					label += " (" + l + ")"
				}
				label += ": "
			}
			p.line(2, "%s%s, %s", label, plural(si.ConcurrencyAt(0), "worker"), p.expected(si))
		}
		for _, name := range s.perTargetNames() {
			t := s
			t.Bounds, t.Sweep = s.PerTarget[name], nil
			p.line(2, "on %s targets instead: %s", name, p.expected(t))
		}
	}
}

// remember notes the sizes st writes into each key space.
func (p *planWriter) remember(st Stage) {
	for _, s := range st.Streams {
		if f, ok := p.corpora[CorpusKey(s.Objects)]; ok && st.Kind == KindPrepare && s.Objects.Source != "" && f.Objects > 0 {
			for _, k := range writtenKeys(s.Objects) {
				p.written[k] = Const(f.Bytes / f.Objects) // reads of it move its mean size
			}
		} else if st.Kind == KindPrepare {
			for _, k := range writtenKeys(s.Objects) {
				p.written[k] = s.Sizes()
			}
		}
		for _, m := range s.Mix {
			if op, _ := CanonicalOp(m.Op); op == OpPut || op == OpMultipart {
				for _, k := range writtenKeys(s.OpObjects(m)) {
					p.written[k] = s.OpSizes(m)
				}
			}
		}
	}
}

// readSizes is the size distribution reads of op m find.
func (p *planWriter) readSizes(s Stream, m OpWeight) Selector {
	for _, k := range writtenKeys(s.OpObjects(m)) { // the first bucket written
		if w, ok := p.written[k]; ok {
			return w
		}
	}
	return s.OpSizes(m)
}

// describeMix lists each op with its share.
func describeMix(s Stream) string {
	total := 0
	for _, m := range s.Mix {
		total += m.Weight
	}
	var parts []string
	for _, m := range s.Mix {
		op, _ := CanonicalOp(m.Op)
		parts = append(parts, fmt.Sprintf("%s %s", cmpOr(op, m.Op), percent(float64(m.Weight)/float64(max(total, 1)))))
	}
	return strings.Join(parts, ", ")
}

// describeOpOwn is what op m does differently from its stream.
func describeOpOwn(s Stream, m OpWeight) string {
	out := describeObjects(s.OpObjects(m))
	if m.SizeDist != nil {
		out += "; size " + m.SizeDist.SizeString()
	}
	return out
}

func streamExtras(s Stream) string {
	var parts []string
	puts := slices.ContainsFunc(s.Mix, func(m OpWeight) bool {
		op, _ := CanonicalOp(m.Op)
		return (op == OpPut || op == OpMultipart) && m.SizeDist == nil
	})
	if puts && (s.Sweep == nil || len(s.Sweep.SizeDists) == 0) {
		parts = append(parts, "writes "+s.Sizes().SizeString())
	}
	if s.RangeSize > 0 {
		parts = append(parts, "ranges of "+units.FormatSize(s.RangeSize))
	}
	if s.Data.Compress > 1 {
		parts = append(parts, fmt.Sprintf("data compresses %v:1", s.Data.Compress))
	}
	if s.Data.Pattern == PatternLetters {
		parts = append(parts, "COSBench's data: each object repeats one 4 KiB piece of random letters (compressible; --incompressible for random bytes)")
	}
	hashed := func(op string) bool {
		return slices.ContainsFunc(s.Mix, func(m OpWeight) bool { o, _ := CanonicalOp(m.Op); return m.HashCheck && o == op })
	}
	if hashed(OpPut) {
		parts = append(parts, "writes with "+hashCheckWrites)
	}
	switch {
	case s.Data.Verify && hashed(OpGet):
		parts = append(parts, "reads with hashCheck check COSBench's checksum of objects written with it or by another client, as COSBench does, and every byte of the others against what this run wrote")
	case s.Data.Verify:
		parts = append(parts, "every byte read is checked against what this run wrote")
	}
	if s.Rampup > 0 || s.Rampdown > 0 {
		parts = append(parts, fmt.Sprintf("only the ops that start after the first %v (rampup) and end before the last %v (rampdown) count in the statistics, as COSBench counts them",
			s.Rampup, s.Rampdown))
	}
	switch FsyncOf(s) {
	case FsyncPerFile:
		parts = append(parts, "file targets fsync each file")
	case FsyncAtEnd:
		parts = append(parts, "file targets sync the file system at the step's end, in its time")
	}
	return strings.Join(parts, "; ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// expected says how much a main-stage stream does in one step.
func (p *planWriter) expected(s Stream) string {
	b := s.Bounds
	var limits []string
	workers := s.ConcurrencyAt(0)
	ops, bytes := b.WorkerPart(workers)
	switch {
	case b.Ops > 0 && b.PerWorker:
		limits = append(limits, fmt.Sprintf("%d ops, %d a worker (%s)", b.Ops, ops, bytesString(float64(b.Ops)*p.bytesPerOp(s), false)))
	case b.Ops > 0:
		limits = append(limits, fmt.Sprintf("%d ops (%s)", b.Ops, bytesString(float64(b.Ops)*p.bytesPerOp(s), false)))
	}
	switch {
	case b.Bytes > 0 && b.PerWorker:
		limits = append(limits, "until each worker has moved "+bytesString(float64(bytes), true)+" (finishing the op that crosses it)")
	case b.Bytes > 0:
		limits = append(limits, "until "+bytesString(float64(b.Bytes), true)+" moved")
	}
	if b.Duration > 0 {
		limits = append(limits, "for "+b.Duration.String())
	}
	if len(limits) == 1 {
		return limits[0]
	}
	return strings.Join(limits, " or ") + ", whichever first"
}

// bytesPerOp is the mean payload of one op of the mix.
func (p *planWriter) bytesPerOp(s Stream) float64 {
	total, sum := 0, 0.0
	for _, m := range s.Mix {
		total += m.Weight
		switch op, _ := CanonicalOp(m.Op); op {
		case OpPut, OpMultipart:
			sum += float64(m.Weight) * s.OpSizes(m).Mean()
		case OpGet:
			sum += float64(m.Weight) * p.readSizes(s, m).Mean()
		case OpRangeGet:
			sum += float64(m.Weight) * float64(s.RangeSize)
		}
	}
	return sum / float64(max(total, 1))
}

// prepareCorpus states the upload of a corpus: measured, when the caller
// listed it, else by name only.
func (p *planWriter) prepareCorpus(s Stream) {
	f, ok := p.corpora[CorpusKey(s.Objects)]
	if !ok {
		p.line(1, "stream %q: write the objects of %s (not measured) with %s", s.Name, s.Objects.Source, plural(s.MaxConcurrency(), "worker"))
	} else {
		p.line(1, "stream %q: write %d objects of %s with %s: %d bytes in all (%s; measured by listing it: objects of %s to %s)",
			s.Name, f.Objects, s.Objects.Source, plural(s.MaxConcurrency(), "worker"), f.Bytes,
			approxSize(float64(f.Bytes)), approxSize(float64(f.Min)), approxSize(float64(f.Max)))
	}
	p.line(2, "%s", describeObjects(s.Objects))
}
