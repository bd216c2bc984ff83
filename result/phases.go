package result

import (
	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/objbench/objbench/storage"
)

// PhaseNames are the phases of a request in the order they happen, as
// OpPhases holds them and tables print them.
var PhaseNames = [NumPhases]string{"conn-wait", "dns", "connect", "tls", "send", "wait", "receive"}

// NumPhases is how many phases a request is split into.
const NumPhases = 7

// OpPhases is where one op's successful requests spent their time in one
// stream of one step (storage.Phases): an encoded HDR histogram (µs, the
// geometry of every latency histogram) per phase, in PhaseNames order.
// Setup phases (dns, connect, tls) record 0 for a request sent on a
// connection opened earlier, so their p50 says how often one was opened.
// NewConns counts the requests that went on a connection opened for
// them, Resumed those whose TLS handshake resumed a session. Kept per
// step, not per second: memory stays flat however long the step.
type OpPhases struct {
	Op       string            `json:"op"`
	Requests int64             `json:"requests"`
	Phases   [NumPhases]string `json:"phases_us"`
	NewConns int64             `json:"new_conns,omitempty"`
	Resumed  int64             `json:"tls_resumed,omitempty"`
}

// Histogram decodes phase i (nil when empty).
func (p *OpPhases) Histogram(i int) (*hdr.Histogram, error) {
	if p.Phases[i] == "" {
		return nil, nil
	}
	return DecodeHistogram(p.Phases[i])
}

// Connections counts a network store's connections during one step
// (storage.ConnStats): requests sent, TCP connections opened, requests
// sent on a connection an earlier request used, connections the server
// closed, TLS handshakes and those that resumed a session. Its fields are
// storage.ConnStats's, in order, so each converts to the other.
type Connections struct {
	Requests      uint64 `json:"requests"`
	Opened        uint64 `json:"opened"`
	Reused        uint64 `json:"reused"`
	ServerClosed  uint64 `json:"server_closed"`
	TLSHandshakes uint64 `json:"tls_handshakes,omitempty"`
	TLSResumed    uint64 `json:"tls_resumed,omitempty"`
}

// ConnectionsSince is what happened to a store's connections between
// two of its counts, c0 then c1 (storage.ConnCounter.Connections).
func ConnectionsSince(c0, c1 storage.ConnStats) *Connections {
	d := Connections(c1.Minus(c0))
	return &d
}

// Add sums c and d.
func (c *Connections) Add(d *Connections) *Connections {
	switch {
	case d == nil:
		return c
	case c == nil:
		cp := *d
		return &cp
	}
	*c = Connections(storage.ConnStats(*c).Plus(storage.ConnStats(*d)))
	return c
}

// AnsweredClass reports whether an error class is a conditional
// request's answer (412: the condition did not hold, 304: not modified):
// such ops are timed and counted in the window's rate like successes,
// and listed by class apart from failures.
func AnsweredClass(class string) bool {
	return class == storage.ClassPrecond || class == storage.ClassNotMod
}

// Answered is the second's successful ops plus those answered 412 or
// 304: the ops its ticks, latency histograms and window rate hold.
func (o *OpSecond) Answered() int64 {
	return o.OK() + o.Errors[storage.ClassPrecond] + o.Errors[storage.ClassNotMod]
}

// Failed is the op's ops that failed: errors other than the target's
// answers (412, 304, not implemented: storage.Outcome).
func (t *OpTotal) Failed() int64 {
	n := t.Ops - t.OK
	for c, k := range t.Errors {
		if storage.Outcome(c) {
			n -= k
		}
	}
	return n
}

// answered is the op's ops the target answered with a condition that did
// not hold (412) or an unchanged object (304): measured answers, not
// failures.
func (t *OpTotal) answered() int64 {
	return t.Errors[storage.ClassPrecond] + t.Errors[storage.ClassNotMod]
}
