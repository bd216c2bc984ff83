package report

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
)

// row is one op of one stream in one step.
type row struct {
	step   *result.Step
	stream *result.Stream
	t      result.OpTotal
	multi  bool // the run has steps of several streams: tables name the stream
}

func rows(r *result.Run) []row {
	var out []row
	multi := multiStream(r)
	for i := range r.Steps {
		st := &r.Steps[i]
		for j := range st.Streams {
			for _, t := range st.Streams[j].Totals {
				out = append(out, row{st, &st.Streams[j], t, multi})
			}
		}
	}
	return out
}

// lead is the row's first cells: its stage and, in a run of several
// streams, its stream.
func (x row) lead() string {
	if x.multi {
		return stageName(x.step) + "\t" + x.stream.Name + "\t"
	}
	return stageName(x.step) + "\t"
}

// head is the first columns' header for rows of r.
func head(r *result.Run) string {
	if multiStream(r) {
		return "STAGE\tSTREAM\t"
	}
	return "STAGE\t"
}

// where names the row in a sentence: "main stream rw#2 PUT conc 4".
func (x row) where() string {
	s := stageName(x.step) + " "
	if x.multi {
		s += "stream " + x.stream.Name + " "
	}
	return fmt.Sprintf("%s%s conc %d", s, x.t.Op, x.stream.Concurrency)
}

func multiStream(r *result.Run) bool {
	for _, s := range r.Steps {
		if len(s.Streams) > 1 {
			return true
		}
	}
	return false
}

// WriteTable prints the latency/throughput table, a TTFB table for ops that
// have one, errors by class, and one line per step on the client's cost.
func WriteTable(w io.Writer, r *result.Run) error {
	WriteAIWarnings(w, r)
	if err := WriteRates(w, r); err != nil {
		return err
	}
	if err := WriteAI(w, r); err != nil {
		return err
	}
	if hasTransfers(r) {
		fmt.Fprintln(w, "\nTransfers: whole objects over the wall time (the table above: their data requests, PART = one request)")
		if err := WriteTransfers(w, r); err != nil {
			return err
		}
	}
	all := rows(r)
	writeWorkers(w, r)
	writeTTFB(w, head(r), all)
	writePhases(w, r)
	writeResponse(w, head(r), all)
	writeErrors(w, all)
	writeCanceled(w, r, all)
	writeReplay(w, r)
	fmt.Fprintln(w, "latencies in ms; OPS/S and THROUGHPUT: successful ops, and their bytes, that ended in the step's window, over its length (each step's line states it)")
	if r.Target.Embedded {
		fmt.Fprintln(w, "CPU is the whole process's: it includes the embedded server's work")
	}
	for _, s := range r.Steps {
		writeStepLine(w, &s)
	}
	writeVerdict(w, r)
	if r.Saturation != nil {
		fmt.Fprintln(w, "\nThe knee search (objbench saturate): each step's point, and the knee")
		WriteSaturation(w, r)
	}
	return nil
}

// WriteRates prints only the latency/throughput table (--quiet).
func WriteRates(w io.Writer, r *result.Run) error {
	writeWarnings(w, r) // before any figure: a partial or failed run
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	streams := multiStream(r)
	head := "STAGE\t"
	if streams {
		head += "STREAM\t"
	}
	fmt.Fprintln(tw, head+"OP\tCONC\tOPS/S\tTHROUGHPUT\tAVG\tP25\tP50\tP75\tP90\tP99\tP99.9\tMAX\tERR")
	short := false
	line := func(step *result.Step, stream string, t result.OpTotal, conc int) {
		fmt.Fprint(tw, stageName(step)+"\t")
		if streams {
			fmt.Fprint(tw, stream+"\t")
		}
		p := t.Latency
		ops, thr := rate(t.OpsPerSec), Bytes(t.BytesPerSec)+"/s"
		if TooShortToRate(t) {
			ops, thr, short = "too short", fmt.Sprintf("to rate (%d ops)", t.OK), true
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\n", t.Op, conc,
			ops, thr, ms(p.Avg), msi(p.P25), msi(p.P50), msi(p.P75),
			msi(p.P90), msi(p.P99), msi(p.P999), msi(p.Max), Failures(t))
	}
	for i := range r.Steps {
		st := &r.Steps[i]
		for j := range st.Streams {
			for _, t := range st.Streams[j].Totals {
				line(st, st.Streams[j].Name, t, st.Streams[j].Concurrency)
			}
		}
		if t, conc, ok := stepTotal(st); ok { // the step's streams and ops together
			line(st, "*", t, conc)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if short {
		fmt.Fprintln(w, TooShortNote)
	}
	return nil
}

// TooShortNote explains a row without a rate ("too short to rate").
const TooShortNote = "too short to rate: no successful op ended inside the step's window (from the last worker's first op " +
	"to the first worker's last), so it has no rate; its ops and latencies still count (more ops or a longer --duration give one)"

// TooShortToRate is whether an op's rates mean nothing: it succeeded, but
// not one whole successful op ended inside the window the rates are taken
// over (a step of a couple of ops per worker), so they read 0 or a
// fraction of an op. (A file without window counts keeps its rates.)
func TooShortToRate(t result.OpTotal) bool {
	return t.OK > 0 && t.WindowOps < 1 && (t.WindowOps > 0 || t.OpsPerSec == 0)
}

func writeTTFB(w io.Writer, head string, all []row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	any := false
	for _, x := range all {
		if x.t.TTFB == nil || x.t.TTFB.Count == 0 {
			continue
		}
		if !any {
			fmt.Fprintln(w, "\nTime to first byte (GET: first response byte; PUT: response after the body was sent)")
			fmt.Fprintln(tw, head+"OP\tCONC\tAVG\tP25\tP50\tP75\tP90\tP99\tP99.9\tMAX")
			any = true
		}
		p := x.t.TTFB
		fmt.Fprintf(tw, "%s%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", x.lead(), x.t.Op, x.stream.Concurrency,
			ms(p.Avg), msi(p.P25), msi(p.P50), msi(p.P75), msi(p.P90), msi(p.P99), msi(p.P999), msi(p.Max))
	}
	_ = tw.Flush()
	if any {
		fmt.Fprintln(w)
	}
}

// writeResponse prints, for open-loop (--rate) rows, the latency from each
// op's intended start, the workers the schedule needed, and the slots
// dropped because every worker was busy.
func writeResponse(w io.Writer, head string, all []row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	any := false
	var drops []string
	for _, x := range all {
		p := x.t.Response
		if p == nil && x.t.Dropped == 0 {
			continue
		}
		if p == nil {
			p = &result.Percentiles{}
		}
		if !any {
			fmt.Fprintln(w, "\nResponse time (from intended start: queueing included; the table above is service time from the actual send)")
			fmt.Fprintln(tw, head+"OP\tWORKERS\tISSUED\tDROPPED\tAVG\tP25\tP50\tP75\tP90\tP99\tP99.9\tMAX")
			any = true
		}
		fmt.Fprintf(tw, "%s%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", x.lead(), x.t.Op, workers(x.stream),
			x.t.Ops, x.t.Dropped, ms(p.Avg), msi(p.P25), msi(p.P50), msi(p.P75), msi(p.P90), msi(p.P99), msi(p.P999), msi(p.Max))
		if x.t.Dropped > 0 {
			drops = append(drops, fmt.Sprintf("%s: %d of %d due ops dropped (all %d workers busy): the percentiles exclude them",
				x.where(), x.t.Dropped, x.t.Ops+x.t.Dropped, max(x.stream.MaxWorkers, x.stream.Concurrency)))
		}
	}
	_ = tw.Flush()
	for _, d := range drops {
		fmt.Fprintln(w, d)
	}
	if len(drops) > 0 {
		fmt.Fprintln(w, "dropped slots were not issued late; raise --max-workers (max_workers), or the store is saturated")
	}
	if any {
		fmt.Fprintln(w, "WORKERS: started at once -> the most the schedule used / the most it could have (--max-workers)")
		fmt.Fprintln(w)
	}
}

// workers says how an open-loop stream's workers grew: "8->412/2000".
func workers(s *result.Stream) string {
	if s.MaxWorkers == 0 { // a result from before workers grew
		return strconv.Itoa(s.Concurrency)
	}
	return fmt.Sprintf("%d->%d/%d", s.Concurrency, max(s.PeakWorkers, s.Concurrency), s.MaxWorkers)
}

func writeErrors(w io.Writer, all []row) {
	for _, x := range all {
		writeOutcomes(w, x)
		if Failures(x.t) == 0 {
			continue
		}
		classes := make([]string, 0, len(x.t.Errors))
		for c, n := range x.t.Errors {
			if !storage.Outcome(c) {
				classes = append(classes, fmt.Sprintf("%s=%d", c, n))
			}
		}
		sort.Strings(classes)
		fmt.Fprintf(w, "errors %s: %s\n", x.where(), strings.Join(classes, " "))
	}
}

// writeCanceled explains canceled ops: in a run that was not interrupted,
// they were still in flight when the grace period after their step
// stopped issuing ran out.
func writeCanceled(w io.Writer, r *result.Run, all []row) {
	var n int64
	for _, x := range all {
		n += x.t.Errors[storage.ClassCanceled]
	}
	if n == 0 || r.Interrupted {
		return
	}
	fmt.Fprintf(w, "canceled: %d ops were still in flight when the grace period after their step stopped issuing ran out "+
		"(--grace, 10s unless set): ops this large need longer; raise --grace, or end the step by --ops instead of --duration\n", n)
}

func writeStepLine(w io.Writer, s *result.Step) {
	if len(s.Streams) == 0 { // init, dispose, delay, a cleanup with nothing to do
		writeStepNotes(w, s)
		return
	}
	defer writeStepNotes(w, s)
	var ops int64
	var stopped []string
	conc := 0
	for _, st := range s.Streams {
		conc += st.Concurrency
		stopped = append(stopped, st.StoppedBy)
		for _, t := range st.Totals {
			ops += t.Ops
		}
	}
	cpu := (s.CPUUser + s.CPUSys).Seconds()
	line := fmt.Sprintf("%s (conc %d): %d ops in %.2f s, stopped by %s", s.Stage, conc, ops, s.Elapsed.Seconds(), strings.Join(stopped, ","))
	if len(s.Streams) == 1 {
		line += "; " + windowClause(s, &s.Streams[0])
	}
	line += fmt.Sprintf("; client CPU %.2f s", cpu)
	if ops > 0 {
		line += fmt.Sprintf(" (%.3f s per 1,000 ops)", cpu/float64(ops)*1000)
	}
	if c := connectionsClause(s.Connections); c != "" {
		line += c
	} else if s.Requests > 0 {
		line += fmt.Sprintf("; %d new connections for %d requests", s.ConnsDialed, s.Requests)
	}
	fmt.Fprintln(w, line)
	if len(s.Streams) > 1 {
		for i := range s.Streams {
			fmt.Fprintf(w, "  stream %s: %s\n", s.Streams[i].Name, windowClause(s, &s.Streams[i]))
		}
	}
	for i := range s.Streams {
		writeOutages(w, s, &s.Streams[i])
	}
}

// writeOutages states the periods a stream could not reach its store.
func writeOutages(w io.Writer, s *result.Step, st *result.Stream) {
	who := ""
	if len(s.Streams) > 1 {
		who = "stream " + st.Name + ": "
	}
	for _, o := range st.Outages {
		until := fmt.Sprintf("%.2f s", o.End)
		if o.Open {
			until = fmt.Sprintf("the end of the step (last failure at %.2f s)", o.End)
		}
		fmt.Fprintf(w, "  %sstore unreachable from %.2f s to %s: %.2f s unavailable, %d ops lost (workers backed off, 10 ms doubling to 1 s)\n",
			who, o.Start, until, o.Duration(), o.OpsLost)
	}
}

// windowClause states a stream's window as the rates use it: its length,
// the successful ops and bytes in it, and what was left out of it.
func windowClause(s *result.Step, st *result.Stream) string {
	var ops, bytes float64
	for _, t := range st.Totals {
		ops, bytes = ops+t.WindowOps, bytes+t.WindowBytes
	}
	c := fmt.Sprintf("rates over %.3f s holding %.0f ops and %s (ramp-up %.3f s", st.Window.Duration(), ops, bytes4(bytes), st.Window.Start)
	if s.Synced > 0 {
		return c + fmt.Sprintf(" left out; the window ends when the file system sync returned, which took %.3f s)", s.Synced.Seconds())
	}
	return c + fmt.Sprintf(", ramp-down %.3f s left out)", max(s.Elapsed.Seconds()-st.Window.End, 0))
}

// Bytes formats a byte count with binary units ("12.5 MiB").
func Bytes(b float64) string {
	v, unit := binaryUnit(b)
	if unit == "B" {
		return strconv.FormatFloat(v, 'f', 0, 64) + " B"
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + " " + unit
}

// binaryUnit scales b to the largest binary unit under which it is >= 1.
func binaryUnit(b float64) (float64, string) {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	return b, units[i]
}

// bytes4 formats a byte count with binary units to four significant
// digits ("1.612 GiB"), precise enough to check a rate against.
func bytes4(b float64) string {
	v, unit := binaryUnit(b)
	if unit == "B" {
		return strconv.FormatFloat(v, 'f', 0, 64) + " B"
	}
	digits := 3
	for x := v; x >= 10 && digits > 0; x /= 10 {
		digits--
	}
	return strconv.FormatFloat(v, 'f', digits, 64) + " " + unit
}

func rate(v float64) string {
	if v >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// ms formats microseconds as milliseconds with three significant digits.
func ms(us float64) string {
	v := us / 1000
	switch {
	case us == 0:
		return "-"
	case v < 1:
		return strconv.FormatFloat(v, 'f', 3, 64)
	case v < 10:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case v < 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

func msi(us int64) string { return ms(float64(us)) }
