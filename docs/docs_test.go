// Package docs_test checks the manual against the repository: the
// architecture page names every package, and links between pages resolve.
package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

const repoRoot = ".."

// topLevelPackages lists what docs/architecture.md must name: every
// directory at the repository's root that holds Go files (at any depth:
// cmd for cmd/objbench), and every directory under internal/ that does.
func topLevelPackages(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || strings.HasPrefix(name, ".") || name == "testdata" {
			continue
		}
		if name == "internal" {
			sub, err := os.ReadDir(filepath.Join(repoRoot, name))
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range sub {
				if s.IsDir() && holdsGo(t, filepath.Join(repoRoot, name, s.Name())) {
					out = append(out, name+"/"+s.Name())
				}
			}
			continue
		}
		if holdsGo(t, filepath.Join(repoRoot, name)) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// holdsGo says whether dir or a directory below it holds a .go file
// (testdata and hidden directories aside, as the go command skips them).
func holdsGo(t *testing.T, dir string) bool {
	t.Helper()
	found := false
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != dir && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".go") {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// A package nobody has put on the map is a package a newcomer cannot
// find: each must have its own table row in docs/architecture.md.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	doc, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	pkgs := topLevelPackages(t)
	if len(pkgs) < 10 {
		t.Fatalf("found only %d packages (%v): is the test run from docs/?", len(pkgs), pkgs)
	}
	for _, p := range pkgs {
		row := regexp.MustCompile("(?m)^\\| `" + regexp.QuoteMeta(p) + "` \\|")
		if !row.Match(doc) {
			t.Errorf("docs/architecture.md has no row for %s: add a line \"| `%s` | what it is for |\" to its table of layers", p, p)
		}
	}
	// And no row names a directory that is gone.
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z0-9/_-]+)` \\|").FindAllSubmatch(doc, -1) {
		if fi, err := os.Stat(filepath.Join(repoRoot, string(m[1]))); err != nil || !fi.IsDir() {
			t.Errorf("docs/architecture.md has a row for %s, which is not a directory of the repository", m[1])
		}
	}
}

// linkPattern finds markdown links and images: [text](target).
var linkPattern = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// Every relative link in the README, CONTRIBUTING.md and the pages under
// docs/ must name a file or directory that exists: a page moved or removed
// must not leave links to it behind.
func TestRelativeLinksResolve(t *testing.T) {
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	pages := []string{filepath.Join(repoRoot, "README.md"), filepath.Join(repoRoot, "CONTRIBUTING.md"), filepath.Join(repoRoot, "bench", "README.md")}
	err = filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			pages = append(pages, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range pages {
		body, err := os.ReadFile(page)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range linkPattern.FindAllSubmatch(body, -1) {
			target := string(m[1])
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			target, anchor, _ := strings.Cut(target, "#")
			path := page
			if target != "" {
				path = filepath.Join(filepath.Dir(page), target)
			}
			abs, err := filepath.Abs(path)
			if err != nil {
				t.Fatal(err)
			}
			if rel, err := filepath.Rel(root, abs); err != nil || strings.HasPrefix(rel, "..") {
				t.Errorf("%s links to %s, outside the repository", page, m[1])
				continue
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s links to %s, which does not exist", page, m[1])
				continue
			}
			if anchor != "" && strings.HasSuffix(path, ".md") && !headingAnchors(t, path)[anchor] {
				t.Errorf("%s links to %s: %s has no heading with the anchor #%s", page, m[1], path, anchor)
			}
		}
	}
}

// headingAnchors lists the anchors GitHub gives a page's headings: lower
// case, punctuation dropped, spaces as hyphens, a repeated one numbered.
func headingAnchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			anchors[a+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors
}

// The README says which Go builds objbench: the go directive of go.mod,
// so that a newcomer with an older Go knows before the build fails.
func TestReadmeNamesTheGoVersion(t *testing.T) {
	mod, err := os.ReadFile(filepath.Join(repoRoot, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\d+)\.(\d+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod has no go directive")
	}
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := "Go " + string(m[1]) + "." + string(m[2]) + " or newer"
	if !strings.Contains(strings.Join(strings.Fields(string(readme)), " "), want) {
		t.Errorf("README.md does not say %q (go.mod's go directive)", want)
	}
}
