package shootout

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/objbench/objbench/units"
)

// FileSet is one shape of the dataset: Count files of Size bytes each.
type FileSet struct {
	Count int
	Size  int64
	Spec  string // as the user wrote it, e.g. "32x128MiB"
}

// Bytes is the size of the whole set.
func (f FileSet) Bytes() int64 { return int64(f.Count) * f.Size }

// Limits that keep a matrix from running away.
const (
	MaxFiles   = 100_000
	MaxThreads = 1024
	MaxRepeat  = 100
)

// ParseFileSets reads a comma list of COUNTxSIZE ("32x128MiB,1x4GiB").
// An error names the bad element.
func ParseFileSets(s string) ([]FileSet, error) {
	var sets []FileSet
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		n, size, ok := strings.Cut(part, "x")
		if !ok {
			n, size, ok = strings.Cut(part, "X")
		}
		if !ok {
			return nil, fmt.Errorf("bad file set %q: want COUNTxSIZE, e.g. 32x128MiB", part)
		}
		count, err := strconv.Atoi(n)
		if err != nil || count < 1 || count > MaxFiles {
			return nil, fmt.Errorf("bad file set %q: the count must be a whole number from 1 to %d", part, MaxFiles)
		}
		bytes, err := units.ParseSize(size)
		if err != nil || bytes < 1 {
			return nil, fmt.Errorf("bad file set %q: bad size %q", part, size)
		}
		if seen[part] {
			return nil, fmt.Errorf("file set %q given twice", part)
		}
		seen[part] = true
		sets = append(sets, FileSet{Count: count, Size: bytes, Spec: part})
	}
	return sets, nil
}

// ParseThreads reads a comma list of thread counts ("1,2,4,8").
func ParseThreads(s string) ([]int, error) {
	var out []int
	seen := map[int]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		n, err := strconv.Atoi(part)
		if err != nil || n < 1 || n > MaxThreads {
			return nil, fmt.Errorf("bad thread count %q: want a whole number from 1 to %d", part, MaxThreads)
		}
		if seen[n] {
			return nil, fmt.Errorf("thread count %d given twice", n)
		}
		seen[n] = true
		out = append(out, n)
	}
	return out, nil
}

// split shares threads requests in flight between files and parts, for
// tools that have both knobs: as many files at once as there are threads
// (at most all of them), the rest as parts of each file. So every tool
// gets at most threads requests in flight, whatever the file shape: 4
// threads over 32 files are 4 files x 1 part, over 1 file 1 file x 4 parts.
func split(threads, files int) (workers, parts int) {
	workers = max(1, min(threads, files))
	return workers, max(1, threads/workers)
}
