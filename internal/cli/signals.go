package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/objbench/objbench/result"
)

// Main runs objbench as a process and returns its exit code. The first
// SIGINT or SIGTERM cancels the command's context (a run stops issuing,
// lets in-flight ops finish and cleans up); a second ends the process at
// once, after saying what the command leaves behind (Env.Last). Handling
// the second signal here, rather than restoring the default handler, also
// ends a process that the shell started with SIGINT ignored (`cmd &` in a
// script), where the default would ignore it again.
func Main() int {
	env := OSEnv()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		cancel()
		s := <-sig
		fmt.Fprintf(env.Stderr, "objbench: %v again: quitting at once (in-flight ops and cleanup abandoned)\n", s)
		if last := env.Last.String(); last != "" {
			fmt.Fprintln(env.Stderr, "objbench: quit at once: "+last)
		}
		code := ExitInterrupted
		if s == syscall.SIGTERM {
			code = 128 + int(syscall.SIGTERM)
		}
		os.Exit(code)
	}()
	return Execute(ctx, env)
}

// LastWords is what a command has to say if a second interrupt ends the
// process at once (where its run's objects are left). Safe for
// concurrent use; a nil LastWords says nothing.
type LastWords struct {
	mu sync.Mutex
	s  string
}

// Set replaces what is to be said ("" for nothing).
func (l *LastWords) Set(s string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.s = s
	l.mu.Unlock()
}

func (l *LastWords) String() string {
	if l == nil {
		return ""
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.s
}

// whereRunWrites says where run id's objects go, and how to remove them if
// the run is cut short: for the start of a run and a second interrupt.
func whereRunWrites(t result.Target, namespace, runID string) (where, clean string) {
	where = namespace + " in " + t.Label()
	switch {
	case t.Embedded && t.Root == "":
		return where, "" // the embedded server's memory goes with the process
	case t.Kind == "fs":
		return where, fmt.Sprintf("objbench clean --run %s --target file://%s", runID, t.Root)
	case t.Endpoint != "":
		return where, fmt.Sprintf("objbench clean --run %s --endpoint-url %s --bucket %s", runID, t.Endpoint, t.Bucket)
	}
	return where, fmt.Sprintf("objbench clean --run %s --bucket %s", runID, t.Bucket)
}
