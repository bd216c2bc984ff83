package testenv

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// SSEEvent is one server-sent event.
type SSEEvent struct {
	Type, ID string
	Data     string
}

// SSE reads a server-sent event stream over a real HTTP connection.
type SSE struct {
	resp   *http.Response
	cancel context.CancelFunc
	events chan SSEEvent
	err    chan error
}

// OpenSSE connects to url (an event stream) and starts reading it.
func OpenSSE(tb testing.TB, url string) *SSE {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		cancel()
		tb.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		tb.Fatalf("GET %s: %v", url, err)
	}
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
		resp.Body.Close()
		cancel()
		tb.Fatalf("GET %s: %s, Content-Type %q: want 200 text/event-stream", url, resp.Status, ct)
	}
	s := &SSE{resp: resp, cancel: cancel, events: make(chan SSEEvent, 1024), err: make(chan error, 1)}
	go s.read() // ends when the body does (Close or the server)
	tb.Cleanup(s.Close)
	return s
}

func (s *SSE) read() {
	r := bufio.NewReader(s.resp.Body)
	var ev SSEEvent
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			s.err <- err
			close(s.events)
			return
		}
		line = strings.TrimRight(line, "\r\n")
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "":
			if ev.Data != "" || ev.Type != "" {
				s.events <- ev
			}
			ev = SSEEvent{}
		case "event":
			ev.Type = value
		case "id":
			ev.ID = value
		case "data":
			if ev.Data != "" {
				ev.Data += "\n"
			}
			ev.Data += value
		}
	}
}

// Next returns the next event, failing the test when none comes within
// timeout or the stream ends.
func (s *SSE) Next(tb testing.TB, timeout time.Duration) SSEEvent {
	tb.Helper()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case ev, ok := <-s.events:
		if !ok {
			tb.Fatalf("the event stream ended: %v", <-s.err)
		}
		return ev
	case <-t.C:
		tb.Fatalf("no event within %v", timeout)
	}
	return SSEEvent{}
}

// Ended waits up to timeout for the stream to end (the server closed it).
func (s *SSE) Ended(timeout time.Duration) bool {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		select {
		case _, ok := <-s.events:
			if !ok {
				return true
			}
		case <-t.C:
			return false
		}
	}
}

// Close disconnects.
func (s *SSE) Close() {
	s.cancel()
	s.resp.Body.Close()
}

// Scrape GETs url's Prometheus exposition in the text format and parses
// it.
func Scrape(tb testing.TB, url string) map[string]*dto.MetricFamily {
	tb.Helper()
	body, ct := get(tb, url, string(expfmt.NewFormat(expfmt.TypeTextPlain)))
	if ct.FormatType() != expfmt.TypeTextPlain {
		tb.Fatalf("GET %s: Content-Type %q, want the text format", url, ct)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		tb.Fatalf("parse %s: %v\n%s", url, err, body)
	}
	return mfs
}

// ScrapeOpenMetrics GETs url asking for OpenMetrics and returns the body,
// failing the test unless it is OpenMetrics (content type, final # EOF).
func ScrapeOpenMetrics(tb testing.TB, url string) string {
	tb.Helper()
	body, ct := get(tb, url, string(expfmt.NewFormat(expfmt.TypeOpenMetrics)))
	if ct.FormatType() != expfmt.TypeOpenMetrics || !strings.HasSuffix(body, "# EOF\n") {
		tb.Fatalf("GET %s asking for OpenMetrics: Content-Type %q, want OpenMetrics ending in # EOF", url, ct)
	}
	return body
}

func get(tb testing.TB, url, accept string) (string, expfmt.Format) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		tb.Fatalf("GET %s: %s %v\n%s", url, resp.Status, err, body)
	}
	return string(body), expfmt.ResponseFormat(resp.Header)
}

// Metric finds the sample of family name whose labels include want
// (name=value pairs); nil when there is none.
func Metric(mfs map[string]*dto.MetricFamily, name string, want ...string) *dto.Metric {
	mf := mfs[name]
	if mf == nil {
		return nil
	}
	for _, m := range mf.Metric {
		labels := map[string]string{}
		for _, l := range m.Label {
			labels[l.GetName()] = l.GetValue()
		}
		ok := true
		for i := 0; i+1 < len(want); i += 2 {
			ok = ok && labels[want[i]] == want[i+1]
		}
		if ok {
			return m
		}
	}
	return nil
}

// Describe is a metric's labels, for messages.
func Describe(m *dto.Metric) string {
	var parts []string
	for _, l := range m.Label {
		parts = append(parts, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// DumpLiveDOM renders a live page (an http:// URL) and returns its DOM
// and the log. Chromium's virtual time stands still while the page's
// event stream is open, so the DOM is dumped when the stream ends or
// budget passes, whichever is first.
func (c *Chromium) DumpLiveDOM(ctx context.Context, url string, budget time.Duration) (string, string, error) {
	return c.run(ctx, url, "--dump-dom", fmt.Sprintf("--virtual-time-budget=%d", budget.Milliseconds()))
}

// ScreenshotLive renders a live page like DumpLiveDOM into a PNG of w×h
// pixels and returns the log.
func (c *Chromium) ScreenshotLive(ctx context.Context, url, png string, w, h int, budget time.Duration) (string, error) {
	_, log, err := c.run(ctx, url, "--screenshot="+png, fmt.Sprintf("--window-size=%d,%d", w, h), "--hide-scrollbars",
		fmt.Sprintf("--virtual-time-budget=%d", budget.Milliseconds()))
	return log, err
}
