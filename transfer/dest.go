package transfer

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// destDir is a download's destination directory, opened as an os.Root:
// each key's file is made and opened below it, following no symbolic link
// that leads out of it (a link DEST/link -> /elsewhere does not take the
// key link/pwn to /elsewhere/pwn).
type destDir struct {
	dir  string
	root *os.Root
}

func openDest(dir string) (*destDir, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &destDir{dir: dir, root: root}, nil
}

func (d *destDir) close() { _ = d.root.Close() }

// rel is path (a file the plan put below dir) relative to dir.
func (d *destDir) rel(path string) (string, error) {
	rel, err := filepath.Rel(d.dir, path)
	if err != nil || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("%s is not below %s", path, d.dir)
	}
	return rel, nil
}

// openFile makes rel's directories and opens it with flags, below the
// root only: a path that would leave it is refused, named.
func (d *destDir) openFile(key, rel string, flags int) (*os.File, error) {
	if dir := filepath.Dir(rel); dir != "." {
		if err := d.root.MkdirAll(dir, 0o755); err != nil {
			return nil, d.escaped(key, rel, err)
		}
	}
	f, err := d.root.OpenFile(rel, flags, 0o644)
	if err != nil {
		return nil, d.escaped(key, rel, err)
	}
	return f, nil
}

// remove removes rel, below the root only.
func (d *destDir) remove(rel string) { _ = d.root.Remove(rel) }

// escaped names a key whose file a symbolic link would take out of the
// destination (os.Root refuses it), or passes err on.
func (d *destDir) escaped(key, rel string, err error) error {
	if strings.Contains(err.Error(), "escapes from parent") { // os.Root's own error has no name to test
		return fmt.Errorf("key %q: %s leads out of %s through a symbolic link: refused", key, rel, d.dir)
	}
	return fmt.Errorf("key %q: %w", key, err)
}
