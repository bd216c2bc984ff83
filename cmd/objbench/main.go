// Command objbench measures object storage and file systems.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/objbench/objbench/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// After the first signal, restore default handling: a second one kills
	// the process at once.
	context.AfterFunc(ctx, stop)
	code := cli.Execute(ctx, cli.OSEnv())
	stop()
	os.Exit(code)
}
