package synth

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/objbench/objbench/metrics"
)

// notes say, for the workload file's comments, what the trace was and how
// each part of the workload was derived from it.
func (b *builder) notes() []string {
	s := b.s
	n := []string{
		fmt.Sprintf("Synthesized by objbench from %d requests, %s to %s (%s).",
			s.Records, s.First.UTC().Format(time.RFC3339), s.Last.UTC().Format(time.RFC3339), s.Rate.Span.Round(time.Millisecond)),
	}
	if s.Failed > 0 {
		n = append(n, fmt.Sprintf("%d of them (%.1f%%) failed at the source; they are replayed like the others.", s.Failed, pct(s.Failed, s.Records)))
	}
	var mix []string
	for op, c := range s.Ops {
		if c > 0 {
			mix = append(mix, fmt.Sprintf("%s %.2f%%", metrics.Op(op), pct(c, s.Records)))
		}
	}
	n = append(n, "Op mix as traced: "+strings.Join(mix, ", ")+" (whole percentages below; an op under 1% runs at 1%).")
	var sizes []string
	for op := range b.p.ops {
		if h := &b.p.ops[op].sizes; h.count > 0 {
			sizes = append(sizes, fmt.Sprintf("%s mean %s", metrics.Op(op), bytesString(h.mean())))
		}
	}
	if len(sizes) > 0 {
		n = append(n, "Sizes in power-of-two bins, each spanning the sizes seen in it: "+strings.Join(sizes, ", ")+".")
	}
	n = append(n, b.arrivalNote())
	if b.data {
		n = append(n, "Popularity of keys read before any write ("+DataPrefix+"): "+s.Reads.describe()+".")
	}
	if s.Writes.Requests > 0 {
		n = append(n, "Popularity of keys written or deleted ("+WrittenPrefix+"): "+s.Writes.describe()+".")
	}
	n = append(n, fmt.Sprintf("Read-after-write: %.1f%% of reads were of keys written earlier in the trace%s.", 100*s.RAWShare, b.rawNote()))
	how := "exact"
	if s.SampledOneIn > 1 {
		how = fmt.Sprintf("estimated from a sample of 1 in %d keys", s.SampledOneIn)
	}
	n = append(n, fmt.Sprintf("Working set: %d distinct keys, %s (%s).", s.Keys, bytesString(float64(s.Bytes)), how))
	if b.data {
		n = append(n, fmt.Sprintf("Prepare writes %d objects under %s; objbench run --scale F shrinks object counts and durations, keeping the shape.",
			s.Reads.Keys, DataPrefix))
	}
	if s.Ops[metrics.OpList] > 0 {
		n = append(n, "LIST lists the whole key space's prefix, not the prefixes the trace listed.")
	}
	if s.Ops[metrics.OpMultipart] > 0 {
		n = append(n, "Multipart uploads run whole, with the traced object sizes and objbench's part size.")
	}
	return n
}

func (b *builder) arrivalNote() string {
	r := b.s.Rate
	head := fmt.Sprintf("Arrivals: mean %.3f/s, peak %d/s (at %s), per-second dispersion %.2f (Poisson: 1)",
		r.Mean, r.Peak, r.PeakAt.Format(time.RFC3339), r.Dispersion)
	if !b.s.OpenLoop {
		return head + fmt.Sprintf("; an op log of a closed-loop run: %d workers, no rate.", b.s.Workers)
	}
	arrival := "poisson"
	if r.Dispersion < 0.5 {
		arrival = "uniform (arrivals more even than random)"
	}
	factor := ""
	if b.o.RateFactor != 1 {
		factor = fmt.Sprintf(" times %g", b.o.RateFactor)
	}
	return head + "; open loop at the mean" + factor + ", arrival " + arrival + "."
}

func (b *builder) rawNote() string {
	switch {
	case b.raw > 0:
		return "; they run as the read-after-write stream over " + WrittenPrefix + " (popularity: " + b.s.RAW.describe() + ")"
	case b.s.RAWShare > 0:
		return "; too few to replay apart"
	}
	return ""
}

// bytesString is a byte count for people: 3 significant digits, binary
// units.
func bytesString(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	prec := 2
	if b >= 100 {
		prec = 0
	} else if b >= 10 {
		prec = 1
	}
	return strconv.FormatFloat(b, 'f', prec, 64) + " " + units[i]
}

func pct(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}
