// Command gen writes objbench's command-line reference (docs/cli, docs/man)
// from its cobra commands: go generate ./internal/clidoc.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/objbench/objbench/internal/clidoc"
)

func main() {
	root := flag.String("root", ".", "the repository's root directory")
	flag.Parse()
	if err := clidoc.Write(*root); err != nil {
		fmt.Fprintln(os.Stderr, "clidoc:", err)
		os.Exit(1)
	}
}
