package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/objbench/objbench/result"
)

// PhaseRow is where one op's requests spent their time in one stream of
// one step: p50 and p99 of each phase, in µs.
type PhaseRow struct {
	Stage, Stream, Op string
	Concurrency       int
	Requests          int64
	NewConns, Resumed int64
	P50, P99          [result.NumPhases]int64
}

// PhaseRows decodes a run's phase histograms, main and prepare steps, in
// table order.
func PhaseRows(r *result.Run) ([]PhaseRow, error) {
	var out []PhaseRow
	for i := range r.Steps {
		st := &r.Steps[i]
		for j := range st.Streams {
			s := &st.Streams[j]
			for k := range s.Phases {
				p := &s.Phases[k]
				row := PhaseRow{Stage: stageName(st), Stream: s.Name, Op: p.Op, Concurrency: s.Concurrency,
					Requests: p.Requests, NewConns: p.NewConns, Resumed: p.Resumed}
				for ph := range result.NumPhases {
					h, err := p.Histogram(ph)
					if err != nil {
						return nil, fmt.Errorf("%s %s: %w", row.Stage, p.Op, err)
					}
					row.P50[ph], row.P99[ph] = quantile(h, 50), quantile(h, 99)
				}
				out = append(out, row)
			}
		}
	}
	return out, nil
}

func quantile(h *hdr.Histogram, q float64) int64 {
	if h == nil || h.TotalCount() == 0 {
		return 0
	}
	return h.ValueAtQuantile(q)
}

// writePhases prints "where the time goes": per op, the p50 and p99 of
// each phase of its requests (only for runs against a network store).
func writePhases(w io.Writer, r *result.Run) {
	rows, err := PhaseRows(r)
	if err != nil {
		fmt.Fprintf(w, "where the time goes: %v\n", err)
		return
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(w, "Where the time goes (per request, p50 / p99 in ms; dns, connect and tls are 0 on a reused connection)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	multi := multiStream(r)
	cols := head(r) + "OP\tCONC\tREQS\tNEW-CONN"
	for _, n := range result.PhaseNames {
		cols += "\t" + strings.ToUpper(n)
	}
	fmt.Fprintln(tw, cols)
	for _, x := range rows {
		lead := x.Stage + "\t"
		if multi {
			lead += x.Stream + "\t"
		}
		fmt.Fprintf(tw, "%s%s\t%d\t%d\t%d", lead, x.Op, x.Concurrency, x.Requests, x.NewConns)
		for ph := range result.NumPhases {
			fmt.Fprintf(tw, "\t%s", phaseCell(x.P50[ph], x.P99[ph]))
		}
		fmt.Fprintln(tw)
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "conn-wait: waiting for a free connection (--max-conns-per-host); send: headers and body written; wait: to the first response byte; receive: to the last")
	fmt.Fprintln(w)
}

func phaseCell(p50, p99 int64) string {
	if p50 == 0 && p99 == 0 {
		return "-"
	}
	return ms0(p50) + " / " + ms0(p99)
}

// ms0 is ms, with 0 printed as 0 (a phase that took no time).
func ms0(us int64) string {
	if us == 0 {
		return "0"
	}
	return msi(us)
}

// connectionsClause states a step's connections, for its step line.
func connectionsClause(c *result.Connections) string {
	if c == nil || c.Requests == 0 {
		return ""
	}
	s := fmt.Sprintf("; %d requests: %d new connections, %d reused, %d closed by the server", c.Requests, c.Opened, c.Reused, c.ServerClosed)
	if c.TLSHandshakes > 0 {
		s += fmt.Sprintf(", %d TLS handshakes (%d resumed)", c.TLSHandshakes, c.TLSResumed)
	}
	return s
}
