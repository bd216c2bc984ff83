package s3_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/objbench/objbench/storage/s3"
)

// delays are what the phase server holds each step of a request.
type delays struct {
	dns, handshake, read, firstByte, body time.Duration
}

// serverSide is what the phase server saw of one request, on its clock
// (the test's: same process).
type serverSide struct {
	hello, handshakeDone                  time.Time // TLS only
	headRead, bodyRead, firstOut, lastOut time.Time
}

// phaseServer is an HTTP/1.1 server on a raw listener whose every step
// takes a known time: the TLS handshake (held after the ClientHello), the
// request body (read only after a delay), the response's first byte, and
// the second half of the response body.
type phaseServer struct {
	ln      net.Listener
	d       delays
	tls     *tls.Config
	size    int // GET body bytes
	mu      sync.Mutex
	seen    []serverSide
	changed chan struct{} // closed and replaced when seen grows
	conns   sync.WaitGroup
}

func startPhaseServer(t *testing.T, d delays, tc *tls.Config, size int) *phaseServer {
	t.Helper()
	// A small receive buffer, so a large body waits for the server to
	// read it rather than filling the kernel's buffers.
	lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) { serr = s3.SetSocketBuffer(fd, syscall.SO_RCVBUF, 64<<10) })
		return errors.Join(err, serr)
	}}
	ln, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &phaseServer{ln: ln, d: d, tls: tc, size: size, changed: make(chan struct{})}
	go s.accept()
	t.Cleanup(func() { ln.Close(); s.conns.Wait() })
	return s
}

func (s *phaseServer) port() string { return strconv.Itoa(s.ln.Addr().(*net.TCPAddr).Port) }

func (s *phaseServer) accept() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.conns.Add(1)
		go func() {
			defer s.conns.Done()
			defer c.Close()
			s.serve(c)
		}()
	}
}

func (s *phaseServer) serve(c net.Conn) {
	var side serverSide
	if s.tls != nil {
		conf := s.tls.Clone()
		conf.GetConfigForClient = func(*tls.ClientHelloInfo) (*tls.Config, error) {
			side.hello = time.Now()
			time.Sleep(s.d.handshake) // the delay under test, not synchronisation
			return nil, nil
		}
		tc := tls.Server(c, conf)
		if tc.Handshake() != nil {
			return
		}
		side.handshakeDone = time.Now()
		c = tc
	}
	br, bw := bufio.NewReader(c), bufio.NewWriterSize(c, 1<<16)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		side.headRead = time.Now()
		if req.ContentLength > 0 {
			time.Sleep(s.d.read)
		}
		if _, err := io.Copy(io.Discard, req.Body); err != nil {
			return
		}
		side.bodyRead = time.Now()
		time.Sleep(s.d.firstByte)
		n := 0
		if req.Method == http.MethodGet {
			n = s.size
		}
		body := make([]byte, n)
		side.firstOut = time.Now()
		fmt.Fprintf(bw, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\nETag: \"e\"\r\n\r\n", n)
		bw.Write(body[:n/2])
		if bw.Flush() != nil {
			return
		}
		time.Sleep(s.d.body)
		bw.Write(body[n/2:])
		if bw.Flush() != nil {
			return
		}
		side.lastOut = time.Now()
		s.mu.Lock()
		s.seen = append(s.seen, side)
		close(s.changed)
		s.changed = make(chan struct{})
		s.mu.Unlock()
		side = serverSide{}
	}
}

// answered is how many requests the server has answered.
func (s *phaseServer) answered() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.seen)
}

// side is what the server saw of the n-th request it answered (from 1),
// waiting for it: the client may have the last byte before the server
// has noted sending it.
func (s *phaseServer) side(t *testing.T, n int) serverSide {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		s.mu.Lock()
		if len(s.seen) >= n {
			defer s.mu.Unlock()
			return s.seen[n-1]
		}
		ch := s.changed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("the phase server has not answered request %d", n)
		}
	}
}

// dnsServer answers every A query with 127.0.0.1 and every other one
// with no records, each after delay; it records when the first query of
// a burst came and when the last answer left.
type dnsServer struct {
	pc             net.PacketConn
	delay          time.Duration
	mu             sync.Mutex
	first, lastOut time.Time
	queries        int
	wg             sync.WaitGroup
}

func startDNS(t *testing.T, delay time.Duration) *dnsServer {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &dnsServer{pc: pc, delay: delay}
	go d.serve()
	t.Cleanup(func() { pc.Close(); d.wg.Wait() })
	return d
}

func (d *dnsServer) serve() {
	for {
		buf := make([]byte, 1500)
		n, from, err := d.pc.ReadFrom(buf)
		if err != nil {
			return
		}
		d.mu.Lock()
		if d.queries == 0 {
			d.first = time.Now()
		}
		d.queries++
		d.mu.Unlock()
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			time.Sleep(d.delay) // the delay under test
			ans, err := dnsAnswer(buf[:n])
			if err != nil {
				return
			}
			d.mu.Lock()
			d.lastOut = time.Now()
			d.mu.Unlock()
			_, _ = d.pc.WriteTo(ans, from)
		}()
	}
}

// resolved is how long the server took over the queries so far, and
// starts a new burst.
func (d *dnsServer) resolved() time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	took := d.lastOut.Sub(d.first)
	d.queries = 0
	return took
}

// dnsAnswer builds the answer to query q: its header and question, and
// for type A one record 127.0.0.1.
func dnsAnswer(q []byte) ([]byte, error) {
	if len(q) < 12 || binary.BigEndian.Uint16(q[4:]) != 1 {
		return nil, errors.New("not a one-question query")
	}
	i := 12
	for i < len(q) && q[i] != 0 {
		i += int(q[i]) + 1
	}
	i += 5 // the root label, type, class
	if i > len(q) {
		return nil, errors.New("short question")
	}
	qtype := binary.BigEndian.Uint16(q[i-4:])
	out := append([]byte(nil), q[:i]...)
	binary.BigEndian.PutUint16(out[2:], 0x8180) // a response, recursion desired and available
	binary.BigEndian.PutUint16(out[8:], 0)      // no authority
	binary.BigEndian.PutUint16(out[10:], 0)     // no additional records (the query's EDNS0)
	binary.BigEndian.PutUint16(out[6:], 0)      // answers, below
	if qtype == 1 {
		binary.BigEndian.PutUint16(out[6:], 1)
		out = append(out, 0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 127, 0, 0, 1)
	}
	return out, nil
}

func (d *dnsServer) resolver() *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var dl net.Dialer
		return dl.DialContext(ctx, "udp", d.pc.LocalAddr().String())
	}}
}
