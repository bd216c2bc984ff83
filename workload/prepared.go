package workload

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// written is what earlier stages wrote into one key space (a pool), or
// into one bucket of a naming (numbered objects: each bucket on its own,
// so a read over some of the buckets a prepare wrote is matched by what
// those buckets hold).
type written struct {
	pool     bool            // a pool got objects
	ranges   [][2]int64      // numbered objects: the numbers written
	compress map[string]bool // how the data was made (Data.kind)
}

// writtenKeys are the keys of seen that ks's objects are tracked under:
// the key space's id for a pool, one per bucket for numbered objects.
func writtenKeys(ks KeySpace) []string {
	if ks.Index == nil || ks.Existing {
		return []string{ks.id()}
	}
	buckets := ks.Buckets
	if len(buckets) == 0 {
		buckets = []string{""}
	}
	out := make([]string, len(buckets))
	for i, b := range buckets {
		out[i] = b + "\x00" + ks.naming() + "\x00index"
	}
	return out
}

// checkPrepared finds reads of objects that no earlier stage writes (they
// could only fail), warns about reads of objects only partly written
// (those reads fail, as in COSBench, which runs such files and counts the
// misses), and finds verifying reads of data written differently.
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
		if (sp.Dataset != "" || sp.BareKeys) && !writtenHere(seen, ks) {
			continue // read from the data set, or COSBench's names: what is there
		}
		if ks.Index != nil {
			checkIndexReads(p, seen, s, ks, at, where)
			continue
		}
		w := seen[ks.id()]
		strict := sp.Source != nil || ks.Count == 0
		switch {
		case w == nil && strict && !s.writesPool(ks):
			p.add(at, where, "reads objects under %q, but none exist there: no earlier stage writes them (add a prepare stage, or mark the key space existing)", ks.Prefix)
		case w != nil && s.Data.Verify && len(w.compress) > 1:
			p.add(at, where, "verify: objects under %q are written with different data (compress ratios or patterns), so a read cannot know which bytes to expect", ks.Prefix)
		}
	}
}

// kind names how the data is made: two streams of one kind write the same
// bytes for a key.
func (d Data) kind() string {
	return d.Pattern + "/" + strconv.FormatFloat(max(d.Compress, 1), 'g', -1, 64)
}

// checkIndexReads matches reads of numbered objects with what earlier
// stages wrote, bucket by bucket: every bucket and number covered is
// fine, none is an error, some is a warning naming what is missing.
func checkIndexReads(p *problems, seen map[string]*written, s Stream, ks KeySpace, at Pos, where string) {
	want := ks.Index.Ranges()
	buckets := ks.Buckets
	if len(buckets) == 0 {
		buckets = []string{""}
	}
	var missing []string
	some := false
	compress := map[string]bool{}
	for i, key := range writtenKeys(ks) {
		w := seen[key]
		if w == nil {
			missing = append(missing, bucketLabel(buckets[i])+" holds none of them")
			continue
		}
		for c := range w.compress {
			compress[c] = true
		}
		if overlaps(w.ranges, want) {
			some = true
		}
		if !covers(w.ranges, want) {
			missing = append(missing, fmt.Sprintf("%s holds only %s", bucketLabel(buckets[i]), rangesString(w.ranges)))
		}
	}
	switch {
	case !some:
		p.add(at, where, "reads objects %s under %q, but none exist there: no earlier stage writes them (add a prepare stage, or mark the key space existing)", ks.Index, ks.Prefix)
	case len(missing) > 0:
		p.warn(at, where, "reads objects %s under %q, but earlier stages wrote only part of them (%s): those reads fail and count as errors, as in COSBench",
			ks.Index, ks.Prefix, strings.Join(missing, "; "))
	}
	if s.Data.Verify && len(compress) > 1 {
		p.add(at, where, "verify: objects under %q are written with different data (compress ratios or patterns), so a read cannot know which bytes to expect", ks.Prefix)
	}
}

// writtenHere reports whether an earlier stage of the run writes any of
// ks's objects.
func writtenHere(seen map[string]*written, ks KeySpace) bool {
	for _, k := range writtenKeys(ks) {
		if seen[k] != nil {
			return true
		}
	}
	return false
}

func bucketLabel(b string) string {
	if b == "" {
		return "the target's bucket"
	}
	return "bucket " + b
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
		for _, key := range writtenKeys(ks) {
			w := seen[key]
			if w == nil {
				w = &written{compress: map[string]bool{}}
				seen[key] = w
			}
			w.compress[s.Data.kind()] = true
			if ks.Index == nil {
				w.pool = true
				continue
			}
			w.ranges = mergeRanges(append(w.ranges, ks.Index.Ranges()...))
		}
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

// overlaps reports whether some number lies in both.
func overlaps(have, want [][2]int64) bool {
	for _, h := range have {
		for _, r := range want {
			if h[0] <= r[1] && r[0] <= h[1] {
				return true
			}
		}
	}
	return false
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
