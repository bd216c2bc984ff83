// Command objbench measures object storage and file systems.
package main

import (
	"os"

	"github.com/objbench/objbench/internal/cli"
)

func main() {
	os.Exit(cli.Main())
}
