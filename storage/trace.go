package storage

import "time"

// Trace receives timing facts about one operation. The caller owns it and
// reuses it across operations (no allocation per op); a store fills it in.
type Trace struct {
	// FirstByte is when the first response byte arrived (GET), or when the
	// response to a fully sent body arrived (PUT). Zero if unknown.
	FirstByte time.Time
	// Phases is where a network store's op spent its time, for its last
	// request. A store that fills it resets it when it sends a request;
	// an op that fails before sending any leaves it as it was, so a
	// caller reusing a Trace resets it (*tr = Trace{}) before each op.
	Phases Phases
}

// Phases splits one request's time, in order. Setup phases (DNS, Connect,
// TLS) are zero when the request went on a connection opened earlier.
// When a request was sent twice (a stale pooled connection), the phases
// are the second sending's.
//
// The phases need not add up to the op's whole time: what the store does
// before asking for a connection (signing) and after the last byte
// (closing the body) belongs to no phase.
type Phases struct {
	// ConnWait is the time spent waiting for a free connection under a
	// per-host connection limit (zero without one, or when one was free).
	ConnWait time.Duration
	// DNS is the host name's resolution (zero for an IP address).
	DNS time.Duration
	// Connect is the TCP connection's establishment.
	Connect time.Duration
	// TLS is the TLS handshake (https only).
	TLS time.Duration
	// Send is writing the request, headers and body, into the connection.
	Send time.Duration
	// Wait is from the request's last byte sent to the response's first
	// byte received: the server's time plus one round trip.
	Wait time.Duration
	// Receive is from the response's first byte to its last.
	Receive time.Duration
	// NewConn says the request went on a connection opened for it.
	NewConn bool
	// TLSResumed says that connection's handshake resumed an earlier
	// TLS session (an abbreviated handshake).
	TLSResumed bool
}

// ConnStats counts a network store's connections since it was created.
type ConnStats struct {
	Requests uint64 // requests sent
	Opened   uint64 // TCP connections established
	Reused   uint64 // requests sent on a connection an earlier request used
	// ServerClosed counts connections the server ended: it answered with
	// "Connection: close" unasked, or a pooled connection was found closed
	// when a request was sent on it.
	ServerClosed  uint64
	TLSHandshakes uint64 // completed TLS handshakes, resumed ones included
	TLSResumed    uint64 // handshakes that resumed a session
}

// Plus is c and d summed, count by count (the stores of one run).
func (c ConnStats) Plus(d ConnStats) ConnStats {
	return ConnStats{Requests: c.Requests + d.Requests, Opened: c.Opened + d.Opened, Reused: c.Reused + d.Reused,
		ServerClosed: c.ServerClosed + d.ServerClosed, TLSHandshakes: c.TLSHandshakes + d.TLSHandshakes, TLSResumed: c.TLSResumed + d.TLSResumed}
}

// Minus is c less d, count by count: what happened since d, when c was
// counted after it.
func (c ConnStats) Minus(d ConnStats) ConnStats {
	return ConnStats{Requests: c.Requests - d.Requests, Opened: c.Opened - d.Opened, Reused: c.Reused - d.Reused,
		ServerClosed: c.ServerClosed - d.ServerClosed, TLSHandshakes: c.TLSHandshakes - d.TLSHandshakes, TLSResumed: c.TLSResumed - d.TLSResumed}
}

// ConnCounter is implemented by network stores that count transport connections.
type ConnCounter interface {
	// ConnStats returns how many connections were dialed and how many
	// requests were sent in total since the store was created.
	ConnStats() (dialed, requests uint64)
	// Connections returns every connection count since the store was created.
	Connections() ConnStats
}
