package workload

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"
)

// ydec walks a YAML document, collecting every problem with its line.
type ydec struct {
	file  string
	errs  []error
	warns []Warning // none yet: YAML has nothing objbench cannot honour
	items int       // stages + streams decoded, bounded against alias fan-out
}

// maxItems bounds stages and streams together: YAML aliases can repeat a
// subtree many times over without the file growing.
const maxItems = 10000

func (d *ydec) pos(n *yaml.Node) Pos { return Pos{File: d.file, Line: n.Line} }

func (d *ydec) fail(n *yaml.Node, format string, a ...any) {
	d.errs = append(d.errs, fmt.Errorf("%s: %s", d.pos(n), fmt.Sprintf(format, a...)))
}

// resolve follows aliases to the node they name.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// fields reads a mapping, reporting duplicate keys and keys not in known
// (with the nearest known key as a hint). what names the mapping in errors.
func (d *ydec) fields(n *yaml.Node, what string, known ...string) map[string]*yaml.Node {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		if n != nil {
			d.fail(n, "%s must be a mapping of fields", what)
		}
		return nil
	}
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), n.Content[i+1]
		if k == nil || k.Kind != yaml.ScalarNode {
			d.fail(n.Content[i], "%s: a field name must be a plain word", what)
			continue
		}
		if _, dup := out[k.Value]; dup {
			d.fail(k, "field %q appears twice in %s", k.Value, what)
			continue
		}
		if known != nil && !contains(known, k.Value) {
			if strings.ContainsAny(k.Value, "()") {
				d.fail(k, "%q is not a field: inside a {flow: mapping} a selector with commas must be quoted, like index: \"u(1,10)\"", k.Value)
				continue
			}
			d.fail(k, "unknown field %q in %s%s", k.Value, what, suggest(k.Value, known))
			continue
		}
		out[k.Value] = v
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

// suggest names the known field closest to a misspelt one.
func suggest(got string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if dist := editDistance(strings.ToLower(got), k); dist < bestD {
			best, bestD = k, dist
		}
	}
	if best == "" {
		sorted := append([]string(nil), known...)
		sort.Strings(sorted)
		return " (known: " + strings.Join(sorted, ", ") + ")"
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// scalar returns a scalar's text, or fails.
func (d *ydec) scalar(n *yaml.Node, what string) (string, bool) {
	n = resolve(n)
	if n == nil || n.Kind != yaml.ScalarNode {
		if n != nil {
			d.fail(n, "%s must be a single value", what)
		}
		return "", false
	}
	return n.Value, true
}

// list returns the items of a sequence, or the node itself as one item:
// wherever a list is allowed, a single value is too.
func list(n *yaml.Node) []*yaml.Node {
	n = resolve(n)
	if n != nil && n.Kind == yaml.SequenceNode {
		items := make([]*yaml.Node, len(n.Content))
		for i, c := range n.Content {
			items[i] = resolve(c)
		}
		return items
	}
	return []*yaml.Node{n}
}

// each parses every item of a value-or-list with parse, keeping the good ones.
func each[T any](d *ydec, n *yaml.Node, what string, parse func(string) (T, error)) []T {
	var out []T
	for _, item := range list(n) {
		s, ok := d.scalar(item, what)
		if !ok {
			continue
		}
		v, err := parse(s)
		if err != nil {
			d.fail(item, "%s: %v", what, err)
			continue
		}
		out = append(out, v)
	}
	return out
}

// one parses a single value (a list is an error).
func one[T any](d *ydec, n *yaml.Node, what string, parse func(string) (T, error)) (T, bool) {
	var zero T
	s, ok := d.scalar(n, what)
	if !ok {
		return zero, false
	}
	v, err := parse(s)
	if err != nil {
		d.fail(n, "%s: %v", what, err)
		return zero, false
	}
	return v, true
}

func parseInt(s string) (int64, error) {
	n, err := strconv.ParseInt(strings.ReplaceAll(strings.TrimSpace(s), "_", ""), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a whole number", s)
	}
	return n, nil
}

func parsePositive(s string) (int64, error) {
	n, err := parseInt(s)
	if err == nil && n < 1 {
		err = fmt.Errorf("%d must be at least 1", n)
	}
	return n, err
}

// parseDuration reads a Go duration ("30s", "1m30s") or a number of seconds.
func parseDuration(s string) (time.Duration, error) {
	if n, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
		if n < 0 || n > 1e9 {
			return 0, fmt.Errorf("%q seconds is out of range", s)
		}
		return time.Duration(n * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (like 30s, 5m or 1h)", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("%q is negative", s)
	}
	return d, nil
}

func parseBool(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "yes", "on":
		return true, nil
	case "false", "no", "off":
		return false, nil
	}
	return false, fmt.Errorf("%q is not true or false", s)
}

// parseRatio reads a fraction (0.05) or a percentage ("5%").
func parseRatio(s string) (float64, error) {
	t := strings.TrimSpace(s)
	div := 1.0
	if strings.HasSuffix(t, "%") {
		t, div = strings.TrimSpace(strings.TrimSuffix(t, "%")), 100
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f/div < 0 || f/div > 1 {
		return 0, fmt.Errorf("%q is not a ratio between 0 and 1 (or 0%% and 100%%)", s)
	}
	return f / div, nil
}

// expandBuckets reads "bench-{1..4}" (numbered names) or a plain name.
func expandBuckets(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	open, end := strings.IndexByte(s, '{'), strings.IndexByte(s, '}')
	if open < 0 && end < 0 {
		return []string{s}, nil
	}
	if open < 0 || end < open {
		return nil, fmt.Errorf("bad bucket pattern %q: want name-{1..4}", s)
	}
	a, b, ok := strings.Cut(s[open+1:end], "..")
	lo, err1 := strconv.ParseInt(strings.TrimSpace(a), 10, 64)
	hi, err2 := strconv.ParseInt(strings.TrimSpace(b), 10, 64)
	if !ok || err1 != nil || err2 != nil || lo < 0 || hi < lo {
		return nil, fmt.Errorf("bad bucket pattern %q: want name-{1..4}", s)
	}
	if hi-lo >= 10000 {
		return nil, errors.New("more than 10000 buckets")
	}
	out := make([]string, 0, hi-lo+1)
	for i := lo; i <= hi; i++ {
		out = append(out, s[:open]+strconv.FormatInt(i, 10)+s[end+1:])
	}
	return out, nil
}
