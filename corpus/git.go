package corpus

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

// gitBlobs reads blobs through one `git cat-file --batch` process: an id
// written to its input, the blob read from its output. Requests take
// turns (git answers in order); a blob is copied once, into the buffer
// its reader holds until the upload is done.
type gitBlobs struct {
	repo string
	mu   sync.Mutex
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	err  error // the process failed or was closed: every read fails
}

// startBlobs starts the reader process. It is not bound to a context: the
// corpus's Close ends it.
func startBlobs(repo string) (*gitBlobs, error) {
	cmd := exec.Command("git", "-C", repo, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("git:%s: git cat-file --batch: %w", repo, err)
	}
	return &gitBlobs{repo: repo, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 256<<10)}, nil
}

var errClosed = errors.New("the corpus was closed")

// read returns the bytes of blob id, which must be size bytes long.
func (g *gitBlobs) read(id string, size int64) ([]byte, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.err != nil {
		return nil, fmt.Errorf("git:%s: blob %s: %w", g.repo, id, g.err)
	}
	if _, err := io.WriteString(g.in, id+"\n"); err != nil {
		g.err = err
		return nil, fmt.Errorf("git:%s: git cat-file --batch: %w", g.repo, err)
	}
	head, err := g.out.ReadString('\n')
	if err != nil {
		g.err = err
		return nil, fmt.Errorf("git:%s: git cat-file --batch: %w", g.repo, err)
	}
	f := strings.Fields(head)
	if len(f) != 3 || f[0] != id || f[1] != "blob" || f[2] != strconv.FormatInt(size, 10) {
		// A missing blob is answered "<id> missing" with nothing after it:
		// the stream is still in step.
		return nil, fmt.Errorf("git:%s: unexpected answer %q for blob %s of %d bytes", g.repo, strings.TrimSpace(head), id, size)
	}
	b := make([]byte, size+1) // the content, then a newline
	if _, err := io.ReadFull(g.out, b); err != nil {
		g.err = err
		return nil, fmt.Errorf("git:%s: blob %s: %w", g.repo, id, err)
	}
	return b[:size], nil
}

// close ends the process: its input closed, it exits.
func (g *gitBlobs) close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.err == errClosed {
		return nil
	}
	g.err = errClosed
	_ = g.in.Close()
	_, _ = io.Copy(io.Discard, g.out)
	if err := g.cmd.Wait(); err != nil {
		return fmt.Errorf("git:%s: git cat-file --batch: %w", g.repo, err)
	}
	return nil
}
