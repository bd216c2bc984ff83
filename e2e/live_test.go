package e2e_test

import (
	"bufio"
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/objbench/objbench/internal/testenv"
)

// TestLivePageUpdatesInBrowser opens the live page of a running objbench
// (--listen 127.0.0.1:0) in two headless chromiums at once, one dumping
// the DOM and one taking a screenshot: the charts must be there, drawn,
// replaced by the event stream more than once, the page must say how the
// run ended, and nothing may log an error. Chromium's virtual time waits
// for the page's stream to end, so both capture the page as the run ends.
func TestLivePageUpdatesInBrowser(t *testing.T) {
	domBrowser, shotBrowser := testenv.FindChromium(t), testenv.FindChromium(t) // a profile each: they run at once
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "get", "--listen", "127.0.0.1:0", "--duration", "6s", "--objects", "50",
		"--size", "16KiB", "--concurrency", "2", "--out", "r.json")
	cmd.Dir = dir
	stderrPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var stderr strings.Builder
	addr := make(chan string, 1)
	scanned := make(chan struct{})
	go func() { // ends with the process's stderr
		defer close(scanned)
		note := regexp.MustCompile(`live view: (http://127\.0\.0\.1:\d+/)`)
		sc := bufio.NewScanner(stderrPipe)
		for sc.Scan() {
			mu.Lock()
			stderr.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if m := note.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	var url string
	select {
	case url = <-addr:
	case <-scanned:
		t.Fatalf("objbench ended without printing the live view's address")
	case <-ctx.Done():
		t.Fatal("no live view address within two minutes")
	}

	shot := filepath.Join(dir, "live.png")
	var dom, domLog, shotLog string
	var g errgroup.Group
	g.Go(func() (err error) { dom, domLog, err = domBrowser.DumpLiveDOM(ctx, url, 30*time.Second); return err })
	g.Go(func() (err error) {
		shotLog, err = shotBrowser.ScreenshotLive(ctx, url, shot, 1200, 2400, 30*time.Second)
		return err
	})
	browseErr := g.Wait()
	<-scanned
	if err := cmd.Wait(); err != nil {
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("objbench: %v\n%s", err, stderr.String())
	}
	if browseErr != nil {
		t.Fatal(browseErr)
	}

	if n := strings.Count(dom, "<svg"); n != 1 {
		t.Errorf("the live page's DOM has %d SVG elements, want the one stack of time charts", n)
	}
	for _, want := range []string{"Throughput per op", "Operations per op", "Latency per second", "CPU (whole machine)", "<path",
		"finished: completed"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the live page's DOM lacks %q", want)
		}
	}
	m := regexp.MustCompile(`data-charts="(\d+)"`).FindStringSubmatch(dom)
	if n := 0; m == nil {
		t.Error("the live page's DOM has no data-charts count")
	} else if n, _ = strconv.Atoi(m[1]); n < 3 {
		t.Errorf("the charts were drawn %d times, want the first state, at least one second and the end", n)
	}
	for _, log := range []string{domLog, shotLog} {
		if bad := regexp.MustCompile(`(?m)^.*(CONSOLE|Uncaught|Refused to|net::ERR_).*$`).FindAllString(log, -1); len(bad) > 0 {
			t.Errorf("the live page logged errors in the browser:\n%s", strings.Join(bad, "\n"))
		}
	}
	if n := chartPixels(t, shot); n < 1500 {
		t.Errorf("the screenshot has %d pixels in the charts' line colour: the charts did not draw", n)
	}
}
