package e2e_test

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/testenv"
)

// TestCompareHTMLDrawsInBrowser compares two real runs of the default
// mix (five ops, and a prepare and a cleanup) with --html and renders the
// page in a headless chromium: the DOM must hold the charts and the
// table, nothing may be cut or overlap at 1200 and 800 px, with the main
// steps (the default) or every step, and the screenshot must show both
// runs' colours.
func TestCompareHTMLDrawsInBrowser(t *testing.T) {
	browser := testenv.FindChromium(t)
	dir := t.TempDir()
	for _, name := range []string{"a.json", "b.json"} {
		objbench(t, dir, nil, "run", "--concurrency", "2", "--duration", "2s", "--objects", "50", "--size", "16KiB",
			"--quiet", "--out", name).mustSucceed(t)
	}
	r := objbench(t, dir, nil, "compare", "--html", "cmp.html", "a.json", "b.json").mustSucceed(t)
	if !strings.Contains(r.stdout, "b.json") || !strings.Contains(r.stdout, " GET ") || strings.Contains(r.stdout, "prepare") {
		t.Errorf("compare --html did not print the table of the main steps:\n%s", r.stdout)
	}
	objbench(t, dir, nil, "compare", "--all-steps", "--html", "all.html", "a.json", "b.json").mustSucceed(t)
	page := filepath.Join(dir, "cmp.html")
	ctx := context.Background()
	for _, p := range []string{"cmp.html", "all.html"} {
		for _, width := range []int{1200, 800} {
			problems, err := browser.LayoutProblems(ctx, filepath.Join(dir, p), width)
			if err != nil {
				t.Fatal(err)
			}
			for _, pr := range problems {
				t.Errorf("%s at %d px: %s", p, width, pr)
			}
		}
	}

	dom, log, err := browser.DumpDOM(ctx, page)
	if err != nil {
		t.Fatal(err)
	}
	// Bars for MiB/s and ops/s, a distribution and a time stack per op.
	if n := strings.Count(dom, "<svg"); n < 12 {
		t.Errorf("the rendered DOM has %d SVG charts, want at least 12", n)
	}
	for _, want := range []string{"Throughput per op", "Operations per second per op", "GET: latency distribution",
		"GET: throughput (MiB/s) and operations per second", "a.json", "b.json", "P99.9", "<path", `<table class="compare">`} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered DOM lacks %q", want)
		}
	}
	if m := regexp.MustCompile(`(?m)^.*(CONSOLE|Uncaught|Refused to|net::ERR_).*$`).FindAllString(log, -1); len(m) > 0 {
		t.Errorf("the page logged errors in the browser:\n%s", strings.Join(m, "\n"))
	}

	shot := filepath.Join(dir, "cmp.png")
	if _, err := browser.Screenshot(ctx, page, shot, 1200, 4000); err != nil {
		t.Fatal(err)
	}
	// The base run is drawn in Okabe-Ito blue, the other in vermilion: a
	// page whose bars and lines did not draw has next to none of either.
	for _, c := range []struct {
		run     string
		r, g, b int
	}{{"a.json (blue)", 0, 114, 178}, {"b.json (vermilion)", 213, 94, 0}} {
		n := pixelsNear(t, shot, c.r, c.g, c.b)
		t.Logf("%s: %d pixels", c.run, n)
		if n < 3000 {
			t.Errorf("the screenshot has %d pixels in %s's colour: its charts did not draw", n, c.run)
		}
	}
}
