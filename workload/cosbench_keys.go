package workload

import "fmt"

// COSBench's key layout (Spec.BareKeys): each object is named as COSBench
// names it, container = bucket and object name = key, without the run's
// namespace, so that objbench reads data COSBench (or anyone) prepared
// under COSBench's names and writes data COSBench reads. The safety
// promise holds by the run's own record of what it wrote: a write never
// replaces an object the run did not write, a delete (main stage, cleanup,
// dispose) removes only objects the run wrote, never what it found.

// BareKeysNote says what the layout does, before a run or in a plan.
const BareKeysNote = "COSBench's key layout (--cosbench-keys): objects are named as COSBench names them (container = bucket, object name = key), " +
	"not under objbench/<run id>/; the run writes no object that is already there (it refuses to start if the workload would write over one, and a write of an " +
	"object it did not write fails as " + ClassForeign + "), and its deletes (main stage, cleanup, dispose) remove only the objects it wrote, by its own record, " +
	"never what it found"

// ClassForeign is the error class of a write or delete of an object the
// run did not write, in COSBench's key layout: not sent (a delete), or
// refused by the store (a write made only if the key is free).
const ClassForeign = "foreign_object"

// checkBareKeys refuses COSBench's key layout where it cannot keep its
// promise: outside a COSBench workload, with a data set, or where a
// stage writes objects that are not numbered (only the numbers written
// are recorded).
func (sp Spec) checkBareKeys(p *problems) {
	if !sp.BareKeys {
		return
	}
	if sp.Source == nil || sp.Source.Format != "cosbench" {
		p.add(Pos{}, "", "COSBench's key layout is for COSBench workloads only")
	}
	if sp.Dataset != "" {
		p.add(Pos{}, "", "COSBench's key layout and a data set exclude each other: a data set lives under objbench/data/%s/", sp.Dataset)
	}
	for i, st := range sp.Stages {
		for j, s := range st.Streams {
			where := fmt.Sprintf("stage %d (%s) stream %d (%s)", i+1, st.Name, j+1, s.Name)
			if st.Kind == KindPrepare && s.Objects.Index == nil && !s.Objects.Existing {
				p.add(s.Pos, where, "COSBench's key layout writes numbered objects only")
			}
			for _, m := range s.Mix {
				if opWrites(m.Op) && s.OpObjects(m).Index == nil {
					p.add(s.Pos, where, "COSBench's key layout writes numbered objects only")
				}
			}
			if s.Driver != "" {
				p.add(s.Pos, where, "COSBench's key layout runs in one process: driver %q", s.Driver)
			}
		}
	}
}

// bareKeys says in a plan what COSBench's key layout does.
func (p *planWriter) bareKeys() {
	text := "keys: " + BareKeysNote + "; buckets are created only when missing and removed only when this run created them and they hold nothing else"
	for i, l := range wrapWords(text, 100) {
		p.line(min(i, 1), "%s", l)
	}
}
