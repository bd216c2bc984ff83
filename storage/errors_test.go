package storage_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/objbench/objbench/storage"
)

func TestUnreachable(t *testing.T) {
	// A real refused dial: a port that was just free.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, refused := net.Dial("tcp", addr)
	for _, c := range []struct {
		name              string
		err               error
		unreachable, conn bool
	}{
		{"refused dial", refused, true, true},
		{"dial timeout", &net.OpError{Op: "dial", Net: "tcp", Err: os.ErrDeadlineExceeded}, true, true},
		{"unreachable host", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.EHOSTUNREACH}, true, true},
		{"reset", &storage.OpError{Op: "get", Key: "k", Err: fmt.Errorf("read: %w", syscall.ECONNRESET)}, false, true},
		{"broken pipe", fmt.Errorf("write: %w", syscall.EPIPE), false, true},
		{"read timeout", &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}, false, false},
		{"request timeout", context.DeadlineExceeded, false, false},
		{"503", &storage.StatusError{StatusCode: 503, Code: "SlowDown"}, false, false},
		{"not found", storage.ErrNotFound, false, false},
		{"canceled", context.Canceled, false, false},
		{"nil", nil, false, false},
	} {
		if got := storage.Unreachable(c.err); got != c.unreachable {
			t.Errorf("%s (%v, class %s): Unreachable %v, want %v", c.name, c.err, storage.ErrorClass(c.err), got, c.unreachable)
		}
		if got := storage.ConnectionFailure(c.err); got != c.conn {
			t.Errorf("%s (%v, class %s): ConnectionFailure %v, want %v", c.name, c.err, storage.ErrorClass(c.err), got, c.conn)
		}
	}
}
