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
		{"disk full", &os.PathError{Op: "write", Path: "/mnt/x", Err: syscall.ENOSPC}, false, false},
	} {
		if got := storage.Unreachable(c.err); got != c.unreachable {
			t.Errorf("%s (%v, class %s): Unreachable %v, want %v", c.name, c.err, storage.ErrorClass(c.err), got, c.unreachable)
		}
		if got := storage.ConnectionFailure(c.err); got != c.conn {
			t.Errorf("%s (%v, class %s): ConnectionFailure %v, want %v", c.name, c.err, storage.ErrorClass(c.err), got, c.conn)
		}
	}
}

func TestTransient(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&storage.StatusError{StatusCode: 503, Code: "SlowDown"}, true},
		{&storage.OpError{Op: "list", Err: &storage.StatusError{StatusCode: 500}}, true},
		{&storage.StatusError{StatusCode: 429}, true},
		{fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, true},
		{context.DeadlineExceeded, true},
		{&storage.StatusError{StatusCode: 404, Code: "NoSuchKey", Err: storage.ErrNotFound}, false},
		{&storage.StatusError{StatusCode: 403, Code: "AccessDenied", Err: storage.ErrAccessDenied}, false},
		{&storage.StatusError{StatusCode: 400}, false},
		{storage.ErrChecksum, false},
		{context.Canceled, false},
		{&storage.StrayKeysError{Prefix: "p/", Stray: 1, First: "q"}, false},
	} {
		if got := storage.Transient(c.err); got != c.want {
			t.Errorf("Transient(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// A file's errno satisfies net.Error as well: a full disk is an I/O error,
// not a connection failure.
func TestFileErrorsAreIOErrors(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.ENOSPC, syscall.EIO, syscall.EDQUOT, syscall.EACCES} {
		err := &storage.OpError{Op: "put", Key: "k", Err: &os.PathError{Op: "write", Path: "/mnt/k", Err: errno}}
		if c := storage.ErrorClass(err); c != storage.ClassIO {
			t.Errorf("%v: class %s, want %s", errno, c, storage.ClassIO)
		}
	}
}
