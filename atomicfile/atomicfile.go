package atomicfile

import (
	"io"
	"os"
	"path/filepath"
)

// Write creates or replaces path with what fn writes, with permissions perm.
// On any error the target is left as it was and the temporary file removed.
func Write(path string, perm os.FileMode, fn func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())             // a no-op once renamed
	if err := tmp.Chmod(perm); err != nil { // CreateTemp's 0600 is for secrets
		tmp.Close()
		return err
	}
	if err := fn(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
