package workload

import (
	"fmt"
	"sort"
	"strings"
)

// written is what earlier stages wrote into one key space.
type written struct {
	pool     bool       // a pool got objects
	ranges   [][2]int64 // index key spaces: the numbers written
	compress map[float64]bool
}

// checkPrepared finds reads of objects that no earlier stage writes (they
// could only fail), and verifying reads of data written differently.
func (sp Spec) checkPrepared(p *problems) {
	seen := map[string]*written{}
	for i, st := range sp.Stages {
		for j, s := range st.Streams {
			where := fmt.Sprintf("stage %d (%s) stream %d (%s)", i+1, st.Name, j+1, s.Name)
			if st.Kind == KindMain {
				sp.checkReads(p, seen, s, where)
			}
		}
		for _, s := range st.Streams {
			markWrites(seen, st.Kind, s)
		}
	}
}

func (sp Spec) checkReads(p *problems, seen map[string]*written, s Stream, where string) {
	for _, m := range s.Mix {
		ks := s.OpObjects(m)
		if !opNeedsObjects(m.Op) || ks.Existing || ks.broken {
			continue
		}
		at := m.Pos
		if at.File == "" {
			at = s.Pos
		}
		w := seen[ks.id()]
		strict := sp.Source != nil || ks.Index != nil || ks.Count == 0
		switch {
		case w == nil && strict && !s.writesPool(ks):
			p.add(at, where, "reads objects under %q, but none exist there: no earlier stage writes them (add a prepare stage, or mark the key space existing)", ks.Prefix)
		case w != nil && ks.Index != nil && !covers(w.ranges, ks.Index.Ranges()):
			p.add(at, where, "reads objects %s of %q, but earlier stages write only %s", ks.Index, ks.Prefix, rangesString(w.ranges))
		case w != nil && s.Data.Verify && len(w.compress) > 1:
			p.add(at, where, "verify: objects under %q are written with different compress ratios, so a read cannot know which bytes to expect", ks.Prefix)
		}
	}
}

// writesPool: a pool-mode stream that also PUTs into ks supplies its own reads.
func (s Stream) writesPool(ks KeySpace) bool {
	if ks.Index != nil {
		return false
	}
	for _, m := range s.Mix {
		if op, _ := CanonicalOp(m.Op); (op == OpPut || op == OpMultipart) && s.OpObjects(m).id() == ks.id() {
			return true
		}
	}
	return false
}

func markWrites(seen map[string]*written, kind StageKind, s Stream) {
	mark := func(ks KeySpace) {
		if ks.Existing {
			return
		}
		w := seen[ks.id()]
		if w == nil {
			w = &written{compress: map[float64]bool{}}
			seen[ks.id()] = w
		}
		w.compress[max(s.Data.Compress, 1)] = true
		if ks.Index == nil {
			w.pool = true
			return
		}
		w.ranges = mergeRanges(append(w.ranges, ks.Index.Ranges()...))
	}
	switch kind {
	case KindPrepare:
		if s.Objects.Index != nil || s.Objects.Count > 0 || s.Objects.Source != "" {
			mark(s.Objects)
		}
	case KindMain:
		for _, m := range s.Mix {
			if op, _ := CanonicalOp(m.Op); op == OpPut || op == OpMultipart {
				mark(s.OpObjects(m))
			}
		}
	}
}

func mergeRanges(rs [][2]int64) [][2]int64 {
	sort.Slice(rs, func(i, j int) bool { return rs[i][0] < rs[j][0] })
	var out [][2]int64
	for _, r := range rs {
		if n := len(out); n > 0 && r[0] <= out[n-1][1]+1 {
			out[n-1][1] = max(out[n-1][1], r[1])
			continue
		}
		out = append(out, r)
	}
	return out
}

func covers(have, want [][2]int64) bool {
	for _, r := range want {
		if !coveredBy(r, have) {
			return false
		}
	}
	return true
}

func rangesString(rs [][2]int64) string {
	if len(rs) == 0 {
		return "none"
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%d..%d", r[0], r[1])
	}
	return strings.Join(parts, ", ")
}
