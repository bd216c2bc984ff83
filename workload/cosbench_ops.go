package workload

import "strings"

var cosbenchOps = map[string]string{"read": OpGet, "write": OpPut, "delete": OpDelete, "list": OpList, "filewrite": OpPut}

// mainWork maps a main work's operations onto the stream's mix. Each
// operation keeps its own containers, objects and sizes; those shared with
// the first operation are the stream's.
func (c *cdec) mainWork(w *xnode, ops []*xnode, cfg kvConfig, s *Stream) {
	if len(ops) == 0 {
		c.fail(w, "main work %q has no <operation>", s.Name)
		return
	}
	first, sized := true, false
	for _, o := range ops {
		op, ok := c.operation(o, cfg, s)
		m, ks, size := op.m, op.ks, op.size
		if !ok || m.Weight == 0 {
			continue // as in COSBench, a 0% operation is dropped
		}
		if first {
			s.Objects, first = ks, false
		} else if !sameKeySpace(ks, s.Objects) {
			m.Objects = &ks
		}
		switch {
		case size != nil && !sized:
			s.Size, s.SizeDist, sized = size.Min, size, true
			if size.Kind == SelConst {
				s.SizeDist = nil
			}
		case size != nil && !sameSelector(*size, s.Sizes()):
			m.SizeDist = size
		}
		s.Mix = append(s.Mix, m)
	}
}

func sameSelector(a, b Selector) bool { return a.String() == b.String() }

// cosOp is one <operation>: its op, ratio and hashCheck, key space and
// sizes (writes).
type cosOp struct {
	m    OpWeight
	ks   KeySpace
	size *Selector
}

// operation reads one <operation>.
func (c *cdec) operation(o *xnode, cfg kvConfig, s *Stream) (cosOp, bool) {
	c.checkElement(o, []string{"type", "ratio", "division", "config", "id"})
	typ := strings.ToLower(o.attrs["type"])
	op, ok := cosbenchOps[typ]
	if !ok {
		c.fail(o, "operation type %q: objbench runs read, write, delete, list and filewrite", o.attrs["type"])
		return cosOp{}, false
	}
	m := OpWeight{Op: op, Pos: c.pos(o), Weight: 100} // COSBench's default ratio
	if _, ok := o.attrs["ratio"]; ok {
		m.Weight = int(c.intAttr(o, "ratio", 0, 100, true))
	}
	if d, ok := o.attrs["division"]; ok && d != "none" {
		c.warn(o, "division=%s: objbench's workers share one queue of work instead of COSBench's split per worker", d)
	}
	cfg = cfg.merge(c.config(o))
	c.checkConfig(o, cfg)
	ks, ok := c.keySpace(o, cfg, KindMain, op != OpList || cfg["objects"] != "")
	if !ok {
		return cosOp{m: m, ks: ks}, false
	}
	if typ == "filewrite" {
		c.warn(o, "filewrite: objbench uploads generated data of the given sizes, not the files under files=%q", cfg["files"])
	}
	// Reader, Writer and Preparer each read hashCheck (dev/cosbench-driver/
	// src/com/intel/cosbench/driver/operator/): objects written carry
	// the MD5 trailer (generator/RandomInputStream.java), reads check it.
	hc, err := parseBool(cfg["hashcheck"])
	m.HashCheck = err == nil && hc && (op == OpGet || op == OpPut)
	if m.HashCheck && op == OpGet {
		s.Data.Verify = true
	}
	if op != OpPut {
		if op == OpGet && s.Data == (Data{Verify: s.Data.Verify}) {
			// What a verifying read expects when no write of this run
			// says (a data set written by an earlier run): COSBench's data.
			s.Data.Pattern = PatternLetters
			if strings.EqualFold(cfg["content"], "zero") {
				s.Data.Compress, s.Data.Pattern = 4096, ""
			}
		}
		return cosOp{m: m, ks: ks}, true
	}
	var tmp Stream
	if !c.sizes(o, cfg, &tmp) {
		return cosOp{m: m, ks: ks}, false
	}
	s.Data.Compress, s.Data.Pattern = c.content(o, cfg)
	size := tmp.Sizes()
	return cosOp{m: m, ks: ks, size: &size}, true
}
