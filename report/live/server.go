package live

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"golang.org/x/sync/errgroup"

	"github.com/objbench/objbench/report/htmlreport"
	"github.com/objbench/objbench/result"
)

//go:embed page.html.tmpl
var pageText string

// server is the HTTP side's lifecycle: the server and the broadcaster run
// in g until Close.
type server struct {
	srv       *http.Server
	g         errgroup.Group
	closeOnce sync.Once
	stop      chan struct{} // closed when Close stops waiting for pages
}

// Start serves the view on ln until Close: "/" the live page, "/events"
// the event stream, "/metrics" the Prometheus exposition.
func (v *View) Start(ln net.Listener) {
	reg := prometheus.NewRegistry()
	// The process's own health beside the run's: go_goroutines, memory,
	// process_resident_memory_bytes, process_open_fds (a soak test
	// watches them stay flat: scripts/soak.sh).
	reg.MustRegister(newCollector(v), collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{EnableOpenMetrics: true}))
	mux.HandleFunc("GET /events", v.serveEvents)
	mux.HandleFunc("GET /{$}", v.servePage)
	v.web.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: log.New(io.Discard, "", 0)} // a library never prints: a broken connection is the client's business
	v.web.g.Go(func() error {
		if err := v.web.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	})
	v.web.g.Go(v.broadcast)
}

// Close ends the view: Finish (if the caller did not) sends the final
// event; pages still connected get up to Info.Linger to read the final
// numbers and disconnect; then the server shuts down. ctx bounds the
// whole.
func (v *View) Close(ctx context.Context) error {
	v.Finish("ended")
	if v.web.srv == nil { // never started
		return nil
	}
	err := errors.New("live: closed twice")
	v.web.closeOnce.Do(func() { err = v.close(ctx) })
	return err
}

func (v *View) close(ctx context.Context) error {
	select {
	case <-v.pages.ended:
	case <-ctx.Done():
	}
	lingered := make(chan struct{})
	v.web.g.Go(func() error { v.pages.lingered.Wait(); close(lingered); return nil }) // each page's wait is bounded by Linger
	select {
	case <-lingered:
	case <-ctx.Done():
	}
	close(v.web.stop)
	err := v.web.srv.Shutdown(ctx)
	if err != nil {
		err = errors.Join(err, v.web.srv.Close())
	}
	return errors.Join(err, v.web.g.Wait())
}

// drawShare bounds the time spent drawing charts for pages: after a
// drawing that took d, the next waits at least drawShare*d. Drawing
// decodes every second's histograms, so it grows with the run (about
// 25 ms for a minute of one op, 240 ms for ten minutes of two): a long
// run's charts update less often rather than take a core from the
// benchmark.
const drawShare = 5

// drawPacer spaces the broadcaster's chart drawings (see drawShare).
type drawPacer struct {
	next time.Time // no drawing before
}

func (p *drawPacer) due() bool { return !time.Now().Before(p.next) }

// draw runs fn, a drawing, and spaces the next one after it.
func (p *drawPacer) draw(fn func()) {
	t0 := time.Now()
	fn()
	p.next = t0.Add(drawShare * time.Since(t0))
}

// broadcast sends queued events to the pages, charts drawn for the
// latest, until the final event went out.
func (v *View) broadcast() error {
	var pacer drawPacer
	for {
		select {
		case <-v.pages.wake:
		case <-v.web.stop:
			return nil
		}
		v.mu.Lock()
		evs, done := v.events.take(), v.run.done
		subs := v.pages.list()
		var snap *result.Run
		if len(subs) > 0 && len(evs) > 0 && pacer.due() {
			snap = v.snapshotLocked()
		}
		v.mu.Unlock()
		if snap != nil {
			pacer.draw(func() { evs[len(evs)-1].Charts = charts(snap) })
		}
		for _, ev := range evs {
			f := frame("second", ev)
			for _, s := range subs {
				if ev.Seq > s.from && !s.closed && !trySend(s, f) {
					v.drop(s)
				}
			}
		}
		if done {
			v.sendEnd()
			return nil
		}
	}
}

// sendEnd sends the final event to every page (and keeps it for any that
// connects later) and closes their streams.
func (v *View) sendEnd() {
	v.mu.Lock()
	ev := v.eventLocked()
	ev.Seq = v.events.seq + 1
	ev.Outcome = v.run.outcome
	snap := v.snapshotLocked()
	v.mu.Unlock()
	ev.Charts = charts(snap)
	end := frame("end", ev)
	v.mu.Lock()
	defer v.mu.Unlock()
	v.pages.finish(end)
}

// drop ends a page's stream that fell behind.
func (v *View) drop(s *subscriber) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.pages.drop(s)
}

func (v *View) serveEvents(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	v.mu.Lock()
	if v.pages.end != nil { // the run is over: the final event only
		end := v.pages.end
		v.mu.Unlock()
		_, _ = w.Write(end)
		_ = rc.Flush()
		return
	}
	s := v.pages.subscribe(v.events.seq)
	first := Event{T: -1, Label: v.run.label, Step: len(v.run.steps) - 1}
	if v.events.last != nil {
		first = *v.events.last
	}
	first.OpsTotal, first.ErrorsTotal, first.Figures = v.run.totals.ops, v.run.totals.errors, v.ai.lines
	first.ElapsedS = round(time.Since(v.started).Seconds(), 3)
	snap := v.snapshotLocked()
	v.pages.lingered.Add(1)
	v.mu.Unlock()
	defer v.pages.lingered.Done()
	defer v.unsubscribe(s)
	first.Charts = charts(snap)
	if _, err := w.Write(frame("state", first)); err != nil {
		return
	}
	_ = rc.Flush()
	for {
		select {
		case f, ok := <-s.ch:
			if !ok {
				if !s.lagged {
					v.linger(r.Context())
				}
				return
			}
			if _, err := w.Write(f); err != nil {
				return
			}
			_ = rc.Flush()
		case <-r.Context().Done():
			return
		}
	}
}

// linger waits, after the final event, for the page to disconnect, at
// most Info.Linger: what it reads meanwhile is the run's final state.
func (v *View) linger(ctx context.Context) {
	t := time.NewTimer(v.info.Linger)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	case <-v.web.stop:
	}
}

func (v *View) unsubscribe(s *subscriber) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.pages.remove(s)
}

func (v *View) servePage(w http.ResponseWriter, _ *http.Request) {
	tmpl, err := template.New("page").Parse(pageText)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_ = tmpl.Execute(w, v.info)
}

// frame is one server-sent event: its type and the event as JSON (one
// line: JSON escapes the SVG's newlines).
func frame(kind string, ev Event) []byte {
	b, err := json.Marshal(ev)
	if err != nil { // an Event always marshals
		panic(err)
	}
	return fmt.Appendf(nil, "event: %s\nid: %d\ndata: %s\n\n", kind, ev.Seq, b)
}

// charts draws the time charts of the run so far; a failure to draw
// shows as a note in their place, and the stream goes on.
func charts(r *result.Run) string {
	svg, err := htmlreport.TimeCharts(r)
	if err != nil {
		return "<p class=\"missing\">" + template.HTMLEscapeString(err.Error()) + "</p>"
	}
	return string(svg)
}
