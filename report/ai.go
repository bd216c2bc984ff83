package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/sysmon"
)

// hasAI reports whether the run holds an AI profile's figures.
func hasAI(r *result.Run) bool {
	for i := range r.Steps {
		s := &r.Steps[i]
		if len(s.Training) > 0 || s.Checkpoint != nil || s.Lake != nil {
			return true
		}
	}
	return false
}

// AIWarnings are what could make an AI run's figures look right and be
// wrong, for the first lines of a report: a data set the client could
// cache, a checkpoint shrunk for a trial, reads that failed, a payload
// generator that may have set the pace.
func AIWarnings(r *result.Run) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for i := range r.Steps {
		s := &r.Steps[i]
		for j := range s.Training {
			t := &s.Training[j]
			label := stepLabel(s)
			if len(s.Training) > 1 {
				label = fmt.Sprintf("find-max round %d (%d accelerators)", j+1, t.Accelerators)
			}
			if mem := r.Machine.MemoryBytes; mem > 0 && t.DatasetBytes < 5*int64(mem) {
				add(fmt.Sprintf("the data set (%s) is smaller than 5x this client's memory (%s): MLPerf Storage requires at least that, "+
					"so that reads cannot come from the client's caches", decimal(float64(t.DatasetBytes)), decimal(float64(mem))))
			}
			if t.Late() {
				add(fmt.Sprintf("%s: the emulated computation took %v a step where %v was asked: the client fell behind its timers "+
					"(short of CPU), and AU, which counts that time as computation, overstates what the store did: at the asked "+
					"computation AU is %.1f%%, which decides whether the target was met", label, t.ComputePerStep().Round(10*time.Microsecond),
					t.Compute, 100*t.AUAsked()))
			}
			if n := t.Errors(); n > 0 {
				add(fmt.Sprintf("%s: %d sample reads failed: the accelerators computed on batches that were not all read", label, n))
			}
		}
		if c := s.Checkpoint; c != nil {
			if c.Scale != 1 {
				add(fmt.Sprintf("the checkpoints are scaled by %g: %s each instead of the model's %s", c.Scale,
					decimal(float64(c.Bytes)), decimal(float64(c.Bytes)/c.Scale)))
			}
			if n := c.Errors(); n > 0 {
				add(fmt.Sprintf("%s %d: %d objects failed", c.Op, c.Index, n))
			}
			if cores := generatorCores(c); r.Machine.CPUs > 0 && cores >= 0.5*float64(r.Machine.CPUs) {
				add(fmt.Sprintf("save %d: at %s/s the payload generator alone needs %.1f of this client's %d cores: it may have set the pace, not the store",
					c.Index, decimal(c.BytesPerSec()), cores, r.Machine.CPUs))
			}
		}
		if l := s.Lake; l != nil && l.Errors > 0 {
			add(fmt.Sprintf("%s: %d ranged reads failed", stepLabel(s), l.Errors))
		}
	}
	return out
}

// WriteAIWarnings prints AIWarnings, each a line "warning: ...".
func WriteAIWarnings(w io.Writer, r *result.Run) {
	for _, warn := range AIWarnings(r) {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
}

// generatorCores is how many cores the payload generator needed for a
// save's rate (0 when not measured, or for a load).
func generatorCores(c *result.Checkpoint) float64 {
	if c.GeneratorRate <= 0 {
		return 0
	}
	return c.BytesPerSec() / c.GeneratorRate
}

// decimal is a byte count in 1000-based units, as MLPerf Storage states
// data set and checkpoint sizes.
func decimal(b float64) string {
	for _, u := range []string{"B", "kB", "MB", "GB", "TB", "PB"} {
		if b < 1000 || u == "PB" {
			if u == "B" {
				return fmt.Sprintf("%.0f B", b)
			}
			return fmt.Sprintf("%.2f %s", b, u)
		}
		b /= 1000
	}
	return ""
}

// WriteAI prints an AI run's own figures: training epochs (AU, samples
// and bytes a second, batch waits) and what the store fed, a find-max
// search's curve, checkpoints' durations and ranks, lakehouse scans. It
// prints nothing for other runs.
func WriteAI(w io.Writer, r *result.Run) error {
	if !hasAI(r) {
		return nil
	}
	if err := writeTraining(w, r); err != nil {
		return err
	}
	if err := writeSearch(w, r); err != nil {
		return err
	}
	writeCheckpoints(w, r)
	return writeLake(w, r)
}

// epochSteps are the steps of plain epochs (one Training each).
func epochSteps(r *result.Run) []*result.Step {
	var out []*result.Step
	for i := range r.Steps {
		if s := &r.Steps[i]; len(s.Training) == 1 && s.Training[0].Epoch > 0 {
			out = append(out, s)
		}
	}
	return out
}

func writeTraining(w io.Writer, r *result.Run) error {
	steps := epochSteps(r)
	if len(steps) == 0 {
		return nil
	}
	t0 := &steps[0].Training[0]
	fmt.Fprintf(w, "\nTraining: %s on %s x%d, batches of %d, %d read threads, %d batches ahead, %v of computation a batch; AU target %.0f%%\n",
		t0.Model, t0.Accelerator, t0.Accelerators, t0.BatchSize, t0.ReadThreads, t0.Prefetch, t0.Compute, 100*t0.AUTarget)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "EPOCH\t"+trainingHead)
	var sum float64
	met := true
	for _, s := range steps {
		t := &s.Training[0]
		if err := trainingRow(tw, fmt.Sprint(t.Epoch), t); err != nil {
			return fmt.Errorf("%s: %w", s.Stage, err)
		}
		sum += t.AUJudged()
		met = met && t.Met()
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	mean := sum / float64(len(steps))
	if met && mean >= t0.AUTarget {
		fmt.Fprintf(w, "AU %.1f%% >= %.0f%% in every epoch: this store fed %d %s (%s)%s\n", 100*mean, 100*t0.AUTarget, t0.Accelerators,
			strings.ToUpper(t0.Accelerator), t0.Model, clients(r))
		return nil
	}
	fmt.Fprintf(w, "AU %.1f%% (mean) missed %.0f%% in some epoch: this store did not feed %d %s (%s)%s; short: %s\n", 100*mean, 100*t0.AUTarget,
		t0.Accelerators, strings.ToUpper(t0.Accelerator), t0.Model, clients(r), shortSide(r, steps))
	return nil
}

// clients says from where: this client, or the workers of a merged run.
func clients(r *result.Run) string {
	if r.Workers != nil && r.Workers.Size > 1 {
		return fmt.Sprintf(" from %d clients", r.Workers.Size)
	}
	return " from this client"
}

// trainingHead heads a row of trainingRow: COMPUTE is the computation a
// step took (the asked time, and the timers' lateness).
const trainingHead = "ACCELERATORS\tAU\tAU MIN\tAU MAX\tCOMPUTE ms\tSAMPLES/s\tMB/s\tWAIT P50 ms\tWAIT P99 ms\tSTEPS\tERRORS\t"

func trainingRow(tw io.Writer, label string, t *result.Training) error {
	wait, err := t.WaitPercentiles()
	if err != nil {
		return err
	}
	lo, hi := t.AURange()
	steps := 0
	if len(t.Loaders) > 0 {
		steps = t.Loaders[0].Steps
	}
	fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t%.1f%%\t%.1f%%\t%.2f\t%.1f\t%.1f\t%s\t%s\t%d\t%d\t\n", label, t.Accelerators, 100*t.AU(), 100*lo, 100*hi,
		float64(t.ComputePerStep())/1e6, t.SamplesPerSec(), t.BytesPerSec()/1e6, waitMs(wait, wait.P50), waitMs(wait, wait.P99), steps, t.Errors())
	return nil
}

// waitMs is a batch wait in ms ("-": no step was measured); waits are
// often 0 (the batch was there), which the latency tables print as "-".
func waitMs(p result.Percentiles, us int64) string {
	if p.Count == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", float64(us)/1000)
}

// shortSide says which side kept the AU down, from the machine's
// verdict on the steps that missed: the client's CPU, the network, or
// (no resource of the client saturated) the store.
func shortSide(r *result.Run, steps []*result.Step) string {
	var sides []string
	for _, s := range steps {
		if t := &s.Training[0]; !t.Met() && t.Late() {
			sides = append(sides, "the client's CPU (its computation timers ran late)")
			break
		}
	}
	var verdicts []result.StepVerdict
	if r.System != nil {
		verdicts = r.System.Verdicts
	}
	for _, v := range verdicts {
		if v.Step >= len(r.Steps) {
			continue
		}
		s := &r.Steps[v.Step]
		if len(s.Training) == 0 || s.Training[len(s.Training)-1].Met() {
			continue
		}
		for _, f := range v.Findings {
			side := ""
			switch f.Kind {
			case sysmon.KindClientBound, sysmon.KindCPUShared, sysmon.KindCPUContended, sysmon.KindSteal, sysmon.KindSwapping:
				side = "the client's CPU (" + f.Kind + ")"
			case sysmon.KindNetBound:
				side = "the network"
			case sysmon.KindTargetBound:
				side = "the store (no resource of this client saturated: its latency or throughput)"
			}
			if side != "" && !contains(sides, side) {
				sides = append(sides, side)
			}
		}
	}
	if len(sides) == 0 {
		return "unknown (the machine's verdict judged no step that missed)"
	}
	return strings.Join(sides, "; ")
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func writeSearch(w io.Writer, r *result.Run) error {
	for i := range r.Steps {
		s := &r.Steps[i]
		if len(s.Training) == 0 || s.Training[0].Epoch != 0 {
			continue
		}
		t0 := &s.Training[0]
		fmt.Fprintf(w, "\nFind-max: %s on %s, rounds of %d steps an accelerator; AU target %.0f%%\n", t0.Model, t0.Accelerator,
			roundSteps(t0), 100*t0.AUTarget)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "ROUND\t"+trainingHead)
		for j := range s.Training {
			if err := trainingRow(tw, fmt.Sprint(j+1), &s.Training[j]); err != nil {
				return err
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		most, bounded := result.MostFed(s.Training)
		acc := strings.ToUpper(t0.Accelerator)
		switch {
		case most == 0:
			fmt.Fprintf(w, "this store feeds no %s (%s)%s: even %d missed AU %.0f%%\n", acc, t0.Model, clients(r), minCount(s.Training), 100*t0.AUTarget)
		case bounded:
			fmt.Fprintf(w, "this store feeds %d %s (%s)%s\n", most, acc, t0.Model, clients(r))
		default:
			fmt.Fprintf(w, "this store feeds at least %d %s (%s)%s: the search stopped at its maximum without missing AU %.0f%%\n",
				most, acc, t0.Model, clients(r), 100*t0.AUTarget)
		}
	}
	return nil
}

func roundSteps(t *result.Training) int {
	if len(t.Loaders) == 0 {
		return 0
	}
	return t.Loaders[0].Steps
}

func minCount(ts []result.Training) int {
	m := 0
	for i, t := range ts {
		if i == 0 || t.Accelerators < m {
			m = t.Accelerators
		}
	}
	return m
}
