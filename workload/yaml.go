package workload

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// MaxFileSize bounds a workload file; real ones are a few KiB.
const MaxFileSize = 4 << 20

var (
	specFields    = []string{"name", "description", "storage", "stages", "profile"}
	storageFields = []string{"type", "endpoint", "region", "addressing", "path_style", "timeout",
		"keepalive", "max_conns_per_host", "ca_bundle", "insecure", "tls_resumption"}
	stageFields = []string{"name", "kind", "streams", "delay", "buckets", "on_error", "max_error_ratio"}
)

// DecodeYAML reads a YAML workload. Every problem comes back in one joined
// error, each as file:line: message; warnings say what the file asks for
// that objbench does not do. The spec is not validated (see Decode).
func DecodeYAML(file string, data []byte) (Spec, []Warning, error) {
	if len(data) > MaxFileSize {
		return Spec{}, nil, fmt.Errorf("%s: %d bytes is too large for a workload file (at most %d)", file, len(data), MaxFileSize)
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return Spec{}, nil, yamlSyntaxError(file, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return Spec{}, nil, fmt.Errorf("%s:%d: more than one YAML document; a workload is one", file, extra.Line)
	}
	d := &ydec{file: file}
	sp := Spec{Source: &Source{File: file, Format: "yaml"}}
	if len(doc.Content) == 0 {
		return Spec{}, nil, fmt.Errorf("%s: empty workload file", file)
	}
	d.spec(doc.Content[0], &sp)
	return sp, d.warns, errors.Join(d.errs...)
}

func (d *ydec) spec(n *yaml.Node, sp *Spec) {
	f := d.fields(n, "the workload", specFields...)
	if f == nil {
		return
	}
	if v, ok := f["name"]; ok {
		sp.Name, _ = d.scalar(v, "name")
	}
	if v, ok := f["description"]; ok {
		d.scalar(v, "description")
	}
	if v, ok := f["storage"]; ok {
		sp.Storage = d.storage(v)
	}
	v, ok := f["stages"]
	if pv, has := f["profile"]; has {
		if ok {
			d.fail(v, "stages and a profile: the profile makes the stages, give one or the other")
			return
		}
		sp.Profile = d.profile(pv)
		return
	}
	if !ok {
		d.fail(n, "no stages: a workload needs a list of stages (or a profile)")
		return
	}
	for _, item := range list(v) {
		if d.items++; d.items > maxItems {
			d.fail(item, "more than %d stages and streams", maxItems)
			return
		}
		sp.Stages = append(sp.Stages, d.stage(item)...)
	}
}

// profile reads a profile: block: its kind and its options, every value
// a scalar (the profile's command checks them).
func (d *ydec) profile(n *yaml.Node) *Profile {
	pr := &Profile{Options: map[string]string{}, Pos: d.pos(n)}
	if n.Kind != yaml.MappingNode {
		d.fail(n, "profile: want a mapping (kind: ai train, and its options)")
		return pr
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		val, ok := d.scalar(v, "profile "+k.Value)
		switch {
		case !ok:
		case k.Value == "kind":
			pr.Kind = strings.Join(strings.Fields(val), " ")
		case pr.Options[k.Value] != "":
			d.fail(k, "profile option %q appears twice", k.Value)
		default:
			pr.Options[k.Value] = val
		}
	}
	known := false
	for _, k := range ProfileKinds {
		known = known || pr.Kind == k
	}
	if !known {
		d.fail(n, "profile kind %q: want one of %s", pr.Kind, strings.Join(ProfileKinds, ", "))
	}
	return pr
}

func (d *ydec) storage(n *yaml.Node) *Storage {
	f := d.fields(n, "storage", storageFields...)
	st := &Storage{Type: "s3", Pos: d.pos(n)}
	if v, ok := f["type"]; ok {
		st.Type, _ = d.scalar(v, "storage type")
	}
	if v, ok := f["endpoint"]; ok {
		st.Endpoint, _ = d.scalar(v, "endpoint")
	}
	if v, ok := f["region"]; ok {
		st.Region, _ = d.scalar(v, "region")
	}
	if v, ok := f["addressing"]; ok {
		if a, _ := d.scalar(v, "addressing"); a == "path" || a == "virtual" || a == "auto" {
			st.Addressing = strings.TrimPrefix(a, "auto")
		} else {
			d.fail(v, "addressing %q: want path, virtual or auto", a)
		}
	}
	if v, ok := f["path_style"]; ok {
		if b, ok := one(d, v, "path_style", parseBool); ok && b {
			st.Addressing = "path"
		} else if ok {
			st.Addressing = "virtual"
		}
	}
	if v, ok := f["timeout"]; ok {
		st.Timeout, _ = one(d, v, "timeout", parseDuration)
	}
	d.storageConnections(f, st)
	return st
}

// stage reads one stage. A stage with no streams list but stream fields is
// a stage of one stream; a delay on another stage adds a delay stage.
func (d *ydec) stage(n *yaml.Node) []Stage {
	all := append(append([]string(nil), stageFields...), streamFields...)
	f := d.fields(n, "a stage", all...)
	if f == nil {
		return nil
	}
	st := Stage{Pos: d.pos(resolve(n))}
	if v, ok := f["name"]; ok {
		st.Name, _ = d.scalar(v, "stage name")
	}
	if v, ok := f["kind"]; ok { // a missing kind is Validate's to report
		k, _ := d.scalar(v, "stage kind")
		st.Kind = StageKind(strings.ToLower(k))
	}
	if st.Name == "" {
		st.Name = string(st.Kind)
	}
	d.stagePolicy(f, &st)
	if v, ok := f["delay"]; ok {
		st.Delay, _ = one(d, v, "delay", parseDuration)
	}
	d.stageStreams(n, f, &st)
	if st.Kind != KindDelay && st.Delay > 0 {
		// A pause after a stage is a delay stage of its own.
		wait := Stage{Name: st.Name + " delay", Kind: KindDelay, Delay: st.Delay, Pos: st.Pos}
		st.Delay = 0
		return []Stage{st, wait}
	}
	return []Stage{st}
}

func (d *ydec) stagePolicy(f map[string]*yaml.Node, st *Stage) {
	v, hasRatio := f["max_error_ratio"]
	if hasRatio {
		r, _ := one(d, v, "max_error_ratio", parseRatio)
		st.OnError = &FailurePolicy{MaxErrorRatio: r}
	}
	if v, ok := f["on_error"]; ok {
		switch s, _ := d.scalar(v, "on_error"); s {
		case "stop":
			if st.OnError == nil {
				st.OnError = &FailurePolicy{}
			}
		case "continue":
			if hasRatio {
				d.fail(v, "on_error: continue never stops, so max_error_ratio has no effect; use on_error: stop")
			}
			st.OnError = nil
		default:
			d.fail(v, "on_error %q: want continue (count errors) or stop", s)
		}
	}
}

func (d *ydec) stageStreams(n *yaml.Node, f map[string]*yaml.Node, st *Stage) {
	var buckets []string
	if v, ok := f["buckets"]; ok {
		buckets = d.buckets(v)
	}
	own := map[string]*yaml.Node{}
	for k, v := range f {
		if contains(streamFields, k) && k != "name" {
			own[k] = v
		}
	}
	v, hasList := f["streams"]
	switch {
	case hasList && len(own) > 0:
		for k := range own {
			d.fail(own[k], "field %q belongs in a stream: this stage lists its streams", k)
		}
	case hasList:
		for i, item := range list(v) {
			if d.items++; d.items > maxItems {
				d.fail(item, "more than %d stages and streams", maxItems)
				return
			}
			s := d.stream(item, d.fields(item, "a stream", streamFields...))
			if s.Name == "" {
				s.Name = fmt.Sprintf("%s-%d", st.Name, i+1)
			}
			st.Streams = append(st.Streams, s)
		}
	case len(own) > 0:
		s := d.stream(n, f) // the stage's own fields, already checked
		s.Name = st.Name
		st.Streams = []Stream{s}
	}
	if buckets != nil {
		if len(st.Streams) == 0 {
			st.Streams = []Stream{{Name: st.Name, Pos: st.Pos}}
		}
		for i := range st.Streams {
			st.Streams[i].Objects.Buckets = buckets
		}
	}
}

// buckets reads a bucket list: names and name-{a..b} patterns.
func (d *ydec) buckets(n *yaml.Node) []string {
	var out []string
	for _, names := range each(d, n, "buckets", expandBuckets) {
		out = append(out, names...)
	}
	if len(out) > 10000 {
		d.fail(n, "more than 10000 buckets")
		return nil
	}
	return out
}

// yamlSyntaxError turns "yaml: line 12: msg" into "file:12: msg", with a
// hint for the usual cause: a selector or bucket pattern unquoted inside
// a [flow, list] or {flow: mapping}.
func yamlSyntaxError(file string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	where := file
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, m, ok := strings.Cut(rest, ": "); ok {
			where, msg = file+":"+n, m
		}
	}
	if strings.Contains(msg, "did not find expected ',' or") {
		msg += " (inside [...] or {...}, quote values that hold commas or braces, like \"u(1,10)\" or \"bench-{1..4}\")"
	}
	return fmt.Errorf("%s: %s", where, msg)
}
