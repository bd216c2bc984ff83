package workload

import (
	"sort"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/objbench/objbench/units"
)

// Target kinds a stream's per_target entries may name, besides a
// target's URL (file:///DIR, s3://BUCKET).
const (
	TargetFS = "fs"
	TargetS3 = "s3"
)

var perTargetFields = []string{"total_ops", "total_bytes", "duration"}

// perTarget reads a stream's per_target: bounds by target kind or URL,
// so one workload run on several targets gives each its own counts
// (500,000 tiny files to a disk, 500 to S3).
func (d *ydec) perTarget(n *yaml.Node) map[string]Bounds {
	out := map[string]Bounds{}
	m := resolve(n)
	for name, v := range d.fields(n, "per_target") {
		if name != TargetFS && name != TargetS3 && !strings.HasPrefix(name, "file://") && !strings.HasPrefix(name, "s3://") {
			d.fail(keyNode(m, name), "per_target: %q is no target: want fs, s3, file:///DIR or s3://BUCKET", name)
			continue
		}
		var b Bounds
		f := d.fields(v, "per_target "+name, perTargetFields...)
		if x, ok := f["total_ops"]; ok {
			b.Ops, _ = one(d, x, "total_ops", parsePositive)
		}
		if x, ok := f["total_bytes"]; ok {
			b.Bytes, _ = one(d, x, "total_bytes", units.ParseSize)
		}
		if x, ok := f["duration"]; ok {
			b.Duration, _ = one(d, x, "duration", parseDuration)
		}
		if b == (Bounds{}) {
			d.fail(v, "per_target %s: give total_ops, total_bytes or duration", name)
			continue
		}
		out[name] = b
	}
	return out
}

// keyNode is the key node of field name in mapping m, for error positions.
func keyNode(m *yaml.Node, name string) *yaml.Node {
	for i := 0; m != nil && i+1 < len(m.Content); i += 2 {
		if k := resolve(m.Content[i]); k != nil && k.Value == name {
			return k
		}
	}
	return m
}

// ForTarget is sp as it runs on one target: each stream whose per_target
// names the target's URL (first) or kind ("fs", "s3") takes those bounds
// instead of its own (a sweep of the bounds it replaces is dropped).
func (sp Spec) ForTarget(url, kind string) Spec {
	out := sp
	out.Stages = make([]Stage, len(sp.Stages))
	for i, st := range sp.Stages {
		st.Streams = append([]Stream(nil), st.Streams...)
		for j := range st.Streams {
			s := &st.Streams[j]
			b, ok := s.PerTarget[url]
			if !ok {
				b, ok = s.PerTarget[kind]
			}
			if !ok {
				continue
			}
			s.Bounds = b
			if s.Sweep != nil {
				w := *s.Sweep
				w.Ops, w.Bytes, w.Durations = nil, nil, nil
				s.Sweep = &w
			}
		}
		out.Stages[i] = st
	}
	return out
}

// WithFsync is sp with every prepare and main stream's file-system sync
// set to m, whatever the file said (--fsync on the command line).
func (sp Spec) WithFsync(m FsyncMode) Spec {
	out := sp
	out.Stages = make([]Stage, len(sp.Stages))
	for i, st := range sp.Stages {
		st.Streams = append([]Stream(nil), st.Streams...)
		if st.Kind == KindPrepare || st.Kind == KindMain {
			for j := range st.Streams {
				st.Streams[j].Fsync, st.Streams[j].SyncAtEnd = m.PerFile(), m == FsyncAtEnd
			}
		}
		out.Stages[i] = st
	}
	return out
}

// perTargetNames lists a stream's per_target keys in order, for plans.
func (s Stream) perTargetNames() []string {
	names := make([]string, 0, len(s.PerTarget))
	for n := range s.PerTarget {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
