package live

import (
	"math"
	"sync"
	"time"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/workload"
)

// Info names the run a View shows.
type Info struct {
	RunID  string
	Target string // where the run goes, in words
	// Linger bounds how long Close keeps serving after the final event
	// while live pages are still connected (they may read the final
	// numbers, /metrics included, then disconnect). 0: 3 s.
	Linger time.Duration
}

// View is a run's records so far, served over HTTP once started. Its
// methods are safe for concurrent use. Its parts each do one job: run
// holds the records, events turns them into one event per second, pages
// is what the broadcaster sends to the connected pages, and web is the HTTP
// server's lifecycle.
type View struct {
	info    Info
	started time.Time

	mu     sync.Mutex // guards run, events, pages and ai
	run    records
	events eventQueue
	pages  pages
	ai     aiFigures

	web server
}

// New returns a View of the run info names. It serves nothing until
// Start.
func New(info Info) *View {
	if info.Linger <= 0 {
		info.Linger = 3 * time.Second
	}
	return &View{info: info, started: time.Now(), run: records{totals: totals{byKey: map[seriesKey]*opTotals{}}},
		pages: pages{subs: map[*subscriber]struct{}{}, wake: make(chan struct{}, 1), ended: make(chan struct{})},
		web:   server{stop: make(chan struct{})}}
}

// Event is what the page shows for one second of a step, all streams
// merged: one "second" event per second record. The "state" event a new
// page gets first and the final "end" event have the same shape.
type Event struct {
	Seq   int64  `json:"seq"`
	Step  int    `json:"step"`  // index of the step in the result file
	Label string `json:"label"` // the step, in words
	// T is the second within the step (-1: none yet); RunS is when it
	// ended, in seconds since the first step began (the charts' x axis).
	T        int64   `json:"t"`
	RunS     float64 `json:"run_s"`
	ElapsedS float64 `json:"elapsed_s"` // since the run began
	Ops      int64   `json:"ops"`       // ops that ended in the second, failed ones included
	MiBs     float64 `json:"mib_s"`
	Errors   int64   `json:"errors"`
	P50      float64 `json:"p50_ms"`
	P99      float64 `json:"p99_ms"`
	Max      float64 `json:"max_ms"`
	// The run so far.
	OpsTotal    int64  `json:"ops_total"`
	ErrorsTotal int64  `json:"errors_total"`
	Outcome     string `json:"outcome,omitempty"` // end event: how the run ended
	// Charts is the time charts as one SVG element; on "second" events only
	// when a page is connected to see them.
	Charts string `json:"charts,omitempty"`
	// Figures are the AI figures of the steps done so far, a line each
	// (an epoch's AU, a checkpoint's duration: report.AIStepLine).
	Figures []string `json:"figures,omitempty"`
}

// Step starts step i of stage st (loadgen.Config.OnStep).
func (v *View) Step(st workload.Stage, i int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.run.done {
		return
	}
	v.closeStepLocked()
	v.run.startStep(st, i)
	v.events.shown = -1
}

// StepStarted moves the current step's clock to start, second 0 of its
// records (loadgen.Config.StepStarted).
func (v *View) StepStarted(start time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if n := len(v.run.steps); n > 0 && !v.run.done {
		v.run.steps[n-1].Start = start
	}
}

// Sample adds one system sample (sysmon.Config.OnSample).
func (v *View) Sample(s result.Sample) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.run.done {
		v.run.samples = append(v.run.samples, s)
	}
}

// Second adds one finished second of one stream of the current step
// (loadgen.Config.OnSecond). When the seconds move on, the one before is
// complete and goes out as an event.
func (v *View) Second(stream string, s result.Second) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.run.done || len(v.run.steps) == 0 {
		return
	}
	step, stage := v.run.addSecond(stream, s)
	q := &v.events
	counted := s.T > q.shown // else a stream lagging behind: its second was shown already
	if counted && q.cur.has && s.T > q.cur.t {
		v.emitLocked()
	}
	if counted && !q.cur.has {
		q.cur = tick{has: true, t: s.T}
	}
	counted = counted && s.T == q.cur.t
	for _, o := range s.Ops {
		lat := v.run.totals.add(step, stage, o)
		if counted {
			q.cur.add(o, lat)
		}
	}
	if counted {
		q.cur.seen++
		if q.cur.seen >= v.run.streams { // every stream has it: no need to wait for the next
			v.emitLocked()
		}
	}
}

// Finish ends the run's records: the last second goes out, then the final
// event saying how the run ended (outcome, in words).
func (v *View) Finish(outcome string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.run.done {
		return
	}
	v.closeStepLocked()
	v.run.done, v.run.outcome = true, outcome
	v.pages.signal()
}

// closeStepLocked sends the current step's last second and fixes its
// length.
func (v *View) closeStepLocked() {
	if v.events.cur.has {
		v.emitLocked()
	}
	v.run.closeStep()
}

// emitLocked queues the second being merged as an event and wakes the
// broadcaster.
func (v *View) emitLocked() {
	ev := v.eventLocked()
	c := v.events.cur
	ev.T = c.t
	ev.Ops, ev.Errors = c.ops, c.errors
	ev.MiBs = round(float64(c.bytes)/(1<<20), 3)
	if c.lat != nil && c.lat.TotalCount() > 0 {
		ev.P50 = round(float64(c.lat.ValueAtQuantile(50))/1000, 3)
		ev.P99 = round(float64(c.lat.ValueAtQuantile(99))/1000, 3)
		ev.Max = round(float64(c.lat.Max())/1000, 3)
	}
	if rs, ok := v.run.runS(c.t); ok {
		ev.RunS = rs
	}
	v.events.push(ev)
	v.pages.signal()
}

// eventLocked is an event with what every event says: the step, the
// time, the totals.
func (v *View) eventLocked() Event {
	ev := Event{Seq: v.events.seq, Step: len(v.run.steps) - 1, Label: v.run.label, T: -1,
		ElapsedS: round(time.Since(v.started).Seconds(), 3), OpsTotal: v.run.totals.ops, ErrorsTotal: v.run.totals.errors,
		Figures: v.ai.lines}
	if v.events.last != nil {
		ev.RunS = v.events.last.RunS
	}
	return ev
}

// snapshotLocked is the run so far as a partial result, for the charts.
func (v *View) snapshotLocked() *result.Run {
	return v.run.snapshot(v.info.RunID, v.started)
}

func round(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}
