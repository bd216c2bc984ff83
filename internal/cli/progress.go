package cli

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"golang.org/x/term"

	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/run"
	"github.com/objbench/objbench/workload"
)

// progress shows how a run is going while it runs: on a terminal one line
// redrawn each second, otherwise a plain line every plainEvery seconds, so a
// log gets a pulse without a flood. loadgen hands it each finished second of
// each stream (Config.OnSecond); it merges the streams' seconds and draws.
type progress struct {
	mu         sync.Mutex
	w          io.Writer
	tty, color bool
	width      int // the terminal's columns (0: unknown)
	plainEvery int64

	label  string
	bounds workload.Bounds // the step's longest bounds (ETA)
	grace  time.Duration   // how long in-flight ops may finish after the step's duration
	sec    int64           // second being merged (-1: none yet)
	cur    progressSecond
	total  int64 // ops of the step so far, finished seconds
	drawn  bool  // a redrawable line is on screen
}

// progressSecond is one second of a step, all streams merged.
type progressSecond struct {
	T          int64
	Ops, Bytes int64
	Errors     int64
	lat        *hdr.Histogram
}

func newProgress(w io.Writer, tty, color bool) *progress {
	return &progress{w: w, tty: tty, color: color, plainEvery: 10, sec: -1}
}

// step starts a new step: the line names it and counts its bounds.
func (p *progress) step(st workload.Stage, i int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	p.label, p.bounds, p.sec, p.total = st.Name, workload.Bounds{}, -1, 0
	p.cur = progressSecond{}
	if len(st.Streams) > 0 {
		p.label = fmt.Sprintf("%s %d/%d", st.Name, i+1, st.Steps())
	}
	for _, s := range st.Streams {
		b := s.Bounds
		p.bounds.Duration = max(p.bounds.Duration, b.Duration)
		p.bounds.Ops = max(p.bounds.Ops, b.Ops)
	}
}

// second merges one stream's finished second; when the seconds move on,
// the last one is complete and is drawn.
func (p *progress) second(_ string, s result.Second) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s.T > p.sec && p.sec >= 0 {
		p.emit()
		p.cur = progressSecond{}
	}
	if s.T > p.sec {
		p.sec = s.T
		p.cur.T = s.T
	}
	if s.T < p.sec { // a stream lagging a second behind: its numbers belong to a drawn second
		return
	}
	for _, o := range s.Ops {
		p.cur.Ops += o.Ops
		p.cur.Bytes += o.Bytes
		for _, n := range o.Errors {
			p.cur.Errors += n
		}
		if o.Latency == "" {
			continue
		}
		if h, err := result.DecodeHistogram(o.Latency); err == nil {
			if p.cur.lat == nil {
				p.cur.lat = h
			} else {
				p.cur.lat.Merge(h)
			}
		}
	}
	if p.tty { // a terminal redraws at once; a log waits for the whole second
		p.draw(p.cur)
	}
}

// done ends the progress display (the table follows).
func (p *progress) done() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
}

func (p *progress) emit() {
	p.total += p.cur.Ops
	if !p.tty && (p.cur.T+1)%p.plainEvery == 0 {
		fmt.Fprintln(p.w, "objbench: "+p.line(p.cur, p.total))
	}
}

func (p *progress) draw(s progressSecond) {
	text := p.line(s, p.total+s.Ops)
	if p.width > 0 && len(text) >= p.width { // a wrapped line could not be redrawn in place
		color := p.color
		p.color = false
		text = p.line(s, p.total+s.Ops)[:p.width-1]
		p.color = color
	}
	fmt.Fprint(p.w, "\r\x1b[K"+text)
	p.drawn = true
}

func (p *progress) clear() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

// line is the progress text for second s with total ops so far.
func (p *progress) line(s progressSecond, total int64) string {
	elapsed := time.Duration(s.T+1) * time.Second
	parts := []string{p.label, elapsed.String()}
	switch b := p.bounds; {
	case b.Duration > 0 && elapsed > b.Duration: // stopped issuing: the grace period
		parts[1] += fmt.Sprintf(": %s done, in-flight ops finishing (grace %s left)", b.Duration,
			max(p.grace-(elapsed-b.Duration), 0))
	case b.Duration > 0:
		parts[1] += "/" + b.Duration.String() + " eta " + max(b.Duration-elapsed, 0).String()
	case b.Ops > 0 && s.Ops > 0:
		left := time.Duration(max(b.Ops-total, 0)/s.Ops) * time.Second
		parts[1] += fmt.Sprintf(" %d/%d ops eta %s", total, b.Ops, left)
	}
	parts = append(parts, strconv.FormatInt(s.Ops, 10)+" ops/s",
		strconv.FormatFloat(float64(s.Bytes)/(1<<20), 'f', 1, 64)+" MiB/s")
	if s.lat != nil && s.lat.TotalCount() > 0 {
		parts = append(parts, "p99 "+strconv.FormatFloat(float64(s.lat.ValueAtQuantile(99))/1000, 'f', 2, 64)+"ms")
	}
	errs := strconv.FormatInt(s.Errors, 10) + " errors"
	if s.Errors > 0 && p.color {
		errs = "\x1b[1;31m" + errs + "\x1b[0m"
	}
	return strings.Join(append(parts, errs), "  ")
}

// withProgress hooks a progress display into a run's options, unless quiet; colours
// only on a terminal and without NO_COLOR. A nil progress does nothing.
func withProgress(env Env, quiet bool, cfg *run.Options) *progress {
	if quiet {
		return nil
	}
	tty := isTerminal(env.Stderr)
	p := newProgress(env.Stderr, tty, tty && env.Getenv("NO_COLOR") == "")
	p.grace = cmp.Or(cfg.Grace, loadgen.DefaultGrace)
	if f, ok := env.Stderr.(*os.File); ok && tty {
		p.width, _, _ = term.GetSize(int(f.Fd()))
	}
	onStep := cfg.OnStep
	cfg.OnStep = func(st workload.Stage, i int) {
		p.step(st, i)
		if onStep != nil {
			onStep(st, i)
		}
	}
	cfg.OnSecond = p.second
	return p
}
