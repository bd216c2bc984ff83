package workload

import (
	"reflect"
	"strconv"
	"strings"
	"time"
)

// COSBench's default name prefixes (dev/cosbench-driver/src/com/intel/
// cosbench/driver/util/Defaults.java).
const (
	defaultContainerPrefix = "mycontainers"
	defaultObjectPrefix    = "myobjects"
)

var workAttrs = []string{"name", "type", "workers", "interval", "division", "runtime", "rampup", "rampdown",
	"afr", "totalOps", "totalBytes", "driver", "config"}

var workKinds = map[string]StageKind{"init": KindInit, "prepare": KindPrepare, "normal": KindMain, "main": KindMain,
	"cleanup": KindCleanup, "dispose": KindDispose, "delay": KindDelay}

// defaultDivision is COSBench's division per work type; another one is
// worth a warning.
var defaultDivision = map[StageKind]string{KindMain: "none", KindPrepare: "object", KindCleanup: "object",
	KindInit: "container", KindDispose: "container", KindDelay: "none"}

// work maps one <work> onto a stream of a stage of its kind.
func (c *cdec) work(w *xnode, cfg kvConfig, storage *Storage) (*stageGroup, bool) {
	c.checkElement(w, workAttrs, "auth", "storage", "operation")
	typ := cmpOr(w.attrs["type"], "normal")
	kind, ok := workKinds[strings.ToLower(typ)]
	if !ok {
		c.fail(w, "work type %q: want init, prepare, normal (main), cleanup, dispose or delay", typ)
		return nil, false
	}
	g := &stageGroup{kind: kind, afr: c.afr(w, kind)}
	if kind == KindDelay {
		return g, true
	}
	s := Stream{Name: cmpOr(w.attrs["name"], typ), Pos: c.pos(w), Percent: kind == KindMain, Driver: w.attrs["driver"]}
	if kind == KindMain || kind == KindPrepare {
		afr := g.afr
		s.MaxErrorRatio = &afr
	}
	s.Concurrency = []int{int(c.intAttr(w, "workers", 1, 1<<20, true))}
	c.workNotes(w, kind, &s)
	cfg = cfg.merge(c.config(w))
	if st := c.storageOf(w, storage); st != storage {
		s.Storage = st
	}
	ops := w.kidsNamed("operation")
	if kind != KindMain && len(ops) > 0 {
		c.warn(ops[0], "operations of a %s work are ignored: the work type says what it does", typ)
	}
	switch kind {
	case KindMain:
		c.mainWork(w, ops, cfg, &s)
	case KindInit, KindDispose:
		s.Objects, _ = c.keySpace(w, cfg, kind, false)
	case KindPrepare, KindCleanup:
		s.Objects, _ = c.keySpace(w, cfg, kind, true)
		c.checkConfig(w, cfg)
		if kind == KindPrepare {
			c.sizes(w, cfg, &s)
			s.Data.Compress, s.Data.Pattern = c.content(w, cfg)
			hc, err := parseBool(cfg["hashcheck"]) // Preparer.java reads it
			s.Data.HashCheck = err == nil && hc
		}
	}
	c.containerFlags(w, cfg, kind, s, g)
	g.streams = []Stream{s}
	return g, true
}

// afr is the acceptable failure ratio as a fraction, COSBench's default
// (20% for main works, none for the others) unless given.
func (c *cdec) afr(w *xnode, kind StageKind) float64 {
	if _, ok := w.attrs["afr"]; !ok {
		if kind == KindMain {
			return 0.2
		}
		return 0
	}
	return float64(c.intAttr(w, "afr", 0, 1000000, false)) / 1e6
}

// intAttr reads a whole-number attribute in [lo, hi].
func (c *cdec) intAttr(w *xnode, name string, lo, hi int64, required bool) int64 {
	v, ok := w.attrs[name]
	if !ok || strings.TrimSpace(v) == "" {
		if required {
			c.fail(w, "<%s> needs %s=", w.name, name)
		}
		return lo
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < lo || n > hi {
		c.fail(w, "%s=%q: want a whole number from %d to %d", name, v, lo, hi)
		return lo
	}
	return n
}

// workNotes reads the bounds and warns about what objbench does its own way.
func (c *cdec) workNotes(w *xnode, kind StageKind, s *Stream) {
	runtime := c.intAttr(w, "runtime", 0, 1e7, false)
	rampup := c.intAttr(w, "rampup", 0, 1e7, false)
	rampdown := c.intAttr(w, "rampdown", 0, 1e7, false)
	if kind == KindMain {
		s.Bounds = Bounds{Ops: c.intAttr(w, "totalOps", 0, 1<<62, false), Bytes: c.intAttr(w, "totalBytes", 0, 1<<62, false)}
		if runtime > 0 { // without a runtime COSBench ignores rampup and rampdown
			s.Bounds.Duration = time.Duration(runtime+rampup+rampdown) * time.Second
			s.Rampup, s.Rampdown = time.Duration(rampup)*time.Second, time.Duration(rampdown)*time.Second
		}
		if s.Bounds == (Bounds{}) {
			c.fail(w, "work %q has no limit: give runtime=, totalOps= or totalBytes=", s.Name)
		}
		c.perWorker(w, s)
	}
	switch {
	case (rampup > 0 || rampdown > 0) && (runtime == 0 || kind != KindMain):
		c.warn(w, "rampup=%d rampdown=%d without runtime: ignored, as COSBench does (the work ends by its op or byte limit)", rampup, rampdown)
	case rampup > 0 || rampdown > 0:
		c.warn(w, "rampup=%d rampdown=%d: as in COSBench, every worker starts at once, the work runs %d s, and only the ops that start after its first %d s and end before its last %d s count in its statistics (counts, latencies, rates)",
			rampup, rampdown, runtime+rampup+rampdown, rampup, rampdown)
	}
	if v, ok := w.attrs["interval"]; ok && strings.TrimSpace(v) != "5" {
		c.warn(w, "interval=%s: objbench records every second", v)
	}
	if v, ok := w.attrs["division"]; ok && v != defaultDivision[kind] {
		c.warn(w, "division=%s: objbench's workers share one queue of work instead of COSBench's split per worker by %s; in prepare and cleanup each object is still handled once", v, v)
	}
}

// perWorker divides totalOps and totalBytes among the work's workers as
// COSBench does (dev/cosbench-driver/src/com/intel/cosbench/driver/agent/
// WorkAgent.java, initLimites: each worker's limit is the total divided by
// the workers, rounded down; trySummary: a worker stops at its own, and a
// limit of 0 is no limit).
func (c *cdec) perWorker(w *xnode, s *Stream) {
	b := &s.Bounds
	if b.Ops == 0 && b.Bytes == 0 {
		return
	}
	n := int64(s.Concurrency[0])
	if n < 1 {
		return // refused already
	}
	b.PerWorker = true
	for _, l := range []struct {
		attr string
		v    *int64
	}{{"totalOps", &b.Ops}, {"totalBytes", &b.Bytes}} {
		total := *l.v
		if total == 0 {
			continue
		}
		part := total / n
		*l.v = part * n
		other := b.Duration > 0 || (l.attr == "totalOps" && b.Bytes > 0) || (l.attr == "totalBytes" && b.Ops > 0)
		switch {
		case part == 0 && !other:
			c.fail(w, "%s=%d with %d workers gives each worker %d/%d = 0, which COSBench takes as no limit: the work would never end (give at least %d)",
				l.attr, total, n, total, n, n)
		case part == 0:
			c.warn(w, "%s=%d with %d workers gives each worker %d/%d = 0, which COSBench takes as no limit: ignored, as in COSBench",
				l.attr, total, n, total, n)
		case l.attr == "totalOps" && total%n != 0:
			c.warn(w, "totalOps=%d with %d workers: each worker does %d/%d = %d ops, as in COSBench, %d in all", total, n, total, n, part, part*n)
		}
	}
}

// keySpace reads containers (buckets) and, with objects, the object names.
func (c *cdec) keySpace(n *xnode, cfg kvConfig, kind StageKind, objects bool) (KeySpace, bool) {
	var ks KeySpace
	cs, ok := cfg["containers"]
	if !ok {
		c.fail(n, "config needs containers= (which buckets, e.g. containers=r(1,2))")
		return ks, false
	}
	sel, err := ParseSelector(cs)
	if err != nil {
		c.fail(n, "containers: %v", err)
		return ks, false
	}
	if sel.Count() > 10000 {
		c.fail(n, "containers=%s names more than 10000 buckets", cs)
		return ks, false
	}
	// COSBench's defaults since 0.4.0 (driver/util/Defaults.java):
	// containers mycontainers<N>, objects myobjects<N>, no suffix. Its
	// user guide's mycontainers_<N> is out of date.
	cprefix, csuffix := defaultContainerPrefix, cfg["csuffix"]
	if v, ok := cfg["cprefix"]; ok {
		cprefix = v
	}
	ks.Buckets = c.buckets(n, cprefix, csuffix, sel)
	ks.Containers = &Containers{Prefix: cprefix, Suffix: csuffix, Numbers: sel}
	if kind == KindMain {
		pick := rankSelector(sel)
		ks.BucketPick = &pick
	}
	if !objects {
		return ks, true
	}
	ks.Prefix, ks.Suffix = defaultObjectPrefix, cfg["osuffix"]
	if v, ok := cfg["oprefix"]; ok {
		ks.Prefix = v
	}
	os, ok := cfg["objects"]
	if !ok {
		c.fail(n, "config needs objects= (which objects, e.g. objects=r(1,100))")
		return ks, false
	}
	idx, err := ParseSelector(os)
	if err != nil {
		c.fail(n, "objects: %v", err)
		return ks, false
	}
	ks.Index = &idx
	return ks, true
}

// rankSelector maps container numbers to positions in the bucket list
// (1-based), so c(3) over containers 3..5 picks the first bucket.
func rankSelector(s Selector) Selector {
	ranges := s.Ranges()
	rank := func(v int64) int64 {
		var before int64
		for _, r := range ranges {
			if v <= r[1] {
				return before + v - r[0] + 1
			}
			before += r[1] - r[0] + 1
		}
		return before
	}
	out := s
	out.Min, out.Max = rank(s.Min), rank(s.Max)
	if s.Bins != nil {
		out.Bins = make([]Bin, len(s.Bins))
		for i, b := range s.Bins {
			out.Bins[i] = Bin{Lo: rank(b.Lo), Hi: rank(b.Hi), Weight: b.Weight}
		}
	}
	return out
}

func (c *cdec) sizes(n *xnode, cfg kvConfig, s *Stream) bool {
	v, ok := cfg["sizes"]
	if !ok {
		c.fail(n, "config needs sizes= (e.g. sizes=c(64)KB)")
		return false
	}
	sel, err := ParseWholeSizeSelector(v) // u(1,4)KB: 1000, 2000, 3000 or 4000 bytes, as in COSBench
	if err != nil {
		c.fail(n, "sizes: %v", err)
		return false
	}
	s.Size, s.SizeDist = sel.Min, &sel
	if sel.Kind == SelConst {
		s.SizeDist = nil
	}
	return true
}

// content is what the written bytes look like: COSBench's random letters
// (each object one 4 KiB piece of them, repeated), or for content=zero
// nearly all zeros.
func (c *cdec) content(n *xnode, cfg kvConfig) (compress float64, pattern string) {
	switch v := strings.ToLower(cfg["content"]); v {
	case "", "random":
		return 0, PatternLetters
	case "zero":
		c.warn(n, "content=zero: objbench writes data that is 1/4096 random (compresses about 4096 times) rather than all zeros")
		return 4096, ""
	default:
		c.warn(n, "content=%s is not one objbench knows (random or zero); COSBench's random letters are written", v)
		return 0, PatternLetters
	}
}

// containerFlags honours createContainer and deleteContainer as an init
// stage before a prepare and a dispose stage after a cleanup.
func (c *cdec) containerFlags(w *xnode, cfg kvConfig, kind StageKind, s Stream, g *stageGroup) {
	on := func(k string) bool { b, err := parseBool(cfg[k]); return err == nil && b }
	only := Stream{Name: s.Name, Concurrency: s.Concurrency, Objects: KeySpace{Buckets: s.Objects.Buckets, Containers: s.Objects.Containers}, Pos: s.Pos}
	if kind == KindPrepare && on("createcontainer") {
		g.before = append(g.before, Stage{Name: s.Name + " createContainer", Kind: KindInit, Streams: []Stream{only}, Pos: s.Pos})
	}
	if kind == KindCleanup && on("deletecontainer") {
		g.after = append(g.after, Stage{Name: s.Name + " deleteContainer", Kind: KindDispose, Streams: []Stream{only}, Pos: s.Pos})
	}
}

var knownConfigKeys = []string{"cprefix", "csuffix", "containers", "oprefix", "osuffix", "objects", "sizes",
	"hashcheck", "content", "chunked", "createcontainer", "deletecontainer", "files", "fileselection", "name"}

// checkConfig warns once per work about config keys objbench does not use.
func (c *cdec) checkConfig(n *xnode, cfg kvConfig) {
	for _, k := range cfg.keys() {
		switch {
		case k == "chunked" && cfg[k] == "true":
			c.warn(n, "chunked=true: objbench always sends a Content-Length (no chunked transfer encoding)")
		case !contains(knownConfigKeys, k):
			c.warn(n, "config key %s is not used by objbench; ignored", k)
		}
	}
}

// sameKeySpace compares key spaces by value.
func sameKeySpace(a, b KeySpace) bool { return reflect.DeepEqual(a, b) }
