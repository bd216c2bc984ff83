package synth

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/objbench/objbench/workload"
)

// WriteYAML writes the workload as a YAML file objbench run accepts, with
// the notes as comments at its head.
func WriteYAML(w io.Writer, r Result) error {
	bw := bufio.NewWriter(w)
	for _, n := range r.Notes {
		for _, line := range wrap(n, 76) {
			fmt.Fprintf(bw, "# %s\n", line)
		}
	}
	fmt.Fprintf(bw, "name: %s\nstages:\n", quote(r.Spec.Name))
	for _, st := range r.Spec.Stages {
		fmt.Fprintf(bw, "  - kind: %s\n", st.Kind)
		if st.Name != string(st.Kind) {
			fmt.Fprintf(bw, "    name: %s\n", quote(st.Name))
		}
		if len(st.Streams) == 0 {
			continue
		}
		fmt.Fprintf(bw, "    streams:\n")
		for _, s := range st.Streams {
			writeStream(bw, s)
		}
	}
	return bw.Flush()
}

func writeStream(w *bufio.Writer, s workload.Stream) {
	fmt.Fprintf(w, "      - name: %s\n", quote(s.Name))
	fmt.Fprintf(w, "        concurrency: %d\n", s.ConcurrencyAt(0))
	if d := s.Bounds.Duration; d > 0 {
		fmt.Fprintf(w, "        duration: %s\n", d)
	}
	if r := s.Rate; r != nil {
		fmt.Fprintf(w, "        rate: %s/s\n", strconv.FormatFloat(r.PerSec, 'f', -1, 64))
		if r.Arrival != "" {
			fmt.Fprintf(w, "        arrival: %s\n", r.Arrival)
		}
	}
	fmt.Fprintf(w, "        objects: %s\n", objects(s.Objects))
	fmt.Fprintf(w, "        size: %s\n", quote(s.Sizes().String()))
	if s.RangeSize > 0 {
		fmt.Fprintf(w, "        range_size: %d\n", s.RangeSize)
	}
	if len(s.Mix) == 0 {
		return
	}
	fmt.Fprintf(w, "        ops:\n")
	for _, m := range s.Mix {
		if m.Objects == nil && m.SizeDist == nil {
			fmt.Fprintf(w, "          %s: %d\n", m.Op, m.Weight)
			continue
		}
		fmt.Fprintf(w, "          %s:\n            ratio: %d\n", m.Op, m.Weight)
		if m.Objects != nil {
			fmt.Fprintf(w, "            objects: %s\n", objects(*m.Objects))
		}
		if m.SizeDist != nil {
			fmt.Fprintf(w, "            size: %s\n", quote(m.SizeDist.String()))
		}
	}
}

func objects(k workload.KeySpace) string {
	s := "{prefix: " + quote(k.Prefix)
	if k.Index != nil {
		s += ", index: " + quote(k.Index.String())
	}
	return s + "}"
}

// quote writes a YAML double-quoted scalar (Go's escapes are YAML's for
// the characters these values hold).
func quote(s string) string { return strconv.Quote(s) }

// wrap cuts a note into comment lines of at most width characters.
func wrap(s string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		if line != "" && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	return append(lines, line)
}
