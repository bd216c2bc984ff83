package testenv

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// layoutCheck runs in the page after layout and lists what a reader
// would see cut or piled up: a page wider than the window, an element
// whose content is wider than its box (clipped, or scrolled out of
// sight), text of a chart whose ink leaves the chart, overlaps another
// text's or sits on a filled shape (a bar, a legend's swatch). Elements inside
// a closed <details> have no layout and are not looked at.
const layoutCheck = `<script>
(function () {
  var problems = [];
  var de = document.documentElement;
  if (de.scrollWidth > window.innerWidth + 1) {
    problems.push("the page is " + de.scrollWidth + " px wide in a " + window.innerWidth + " px window");
  }
  function name(e) {
    return e.tagName.toLowerCase() + ' "' + (e.textContent || "").trim().replace(/\s+/g, " ").slice(0, 50) + '"';
  }
  var all = document.body.querySelectorAll("*");
  for (var i = 0; i < all.length; i++) {
    var e = all[i];
    if (e.closest("svg") || e.closest("details:not([open])") || e.id === "layout-check") continue;
    if (e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1) {
      problems.push("cut: " + name(e) + " needs " + e.scrollWidth + " px, has " + e.clientWidth);
    }
  }
  function hit(a, b) {
    return Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
  }
  var svgs = document.querySelectorAll("svg");
  for (var s = 0; s < svgs.length; s++) {
    var svg = svgs[s], box = svg.getBoundingClientRect();
    var texts = [], shapes = [];
    var ts = svg.querySelectorAll("text");
    for (var k = 0; k < ts.length; k++) {
      var t = ts[k].textContent.trim();
      // A text's box is its font's whole line (ascent and descent): the
      // ink lies inside it, between about a fifth from the top and a
      // tenth from the bottom, whatever the font.
      var r = ts[k].getBoundingClientRect(), vert = !!ts[k].closest('g[transform*="rotate"]');
      var ink = vert ? {left: r.left + r.width * 0.15, right: r.right - r.width * 0.15, top: r.top, bottom: r.bottom}
                     : {left: r.left, right: r.right, top: r.top + r.height * 0.2, bottom: r.bottom - r.height * 0.1};
      if (t !== "") texts.push({t: t, r: ink});
    }
    var ps = svg.querySelectorAll("path, rect");
    for (var k = 0; k < ps.length; k++) {
      var f = getComputedStyle(ps[k]).fill, r = ps[k].getBoundingClientRect();
      if (f && f !== "none" && f !== "rgb(255, 255, 255)" && r.width > 1 && r.height > 1 && r.width < box.width - 2) shapes.push(r);
    }
    for (var a = 0; a < texts.length; a++) {
      var ta = texts[a], where = "chart " + (s + 1) + ": ";
      if (ta.r.left < box.left - 1 || ta.r.right > box.right + 1 || ta.r.top < box.top - 1 || ta.r.bottom > box.bottom + 1) {
        problems.push(where + "text \"" + ta.t + "\" leaves the chart");
      }
      for (var b = a + 1; b < texts.length; b++) {
        if (hit(ta.r, texts[b].r)) problems.push(where + "text \"" + ta.t + "\" overlaps \"" + texts[b].t + "\"");
      }
      for (var b = 0; b < shapes.length; b++) {
        if (hit(ta.r, shapes[b])) { problems.push(where + "text \"" + ta.t + "\" sits on a filled shape"); break; }
      }
    }
  }
  var pre = document.createElement("pre");
  pre.id = "layout-check";
  pre.textContent = JSON.stringify({width: window.innerWidth, problems: problems});
  document.body.appendChild(pre);
})();
</script>`

var layoutRE = regexp.MustCompile(`(?s)<pre id="layout-check">(.*?)</pre>`)

// LayoutProblems renders page in a window width pixels wide and lists
// what is cut or overlaps (layoutCheck): nothing for a page that reads
// whole. The page is copied beside itself with the check added; the file
// itself is not changed.
func (c *Chromium) LayoutProblems(ctx context.Context, page string, width int) ([]string, error) {
	b, err := os.ReadFile(page)
	if err != nil {
		return nil, err
	}
	text := string(b)
	i := strings.LastIndex(text, "</body>")
	if i < 0 {
		return nil, fmt.Errorf("%s has no </body>", page)
	}
	checked := filepath.Join(filepath.Dir(page), fmt.Sprintf("layout-%d-%s", width, filepath.Base(page)))
	if err := os.WriteFile(checked, []byte(text[:i]+layoutCheck+text[i:]), 0o644); err != nil {
		return nil, err
	}
	dom, _, err := c.run(ctx, checked, "--dump-dom", fmt.Sprintf("--window-size=%d,1000", width))
	if err != nil {
		return nil, err
	}
	m := layoutRE.FindStringSubmatch(dom)
	if m == nil {
		return nil, fmt.Errorf("the layout check did not run in %s", checked)
	}
	var out struct {
		Width    int
		Problems []string
	}
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &out); err != nil {
		return nil, err
	}
	if out.Width != width {
		return nil, fmt.Errorf("the page was laid out %d px wide, not %d", out.Width, width)
	}
	return out.Problems, nil
}
