package faultserver

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// nullServer serves the null target (Config.Null) over HTTP/1.1 parsed by
// net/http's http.ReadRequest but answered here, one write per response,
// instead of through net/http's Server. The null target exists to measure
// the client, and it shares the machine with it: at 1,000 workers with
// every request held 100 ms, net/http's server spent more CPU per request
// than the client (13.0 s against 11.9 s in a 30 s run), half of it in two
// write syscalls per 4 KiB answer (its connection buffer is 4 KiB, so the
// head and the body's end go out apart, and the client wakes twice), a
// goroutine and two deadline changes per request to watch for the client
// going away, and a context per request. The answers are the null
// handler's own (nullHandler.ServeHTTP, through nullResponse below); what
// differs is only how they reach the socket.
type nullServer struct {
	h     http.Handler
	delay time.Duration
	ln    net.Listener
	cut   chan struct{} // closed when Close gives up waiting: held requests end

	mu      sync.Mutex
	closing bool
	idle    map[net.Conn]bool // every open connection; true while it waits for a request
	conns   sync.WaitGroup
}

func newNullServer(ln net.Listener, delay time.Duration) *nullServer {
	return &nullServer{h: newNullHandler(), delay: delay, ln: ln, cut: make(chan struct{}), idle: map[net.Conn]bool{}}
}

// serve accepts connections until close.
func (s *nullServer) serve() error {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			time.Sleep(5 * time.Millisecond) // out of descriptors, say: as net/http does, back off and go on
			continue
		}
		if !s.track(c) {
			c.Close()
			return nil
		}
		go s.serveConn(c)
	}
}

func (s *nullServer) track(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.idle[c] = true
	s.conns.Add(1)
	return true
}

// setIdle marks c waiting for a request or busy; false: the server is
// closing and c, idle, is to be closed.
func (s *nullServer) setIdle(c net.Conn, idle bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if idle && s.closing {
		return false
	}
	s.idle[c] = idle
	return true
}

// close stops accepting, closes idle connections and lets busy ones
// finish their request until ctx ends, then cuts them.
func (s *nullServer) close(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	for c, idle := range s.idle {
		if idle {
			c.Close()
		}
	}
	s.mu.Unlock()
	err := s.ln.Close()
	done := make(chan struct{})
	go func() { s.conns.Wait(); close(done) }()
	select {
	case <-done:
		return err
	case <-ctx.Done():
	}
	close(s.cut)
	s.mu.Lock()
	for c := range s.idle {
		c.Close()
	}
	s.mu.Unlock()
	<-done
	return errors.Join(err, ctx.Err())
}

// writers are the response buffers, taken only to write an answer: a
// 4 KiB object and its head go out in one write.
var writers = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 16<<10) }}

func (s *nullServer) serveConn(c net.Conn) {
	defer s.conns.Done()
	defer func() {
		s.mu.Lock()
		delete(s.idle, c)
		s.mu.Unlock()
		c.Close()
	}()
	br := bufio.NewReaderSize(c, 4<<10)
	for {
		if !s.setIdle(c, true) {
			return
		}
		req, err := http.ReadRequest(br)
		if err != nil || !s.setIdle(c, false) {
			return // a malformed request or the client's close: net/http's server would also end the connection
		}
		if !s.serveOne(c, req) {
			return
		}
	}
}

// serveOne answers req; false: the connection is to be closed.
func (s *nullServer) serveOne(c net.Conn, req *http.Request) bool {
	if req.ContentLength != 0 && req.Header.Get("Expect") == "100-continue" {
		if _, err := io.WriteString(c, "HTTP/1.1 100 Continue\r\n\r\n"); err != nil {
			return false
		}
	}
	if s.delay > 0 {
		t := time.NewTimer(s.delay)
		select {
		case <-t.C:
		case <-s.cut:
			t.Stop()
			return false
		}
	}
	bw := writers.Get().(*bufio.Writer)
	bw.Reset(c)
	defer func() { bw.Reset(nil); writers.Put(bw) }()
	w := &nullResponse{bw: bw, hdr: make(http.Header, 4), head: req.Method == http.MethodHead, close: req.Close}
	s.h.ServeHTTP(w, req)
	if w.finish() != nil || w.close {
		return false
	}
	// What the handler left of the body is drained, a little at most, as
	// net/http does before reusing a connection.
	_, err := io.CopyN(io.Discard, req.Body, 256<<10)
	return err == io.EOF
}

// nullResponse is the http.ResponseWriter of nullServer: the head goes
// out with the body, in the connection's write buffer; a body whose length
// the handler did not set (lists, errors: small) is kept until the end to
// be counted.
type nullResponse struct {
	bw     *bufio.Writer
	hdr    http.Header
	status int
	head   bool // a HEAD: no body goes out
	close  bool // end the connection after this answer
	sent   bool // the head is in bw
	length int64
	body   int64 // bytes of body written after the head
	buf    []byte
}

func (w *nullResponse) Header() http.Header { return w.hdr }

func (w *nullResponse) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *nullResponse) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	if w.head {
		return 0, http.ErrBodyNotAllowed
	}
	if !w.sent {
		n, err := strconv.ParseInt(w.hdr.Get("Content-Length"), 10, 64)
		if err != nil { // no length set: keep the body to count it
			w.buf = append(w.buf, p...)
			return len(p), nil
		}
		w.length = n
		w.writeHead()
	}
	if w.body+int64(len(p)) > w.length {
		return 0, errors.New("faultserver: body longer than its Content-Length")
	}
	n, err := w.bw.Write(p)
	w.body += int64(n)
	return n, err
}

// finish sends what is left and flushes: the answer's one write.
func (w *nullResponse) finish() error {
	w.WriteHeader(http.StatusOK)
	if !w.sent {
		if w.hdr.Get("Content-Length") == "" && w.status != http.StatusNoContent && w.status != http.StatusNotModified && !w.head {
			w.hdr.Set("Content-Length", strconv.Itoa(len(w.buf)))
		}
		w.writeHead()
		_, _ = w.bw.Write(w.buf)
	} else if w.body != w.length {
		w.close = true // the body ended short: only closing the connection says so
	}
	return w.bw.Flush()
}

func (w *nullResponse) writeHead() {
	w.sent = true
	b := w.bw
	b.WriteString("HTTP/1.1 ")
	b.WriteString(strconv.Itoa(w.status))
	b.WriteByte(' ')
	b.WriteString(http.StatusText(w.status))
	b.WriteString("\r\nDate: ")
	b.Write(httpDate())
	b.WriteString("\r\n")
	for k, vs := range w.hdr {
		for _, v := range vs {
			b.WriteString(k)
			b.WriteString(": ")
			b.WriteString(v)
			b.WriteString("\r\n")
		}
	}
	if w.close {
		b.WriteString("Connection: close\r\n")
	}
	b.WriteString("\r\n")
}

// date caches the Date header's value for the current second.
var date atomic.Pointer[datedValue]

type datedValue struct {
	unix int64
	text []byte
}

func httpDate() []byte {
	now := time.Now()
	if d := date.Load(); d != nil && d.unix == now.Unix() {
		return d.text
	}
	d := &datedValue{unix: now.Unix(), text: now.UTC().AppendFormat(nil, http.TimeFormat)}
	date.Store(d)
	return d.text
}
