package shootout

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// stderrTail is how much of a tool's stderr a failed run keeps.
const stderrTail = 2048

// childRun is how one child process went.
type childRun struct {
	Wall        time.Duration
	User, Sys   time.Duration
	ExitCode    int
	Stderr      string // the tail, credentials scrubbed
	Err         error
	TimedOut    bool
	Interrupted bool
}

// runChild runs cmd with env (the whole environment), timing it from start
// to exit and taking its CPU from its rusage. The child is killed, with
// its process group, when ctx ends or after limit.
func runChild(ctx context.Context, cmd Command, env []string, limit time.Duration, secrets []string) childRun {
	runCtx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	c := exec.CommandContext(runCtx, cmd.Args[0], cmd.Args[1:]...)
	c.Env = env
	c.Stdout = io.Discard
	tail := &tailBuffer{max: stderrTail}
	c.Stderr = tail
	killGroup(c)
	c.WaitDelay = 10 * time.Second // a grandchild holding stderr open cannot hang us
	start := time.Now()
	err := c.Start()
	if err != nil {
		return childRun{Err: fmt.Errorf("start %s: %w", cmd.Args[0], err), ExitCode: -1}
	}
	err = c.Wait()
	r := childRun{Wall: time.Since(start), Err: err, ExitCode: c.ProcessState.ExitCode()}
	r.User, r.Sys = c.ProcessState.UserTime(), c.ProcessState.SystemTime()
	r.Stderr = scrub(tail.String(), secrets)
	switch {
	case ctx.Err() != nil:
		r.Interrupted = true
	case errors.Is(runCtx.Err(), context.DeadlineExceeded):
		r.TimedOut = true
	}
	return r
}

// scrub replaces every secret in s.
func scrub(s string, secrets []string) string {
	for _, x := range secrets {
		if len(x) >= 4 {
			s = strings.ReplaceAll(s, x, "***")
		}
	}
	return strings.TrimSpace(s)
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf bytes.Buffer
	cut bool // bytes before the kept ones were dropped
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if len(p) > t.max {
		p = p[len(p)-t.max:]
		t.cut = true
	}
	t.buf.Write(p)
	if extra := t.buf.Len() - t.max; extra > 0 {
		t.buf.Next(extra)
		t.cut = true
	}
	return n, nil
}

// String is the tail from its first whole line: a line cut at the front
// could hold the end of a secret that scrub would no longer recognise.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.buf.String()
	if t.cut {
		_, s, _ = strings.Cut(s, "\n")
	}
	return s
}
