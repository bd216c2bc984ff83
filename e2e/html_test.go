package e2e_test

import (
	"context"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/testenv"
)

// TestHTMLReportDrawsInBrowser runs a short sweep, writes its HTML report
// and renders it in a real, headless chromium: the DOM must hold the charts
// and the screenshot must show them in the charts' colours.
func TestHTMLReportDrawsInBrowser(t *testing.T) {
	browser := testenv.FindChromium(t)
	dir := t.TempDir()
	// 2 s steps: long enough that each chart's lines cover real width.
	objbench(t, dir, nil, "get", "--concurrency", "1,4", "--duration", "2s", "--objects", "50", "--size", "16KiB",
		"--quiet", "--out", "r.json").mustSucceed(t)
	objbench(t, dir, nil, "report", "r.json", "--html", "r.html").mustSucceed(t)
	page := filepath.Join(dir, "r.html")
	ctx := context.Background()

	dom, log, err := browser.DumpDOM(ctx, page)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(dom, "<svg"); n < 3 {
		t.Errorf("the rendered DOM has %d SVG charts, want 3 (over time, distribution, sweep)", n)
	}
	for _, want := range []string{"Throughput per op", "HDR percentile plot", "Throughput vs latency", "<path"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered DOM lacks %q", want)
		}
	}
	if m := regexp.MustCompile(`(?m)^.*(CONSOLE|Uncaught|Refused to|net::ERR_).*$`).FindAllString(log, -1); len(m) > 0 {
		t.Errorf("the page logged errors in the browser:\n%s", strings.Join(m, "\n"))
	}

	shot := filepath.Join(dir, "r.png")
	if _, err := browser.Screenshot(ctx, page, shot, 1200, 2400); err != nil {
		t.Fatal(err)
	}
	// The control: the same page with its charts taken out, whose
	// pixels in the line colour are the tables' and the text's.
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	bare, bareShot := filepath.Join(dir, "bare.html"), filepath.Join(dir, "bare.png")
	if err := os.WriteFile(bare, regexp.MustCompile(`(?s)<svg.*?</svg>`).ReplaceAll(b, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := browser.Screenshot(ctx, bare, bareShot, 1200, 2400); err != nil {
		t.Fatal(err)
	}
	n, none := chartPixels(t, shot), chartPixels(t, bareShot)
	if n < none+500 {
		t.Errorf("the screenshot has %d pixels in the charts' line colour, the page without its charts %d: the charts did not draw", n, none)
	}
}

// chartPixels counts the pixels of a PNG near the first line colour of the
// charts (Okabe-Ito blue, 0,114,178).
func chartPixels(t *testing.T, path string) int {
	t.Helper()
	return pixelsNear(t, path, 0, 114, 178)
}

// pixelsNear counts the pixels of a PNG near the colour red, green, blue.
func pixelsNear(t *testing.T, path string, red, green, blue int) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	near := func(a uint32, b int) bool { d := int(a>>8) - b; return d > -40 && d < 40 }
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if near(r, red) && near(g, green) && near(bl, blue) {
				n++
			}
		}
	}
	return n
}
