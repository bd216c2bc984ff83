package testenv

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// BuildObjbench builds the objbench command of this module into dir and
// returns its path: for tests that run launcher scripts (deploy/), which
// start objbench by name.
func BuildObjbench(tb testing.TB, dir string) string {
	tb.Helper()
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil || len(bytes.TrimSpace(gomod)) == 0 {
		tb.Fatalf("go env GOMOD: %v %s", err, gomod)
	}
	bin := filepath.Join(dir, "objbench")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/objbench")
	build.Dir = filepath.Dir(string(bytes.TrimSpace(gomod)))
	if out, err := build.CombinedOutput(); err != nil {
		tb.Fatalf("go build ./cmd/objbench: %v\n%s", err, out)
	}
	return bin
}

// ArgvWatch samples every process's command line on this machine (Linux
// /proc) while a test runs something, looking for strings that must never
// appear there (credentials: every user of the machine can read them with
// ps).
type ArgvWatch struct {
	stop    context.CancelFunc
	done    chan struct{}
	mu      sync.Mutex
	hits    []string // command lines that held a secret
	seen    int      // command lines that held mark
	samples int
}

// WatchArgv starts sampling until Stop, every few milliseconds. mark is a
// string of the command lines it should see (the program under watch), so
// that a test knows the watch covered the run.
func WatchArgv(mark string, secrets ...string) *ArgvWatch {
	ctx, cancel := context.WithCancel(context.Background())
	w := &ArgvWatch{stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			w.sample(mark, secrets)
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return w
}

func (w *ArgvWatch) sample(mark string, secrets []string) {
	lines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	w.mu.Lock()
	defer w.mu.Unlock()
	w.samples++
	for _, p := range lines {
		b, err := os.ReadFile(p)
		if err != nil || len(b) == 0 {
			continue
		}
		cmd := string(bytes.ReplaceAll(b, []byte{0}, []byte{' '}))
		if strings.Contains(cmd, mark) {
			w.seen++
		}
		for _, s := range secrets {
			if hit := p + ": " + strings.ReplaceAll(cmd, s, "<SECRET>"); strings.Contains(cmd, s) && !slices.Contains(w.hits, hit) {
				w.hits = append(w.hits, hit)
			}
		}
	}
}

// Stop ends the sampling and returns the command lines that held a
// secret (the secret masked) and how many held mark.
func (w *ArgvWatch) Stop() (hits []string, seen int) {
	w.stop()
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.hits, w.seen
}
