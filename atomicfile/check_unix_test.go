//go:build unix

package atomicfile_test

import (
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/objbench/objbench/atomicfile"
)

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// A device node given as the path stays a device node: written through
// (a null device swallows it), never replaced by a regular file.
func TestWriteThroughADeviceNode(t *testing.T) {
	node := filepath.Join(t.TempDir(), "node")
	if err := unix.Mknod(node, unix.S_IFCHR|0o644, int(unix.Mkdev(1, 3))); err != nil {
		t.Skipf("cannot make a device node here (needs CAP_MKNOD): %v", err)
	}
	if err := atomicfile.Check(node); err != nil {
		t.Fatalf("Check: %v", err)
	}
	if err := atomicfile.Write(node, 0o644, writeString("result")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(node)
	if err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("after Write: %v, %v; want the character device still there", fi.Mode(), err)
	}
}

// A named pipe is written through to its reader.
func TestWriteThroughAFifo(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		b, _ := os.ReadFile(fifo) // opening waits for the writer
		got <- string(b)
	}()
	if err := atomicfile.Write(fifo, 0o644, writeString("through the pipe")); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-got:
		if s != "through the pipe" {
			t.Errorf("the reader got %q", s)
		}
	case <-time.After(time.Minute): // a replaced fifo never reaches its reader
		t.Fatal("the fifo's reader got nothing in a minute")
	}
	if fi, _ := os.Lstat(fifo); fi == nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the fifo was replaced")
	}
}

// A symbolic link is followed: the file it names is replaced, the link
// stays a link; a link to nothing makes the file it names.
func TestWriteFollowsSymlinks(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "sub", "real.json")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ link, to, want string }{
		{"link", "sub/real.json", real}, // relative, to a file
		{"dangling", "sub/new.json", filepath.Join(dir, "sub", "new.json")},
		{"chain", "link", real}, // a link to a link
	} {
		l := filepath.Join(dir, tc.link)
		if err := os.Symlink(tc.to, l); err != nil {
			t.Fatal(err)
		}
		if err := atomicfile.Check(l); err != nil {
			t.Errorf("%s: Check: %v", tc.link, err)
		}
		if err := atomicfile.Write(l, 0o644, writeString("new via "+tc.link)); err != nil {
			t.Fatalf("%s: %v", tc.link, err)
		}
		if fi, err := os.Lstat(l); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s: no longer a symbolic link (%v)", tc.link, err)
		}
		if b, err := os.ReadFile(tc.want); string(b) != "new via "+tc.link {
			t.Errorf("%s: %s holds %q (%v)", tc.link, tc.want, b, err)
		}
	}
	loop := filepath.Join(dir, "loop")
	if err := os.Symlink("loop", loop); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Check(loop); err == nil || !strings.Contains(err.Error(), "symbolic links") {
		t.Errorf("a link to itself: Check = %v", err)
	}
}

// What is neither a regular file, a device of characters nor a pipe is
// refused by Check and by Write, named, and left as it was.
func TestRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	sub := filepath.Join(dir, "d")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	block := filepath.Join(dir, "block")
	paths := map[string]string{sock: "a socket", sub: "a directory"}
	if err := unix.Mknod(block, unix.S_IFBLK|0o600, int(unix.Mkdev(7, 0))); err == nil {
		paths[block] = "a block device"
	}
	toSub := filepath.Join(dir, "to-d")
	if err := os.Symlink("d", toSub); err != nil {
		t.Fatal(err)
	}
	paths[toSub] = "leads to " + sub + ", a directory"
	for p, why := range paths {
		before, _ := os.Lstat(p)
		for name, err := range map[string]error{
			"Check": atomicfile.Check(p),
			"Write": atomicfile.Write(p, 0o644, writeString("x")),
		} {
			var pe *atomicfile.PathError
			if !errors.As(err, &pe) || !errors.Is(err, atomicfile.ErrRefused) || !strings.Contains(err.Error(), p+": "+why) {
				t.Errorf("%s(%s) = %v; want it refused as %s", name, p, err, why)
			}
		}
		if after, _ := os.Lstat(p); after == nil || after.Mode() != before.Mode() {
			t.Errorf("%s changed", p)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != len(paths) {
		t.Errorf("%d entries in the directory; a temporary file was left", len(entries))
	}
}

// A regular file its user may not write is refused, as a shell's > does.
func TestRefusesAFileItMayNotWrite(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root may write any file")
	}
	p := filepath.Join(t.TempDir(), "ro.json")
	if err := os.WriteFile(p, []byte("keep"), 0o444); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Write(p, 0o644, writeString("x")); err == nil {
		t.Errorf("wrote a read-only file")
	}
	if b, _ := os.ReadFile(p); string(b) != "keep" {
		t.Errorf("it holds %q", b)
	}
}

// Check makes nothing: a path in directories yet to be made passes when
// the nearest one that exists takes files, and nothing is left behind.
func TestCheckMakesNothing(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a", "b", "r.json")
	if err := atomicfile.Check(p); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("Check left %d entries", len(entries))
	}
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Check(filepath.Join(file, "r.json")); err == nil {
		t.Errorf("a path below a regular file passed")
	}
}

// A path through a regular file is refused as one that cannot be written,
// not "cannot be read: not a directory", and nothing is made.
func TestRefusesAPathThroughAFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(file, "out.json")
	err := atomicfile.Check(p)
	if err == nil || !strings.Contains(err.Error(), p+": cannot be written: a part of its path is a file, not a directory") {
		t.Errorf("Check(%s) = %v", p, err)
	}
	if b, _ := os.ReadFile(file); string(b) != "x" {
		t.Errorf("%s changed", file)
	}
}
