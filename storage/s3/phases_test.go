package s3_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/selfsigned"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

const (
	phaseHost = "s3.phases.test" // resolved only by the test's DNS server
	tolerance = time.Millisecond
)

// problems collects what one measurement got wrong, by check.
type problems map[string]string

func (p problems) addf(check, format string, a ...any) {
	p[check] = check + ": " + fmt.Sprintf(format, a...)
}

// near checks a client-side phase against the server's view of it. Under
// the race detector timing is not checked (scripts/test.sh runs this test
// without it too); everything else is.
func (p problems) near(what string, got, want time.Duration) {
	if raceEnabled {
		return
	}
	if d := got - want; d > tolerance || d < -tolerance {
		p.addf(what, "%v, the server saw %v", got, want)
	}
}

func (p problems) small(what string, got time.Duration) {
	if got <= 0 || (got > tolerance && !raceEnabled) {
		p.addf(what, "%v, want (0, %v]", got, tolerance)
	}
}

// withinAttempts runs measure until one attempt finds no problem (at most
// n), and fails the checks that failed in every attempt: each phase is
// checked to a millisecond, and on a shared 2-core machine a scheduler
// hiccup can take one; a phase measured wrongly is off by a whole delay
// (15-35 ms) every time.
func withinAttempts(t *testing.T, n int, measure func() problems) {
	t.Helper()
	var always problems
	for i := range n {
		got := measure()
		if len(got) == 0 {
			return
		}
		t.Logf("attempt %d: %v", i+1, got)
		if i == 0 {
			always = got
			continue
		}
		for k := range always {
			if msg, ok := got[k]; ok {
				always[k] = msg
			} else {
				delete(always, k)
			}
		}
	}
	for _, msg := range always {
		t.Error(msg)
	}
}

// Every phase of a request, for both HTTP clients over http and https,
// against a server whose every step takes a known time: each phase the
// client reports is within 1 ms of the server's view of the same
// interval (same process, same clock).
func TestPhases(t *testing.T) {
	d := delays{dns: 15 * time.Millisecond, handshake: 20 * time.Millisecond, read: 35 * time.Millisecond,
		firstByte: 25 * time.Millisecond, body: 30 * time.Millisecond}
	cert, err := selfsigned.Generate([]string{phaseHost}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, cert.CAPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, scheme := range []string{"http", "https"} {
		for _, client := range clients {
			t.Run(scheme+"/"+client, func(t *testing.T) {
				var tc *tls.Config
				if scheme == "https" {
					if tc, err = cert.ServerConfig(); err != nil {
						t.Fatal(err)
					}
					var key [32]byte
					rand.Read(key[:])
					tc.SetSessionTicketKeys([][32]byte{key}) // shared by the per-connection clones
				}
				srv := startPhaseServer(t, d, tc, 64<<10)
				dns := startDNS(t, d.dns)
				withinAttempts(t, 5, func() problems {
					s := newStore(t, scheme+"://"+phaseHost+":"+srv.port(), func(c *s3.Config) {
						c.HTTPClient, c.CABundle = client, caFile
					})
					s3.SetResolver(s, dns.resolver())
					s3.SetSendBuffer(s, 64<<10)
					return measurePhases(t, s, srv, dns, scheme == "https")
				})
			})
		}
	}
}

// measurePhases sends a GET on a new connection, a GET and a large PUT on
// it again, and (https) a GET on a new connection that resumes the TLS
// session, checking each one's phases and the connection counts.
func measurePhases(t *testing.T, s *s3.Store, srv *phaseServer, dns *dnsServer, https bool) problems {
	ctx := context.Background()
	p := problems{}
	var tr storage.Trace
	n := srv.answered()
	last := func() serverSide { n++; return srv.side(t, n) }
	var side serverSide
	get := func(what string) {
		if _, err := s.Get(ctx, "k", storage.GetOptions{Trace: &tr}, io.Discard); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		side = last()
		ph := tr.Phases
		p.near(what+" wait", ph.Wait, side.firstOut.Sub(side.bodyRead))
		p.near(what+" receive", ph.Receive, side.lastOut.Sub(side.firstOut))
		p.small(what+" send", ph.Send)
		if got := tr.FirstByte.Sub(side.firstOut); got < 0 || (got > tolerance && !raceEnabled) {
			p.addf(what+" first byte", "%v after the server sent it", got)
		}
	}
	fresh := func(what string, resumed bool) {
		get(what)
		ph := tr.Phases
		if !ph.NewConn || ph.TLSResumed != resumed {
			p.addf(what+" conn", "NewConn %v TLSResumed %v, want true %v", ph.NewConn, ph.TLSResumed, resumed)
		}
		p.near(what+" dns", ph.DNS, dns.resolved())
		p.small(what+" connect", ph.Connect)
		if https {
			p.near(what+" tls", ph.TLS, side.handshakeDone.Sub(side.hello))
		} else if ph.TLS != 0 {
			p.addf(what+" tls", "%v over http", ph.TLS)
		}
	}
	fresh("first GET", false)
	get("reused GET")
	if ph := tr.Phases; ph.NewConn || ph.DNS != 0 || ph.Connect != 0 || ph.TLS != 0 {
		p.addf("reused GET setup", "%+v, want none", ph)
	}
	// A body larger than the socket buffers on both sides (64 KiB each),
	// read by the server only after a delay: sending ends when the server
	// has read all but those buffers' worth, and waiting is the rest.
	body := make([]byte, 2<<20)
	if _, err := s.Put(ctx, "k", bytes.NewReader(body), int64(len(body)), storage.PutOptions{Trace: &tr}); err != nil {
		t.Fatalf("PUT: %v", err)
	}
	side = last()
	p.near("PUT send", tr.Phases.Send, side.bodyRead.Sub(side.headRead))
	p.near("PUT wait", tr.Phases.Wait, side.firstOut.Sub(side.bodyRead))
	want := storage.ConnStats{Requests: 3, Opened: 1, Reused: 2}
	if https {
		s.Close() // the next request needs a new connection, which resumes the session
		fresh("resumed GET", true)
		want = storage.ConnStats{Requests: 4, Opened: 2, Reused: 2, TLSHandshakes: 2, TLSResumed: 1}
	}
	if got := s.Connections(); got != want {
		p.addf("Connections()", "%+v, want %+v", got, want)
	}
	return p
}
