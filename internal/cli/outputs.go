package cli

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/objbench/objbench/atomicfile"
)

// output is a file a flag asks a command to write.
type output struct {
	flag string // "--out"
	path string // "" (or "-", stdout): none to check
	dir  bool   // path is a directory the command writes files into
}

// checkOutputs refuses, before a command reads or writes anything else,
// every output it could not write (exit 2, the flag and the path named),
// as atomicfile judges paths: absent or a regular file, a device or a
// pipe written through, a symbolic link followed; nothing else.
func checkOutputs(outs ...output) error {
	for _, o := range outs {
		if o.path == "" || o.path == "-" {
			continue
		}
		p := o.path
		if o.dir { // the directory must hold new files (it is made if missing)
			p = filepath.Join(p, ".objbench-output")
		}
		if err := atomicfile.Check(p); err != nil {
			if o.dir {
				return inputf("%s %s: %v", o.flag, o.path, err)
			}
			return inputf("%s %v", o.flag, err)
		}
	}
	return nil
}

// writeError names the flag and path of an output that failed to be
// written (an atomicfile.PathError names the path itself).
func writeError(flag, path string, err error) error {
	var pe *atomicfile.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s %w", flag, err)
	}
	return fmt.Errorf("%s %s: %w", flag, path, err)
}
