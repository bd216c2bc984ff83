package workload

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/objbench/objbench/units"
)

// objectCount is how many objects a prepare (or cleanup) of ks touches.
func objectCount(ks KeySpace) (n int64, exact bool) {
	nb := int64(max(len(ks.Buckets), 1))
	if ks.Index == nil {
		return nb * int64(ks.Count), true
	}
	return nb * ks.Index.Count(), true
}

func describeObjects(ks KeySpace) string {
	where := "the target's bucket"
	if len(ks.Buckets) > 0 {
		where = "bucket"
		if len(ks.Buckets) > 1 {
			where = "buckets"
		}
		where += " " + listNames(ks.Buckets)
		if ks.BucketPick != nil {
			where += " picked " + ks.BucketPick.String()
		}
	}
	prefix := PlanNamespace + ks.Prefix
	if ks.Existing {
		prefix = ks.Prefix
		where = "existing objects in " + where
	}
	switch {
	case ks.Index != nil:
		return fmt.Sprintf("%s, keys %s{%s}%s", where, prefix, ks.Index, ks.Suffix)
	case ks.Existing:
		return fmt.Sprintf("%s under %q (listed, only read)", where, prefix)
	}
	if ks.Source != "" {
		most := "every object"
		if ks.Count > 0 {
			most = fmt.Sprintf("up to %d objects", ks.Count)
		}
		return fmt.Sprintf("%s, a pool under %s: %s of %s", where, prefix, most, ks.Source)
	}
	if ks.Count == 0 {
		return fmt.Sprintf("%s, a pool under %s (filled by writes)", where, prefix)
	}
	return fmt.Sprintf("%s, a pool of %d under %s", where, ks.Count, prefix)
}

// stageBuckets are the buckets an init or dispose stage handles: its
// streams', or every bucket the workload names.
func stageBuckets(sp Spec, st Stage) []string {
	var out []string
	add := func(ks KeySpace) {
		for _, b := range ks.Buckets {
			if !slices.Contains(out, b) {
				out = append(out, b)
			}
		}
	}
	streams := st.Streams
	if len(streams) == 0 {
		for _, s := range sp.Stages {
			streams = append(streams, s.Streams...)
		}
	}
	for _, s := range streams {
		add(s.Objects)
		for _, m := range s.Mix {
			if m.Objects != nil {
				add(*m.Objects)
			}
		}
	}
	return out
}

// Buckets are the buckets an init or dispose stage st of sp creates or removes.
func (sp Spec) Buckets(st Stage) []string { return stageBuckets(sp, st) }

func listNames(names []string) string {
	switch {
	case len(names) == 0:
		return "(none: the workload names no bucket)"
	case len(names) <= 4:
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s, %s ... %s (%d)", names[0], names[1], names[len(names)-1], len(names))
}

func countString(n int64, exact bool) string {
	s := strconv.FormatInt(n, 10)
	if !exact {
		s = "~" + s
	}
	return s
}

func bytesString(b float64, exact bool) string {
	if !exact || b != float64(int64(b)) {
		return "~" + approxSize(b)
	}
	s := units.FormatSize(int64(b))
	if n, _, _ := strings.Cut(s, " "); len(n) <= 3 {
		return s
	}
	return "~" + approxSize(b)
}

func approxSize(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	return strconv.FormatFloat(b, 'f', 1, 64) + " " + units[i]
}

func percent(f float64) string {
	return strconv.FormatFloat(math.Round(f*10000)/100, 'f', -1, 64) + "%"
}

// wrapWords cuts text into lines of at most width bytes, between words.
func wrapWords(text string, width int) []string {
	var out []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			out, line = append(out, line), ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(out, line)
}
