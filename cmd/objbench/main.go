// Command objbench measures object storage and file systems.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/objbench/objbench/internal/cli"
)

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	// The first SIGINT or SIGTERM cancels ctx: the command stops its work
	// within its grace (in-flight ops finish, cleanup runs on a deadline).
	// A second one ends the process at once. It is caught, not left to
	// the default action: a process started with SIGINT ignored (cmd &
	// in a script) gets it ignored again once Notify stops, and the
	// second Ctrl-C would do nothing.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		cancel()
		s := <-sigs
		fmt.Fprintf(os.Stderr, "objbench: %v again: quitting at once (in-flight ops and cleanup abandoned)\n", s)
		code := cli.ExitInterrupted
		if s == syscall.SIGTERM {
			code = 128 + int(syscall.SIGTERM)
		}
		os.Exit(code)
	}()
	code := cli.Execute(ctx, cli.OSEnv())
	cancel()
	os.Exit(code)
}
