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
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/objbench/objbench/report/htmlreport"
	"github.com/objbench/objbench/result"
)

//go:embed page.html.tmpl
var pageText string

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
	v.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: log.New(io.Discard, "", 0)} // a library never prints: a broken connection is the client's business
	v.g.Go(func() error {
		if err := v.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	})
	v.g.Go(v.broadcast)
}

// Close ends the view: Finish (if the caller did not) sends the final
// event; pages still connected get up to Info.Linger to read the final
// numbers and disconnect; then the server shuts down. ctx bounds the
// whole.
func (v *View) Close(ctx context.Context) error {
	v.Finish("ended")
	if v.srv == nil { // never started
		return nil
	}
	err := errors.New("live: closed twice")
	v.closeOnce.Do(func() { err = v.close(ctx) })
	return err
}

func (v *View) close(ctx context.Context) error {
	select {
	case <-v.ended:
	case <-ctx.Done():
	}
	lingered := make(chan struct{})
	v.g.Go(func() error { v.lingered.Wait(); close(lingered); return nil }) // each page's wait is bounded by Linger
	select {
	case <-lingered:
	case <-ctx.Done():
	}
	close(v.stop)
	err := v.srv.Shutdown(ctx)
	if err != nil {
		err = errors.Join(err, v.srv.Close())
	}
	return errors.Join(err, v.g.Wait())
}

// subscriber is one connected page: frames queue in ch. Only the
// broadcaster sends on ch and closes it: after the final event, or when
// the page fell too far behind (lagged; its EventSource then reconnects
// and starts afresh).
type subscriber struct {
	ch     chan []byte
	from   int64 // events up to this one were in its first frame
	closed bool  // the broadcaster's own
	lagged bool  // set before ch is closed
}

// drawShare bounds the time spent drawing charts for pages: after a
// drawing that took d, the next waits at least drawShare*d. Drawing
// decodes every second's histograms, so it grows with the run (about
// 25 ms for a minute of one op, 240 ms for ten minutes of two): a long
// run's charts update less often rather than take a core from the
// benchmark.
const drawShare = 5

// broadcast sends queued events to the pages, charts drawn for the
// latest, until the final event went out.
func (v *View) broadcast() error {
	var nextDraw time.Time
	for {
		select {
		case <-v.wake:
		case <-v.stop:
			return nil
		}
		v.mu.Lock()
		evs, done := v.pending, v.done
		v.pending = nil
		subs := make([]*subscriber, 0, len(v.subs))
		for s := range v.subs {
			subs = append(subs, s)
		}
		var snap *result.Run
		if len(subs) > 0 && len(evs) > 0 && !time.Now().Before(nextDraw) {
			snap = v.snapshotLocked()
		}
		v.mu.Unlock()
		if snap != nil {
			t0 := time.Now()
			evs[len(evs)-1].Charts = charts(snap)
			nextDraw = t0.Add(drawShare * time.Since(t0))
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
	ev.Seq = v.seq + 1
	ev.Outcome = v.outcome
	snap := v.snapshotLocked()
	v.mu.Unlock()
	ev.Charts = charts(snap)
	end := frame("end", ev)
	v.mu.Lock()
	defer v.mu.Unlock()
	v.end = end
	for s := range v.subs {
		if !s.closed {
			trySend(s, end) // a page too far behind misses it, and reconnects to it
			s.closed = true
			close(s.ch)
		}
		delete(v.subs, s)
	}
	close(v.ended)
}

// trySend queues f for s without waiting; false: s has 64 frames unread.
func trySend(s *subscriber, f []byte) bool {
	select {
	case s.ch <- f:
		return true
	default:
		return false
	}
}

// drop ends a page's stream that fell behind.
func (v *View) drop(s *subscriber) {
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.subs, s)
	s.lagged, s.closed = true, true
	close(s.ch)
}

func (v *View) serveEvents(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	v.mu.Lock()
	if v.end != nil { // the run is over: the final event only
		end := v.end
		v.mu.Unlock()
		_, _ = w.Write(end)
		_ = rc.Flush()
		return
	}
	s := &subscriber{ch: make(chan []byte, 64), from: v.seq}
	v.subs[s] = struct{}{}
	first := Event{T: -1, Label: v.label, Step: len(v.steps) - 1}
	if v.last != nil {
		first = *v.last
	}
	first.OpsTotal, first.ErrorsTotal = v.totals.ops, v.totals.errors
	first.ElapsedS = round(time.Since(v.started).Seconds(), 3)
	snap := v.snapshotLocked()
	v.lingered.Add(1)
	v.mu.Unlock()
	defer v.lingered.Done()
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
	case <-v.stop:
	}
}

func (v *View) unsubscribe(s *subscriber) {
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.subs, s) // the channel is the broadcaster's to close
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
