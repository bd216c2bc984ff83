package live

import (
	"fmt"
	"math"
	"net/http"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"golang.org/x/sync/errgroup"

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
// methods are safe for concurrent use.
type View struct {
	info    Info
	started time.Time

	mu      sync.Mutex
	steps   []result.Step // the run so far, as the result file will hold it
	samples []result.Sample
	label   string // the current step, in words
	streams int    // the current step's streams
	shown   int64  // the current step's last second sent (-1: none)
	cur     tick
	totals  totals
	seq     int64  // events made so far
	last    *Event // the latest event (a new page starts from it)
	pending []Event
	subs    map[*subscriber]struct{}
	done    bool   // Finish was called
	outcome string // how the run ended (Finish)
	end     []byte // the final event's frame, once sent

	wake      chan struct{}
	ended     chan struct{} // closed when the final event went out
	lingered  sync.WaitGroup
	srv       *http.Server
	closeOnce sync.Once
	g         errgroup.Group
	stop      chan struct{}
}

// New returns a View of the run info names. It serves nothing until
// Start.
func New(info Info) *View {
	if info.Linger <= 0 {
		info.Linger = 3 * time.Second
	}
	return &View{info: info, started: time.Now(), totals: totals{byKey: map[seriesKey]*opTotals{}},
		subs: map[*subscriber]struct{}{}, wake: make(chan struct{}, 1), ended: make(chan struct{}),
		stop: make(chan struct{})}
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
}

// tick is the second being merged across streams.
type tick struct {
	has        bool
	t          int64
	seen       int // streams that delivered it
	ops, bytes int64
	errors     int64
	lat        *hdr.Histogram
}

// Step starts step i of stage st (loadgen.Config.OnStep).
func (v *View) Step(st workload.Stage, i int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.done {
		return
	}
	v.closeStepLocked()
	v.steps = append(v.steps, result.Step{Stage: st.Name, Kind: string(st.Kind), Step: i, Start: time.Now()})
	v.label, v.streams, v.shown = st.Name, len(st.Streams), -1
	if len(st.Streams) > 0 {
		v.label = fmt.Sprintf("%s %d/%d", st.Name, i+1, st.Steps())
		if l := st.StepLabel(i); l != "" {
			v.label += ", " + l
		}
	}
}

// StepStarted moves the current step's clock to start, second 0 of its
// records (loadgen.Config.StepStarted).
func (v *View) StepStarted(start time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if n := len(v.steps); n > 0 && !v.done {
		v.steps[n-1].Start = start
	}
}

// Sample adds one system sample (sysmon.Config.OnSample).
func (v *View) Sample(s result.Sample) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.done {
		v.samples = append(v.samples, s)
	}
}

// Second adds one finished second of one stream of the current step
// (loadgen.Config.OnSecond). When the seconds move on, the one before is
// complete and goes out as an event.
func (v *View) Second(stream string, s result.Second) {
	v.mu.Lock()
	defer v.mu.Unlock()
	n := len(v.steps)
	if v.done || n == 0 {
		return
	}
	step := &v.steps[n-1]
	j := 0
	for j < len(step.Streams) && step.Streams[j].Name != stream {
		j++
	}
	if j == len(step.Streams) {
		step.Streams = append(step.Streams, result.Stream{Name: stream})
	}
	step.Streams[j].Seconds = append(step.Streams[j].Seconds, s)
	counted := s.T > v.shown // else a stream lagging behind: its second was shown already
	if counted && v.cur.has && s.T > v.cur.t {
		v.emitLocked()
	}
	if counted && !v.cur.has {
		v.cur = tick{has: true, t: s.T}
	}
	counted = counted && s.T == v.cur.t
	for _, o := range s.Ops {
		lat := v.totals.add(n-1, step.Stage, o)
		v.totals.ops += o.Ops
		for _, e := range o.Errors {
			v.totals.errors += e
		}
		if !counted {
			continue
		}
		v.cur.ops += o.Ops
		v.cur.bytes += o.Bytes
		for _, e := range o.Errors {
			v.cur.errors += e
		}
		if lat != nil {
			if v.cur.lat == nil {
				v.cur.lat = lat
			} else {
				v.cur.lat.Merge(lat)
			}
		}
	}
	if counted {
		v.cur.seen++
		if v.cur.seen >= v.streams { // every stream has it: no need to wait for the next
			v.emitLocked()
		}
	}
}

// Finish ends the run's records: the last second goes out, then the final
// event saying how the run ended (outcome, in words).
func (v *View) Finish(outcome string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.done {
		return
	}
	v.closeStepLocked()
	v.done, v.outcome = true, outcome
	v.signal()
}

// closeStepLocked sends the current step's last second and fixes its
// length.
func (v *View) closeStepLocked() {
	if v.cur.has {
		v.emitLocked()
	}
	if n := len(v.steps); n > 0 {
		v.steps[n-1].Elapsed = time.Since(v.steps[n-1].Start)
	}
}

func (v *View) emitLocked() {
	ev := v.eventLocked()
	c := v.cur
	ev.T = c.t
	ev.Ops, ev.Errors = c.ops, c.errors
	ev.MiBs = round(float64(c.bytes)/(1<<20), 3)
	if c.lat != nil && c.lat.TotalCount() > 0 {
		ev.P50 = round(float64(c.lat.ValueAtQuantile(50))/1000, 3)
		ev.P99 = round(float64(c.lat.ValueAtQuantile(99))/1000, 3)
		ev.Max = round(float64(c.lat.Max())/1000, 3)
	}
	if n := len(v.steps); n > 0 {
		ev.RunS = round(v.steps[n-1].Start.Sub(v.steps[0].Start).Seconds()+float64(c.t+1), 3)
	}
	v.seq++
	ev.Seq = v.seq
	v.pending = append(v.pending, ev)
	v.last = &ev
	v.shown = c.t
	v.cur = tick{}
	v.signal()
}

// eventLocked is an event with what every event says: the step, the
// time, the totals.
func (v *View) eventLocked() Event {
	ev := Event{Seq: v.seq, Step: len(v.steps) - 1, Label: v.label, T: -1,
		ElapsedS: round(time.Since(v.started).Seconds(), 3), OpsTotal: v.totals.ops, ErrorsTotal: v.totals.errors}
	if v.last != nil {
		ev.RunS = v.last.RunS
	}
	return ev
}

func (v *View) signal() {
	select {
	case v.wake <- struct{}{}:
	default: // a wake-up is pending; it will find everything queued
	}
}

// snapshotLocked is the run so far as a partial result, for the charts.
// Records are only ever appended, so copies of the slices stay valid.
func (v *View) snapshotLocked() *result.Run {
	r := &result.Run{RunInfo: result.RunInfo{RunID: v.info.RunID, Started: v.started}}
	r.Steps = make([]result.Step, len(v.steps))
	copy(r.Steps, v.steps)
	for i := range r.Steps {
		st := &r.Steps[i]
		st.Streams = append([]result.Stream(nil), st.Streams...)
		for j := range st.Streams {
			st.Streams[j].Seconds = st.Streams[j].Seconds[:len(st.Streams[j].Seconds):len(st.Streams[j].Seconds)]
		}
		if i == len(r.Steps)-1 && !v.done {
			st.Elapsed = time.Since(st.Start)
		}
	}
	if len(v.samples) > 0 {
		r.System = &result.System{Timeline: result.Timeline{Samples: v.samples[:len(v.samples):len(v.samples)]}}
	}
	return r
}

func round(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}
