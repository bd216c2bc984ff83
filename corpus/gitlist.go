package corpus

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
)

// FromGit counts the blobs of the git repository at repo (a work tree or
// a bare repository), at most max of them (0: all), the first by id. It
// runs the git command; every blob in the object store counts, reachable
// from a branch or not. Each lists them again (git answers in id order);
// blobs are read when opened, through one `git cat-file --batch` process
// the corpus keeps until Close: memory holds neither the corpus nor its
// list.
func FromGit(ctx context.Context, repo string, max int) (*Corpus, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, fmt.Errorf("git:%s needs the git command (apt-get install git): %w", repo, err)
	}
	c := &Corpus{source: GitPrefix + repo, repo: repo}
	err := listBlobs(ctx, repo, max, func(_ string, size int64) error {
		c.stats.add(size)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if c.stats.Objects == 0 {
		return nil, fmt.Errorf("git:%s holds no blobs", repo)
	}
	if c.git, err = startBlobs(repo); err != nil {
		return nil, err
	}
	return c, nil
}

// listBlobs calls fn with the id and size of every blob of repo, in id
// order, at most max (0: all), as `git cat-file --batch-check` lists
// them, and stops at fn's first error.
func listBlobs(ctx context.Context, repo string, max int, fn func(id string, size int64) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "-C", repo, "cat-file", "--batch-all-objects", "--batch-check=%(objecttype) %(objectname) %(objectsize)")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	listErr := readBlobLines(bufio.NewReaderSize(stdout, 64<<10), max, fn)
	if listErr != nil {
		cancel() // the rest is not wanted: git ends
	}
	_, _ = io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err != nil && listErr == nil {
		return fmt.Errorf("git:%s: git cat-file: %w: %s", repo, err, strings.TrimSpace(stderr.String()))
	}
	if errors.Is(listErr, errMax) {
		return nil
	}
	return listErr
}

var errMax = errors.New("max reached")

// readBlobLines reads `git cat-file --batch-check` lines: the blobs' ids
// and sizes, at most max (0: all).
func readBlobLines(r *bufio.Reader, max int, fn func(id string, size int64) error) error {
	n := 0
	for {
		line, err := r.ReadSlice('\n')
		if f := bytes.Fields(line); len(f) == 3 && string(f[0]) == "blob" {
			size, perr := strconv.ParseInt(string(f[2]), 10, 64)
			if perr != nil {
				return fmt.Errorf("git cat-file: bad line %q", line)
			}
			if max > 0 && n >= max {
				return errMax
			}
			n++
			if err := fn(string(f[1]), size); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
