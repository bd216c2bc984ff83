package clidoc

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/objbench/objbench/internal/cli"
)

// The directories, relative to the repository root, that hold the
// generated reference. Generate owns them: files there that it does not
// write are removed by Write.
const (
	MarkdownDir = "docs/cli"
	ManDir      = "docs/man"
)

// Refresh is the command, run from the repository root, that rewrites the
// reference.
const Refresh = "go generate ./internal/clidoc"

// manDate is the date every man page carries. A fixed date keeps the pages
// the same bytes on every machine and day (cobra would take today's).
var manDate = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// Generate renders the reference of every available command: the paths
// (relative to the repository root, slash-separated) and their contents.
func Generate() (map[string][]byte, error) {
	root := cli.Command(cli.Env{
		Stdout: io.Discard,
		Stderr: io.Discard,
		Getenv: func(string) string { return "" },
	})
	root.DisableAutoGenTag = true
	// What cobra adds when the command line runs, so the reference shows
	// what the binary offers.
	root.InitDefaultVersionFlag()
	root.InitDefaultCompletionCmd()
	files := map[string][]byte{}
	var walk func(c *cobra.Command) error
	walk = func(c *cobra.Command) error {
		c.DisableAutoGenTag = true
		for _, sub := range c.Commands() {
			if !sub.IsAvailableCommand() || sub.IsAdditionalHelpTopicCommand() {
				continue
			}
			if err := walk(sub); err != nil {
				return err
			}
		}
		var md bytes.Buffer
		if err := doc.GenMarkdownCustom(c, &md, func(s string) string { return s }); err != nil {
			return fmt.Errorf("markdown of %q: %w", c.CommandPath(), err)
		}
		files[MarkdownDir+"/"+strings.ReplaceAll(c.CommandPath(), " ", "_")+".md"] = md.Bytes()
		var man bytes.Buffer
		date := manDate
		header := &doc.GenManHeader{Title: strings.ToUpper(strings.ReplaceAll(c.CommandPath(), " ", "-")),
			Section: "1", Date: &date, Source: "objbench", Manual: "objbench manual"}
		if err := doc.GenMan(c, header, &man); err != nil {
			return fmt.Errorf("man page of %q: %w", c.CommandPath(), err)
		}
		files[ManDir+"/"+strings.ReplaceAll(c.CommandPath(), " ", "-")+".1"] = man.Bytes()
		return nil
	}
	if err := walk(root); err != nil {
		return nil, err
	}
	return files, nil
}

// Write generates the reference into the repository at root: it writes
// every page and removes the pages of commands that no longer exist.
func Write(root string) error {
	files, err := Generate()
	if err != nil {
		return err
	}
	for _, dir := range []string{MarkdownDir, ManDir} {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			return err
		}
		old, err := listDir(root, dir)
		if err != nil {
			return err
		}
		for _, p := range old {
			if _, keep := files[p]; !keep {
				if err := os.Remove(filepath.Join(root, p)); err != nil {
					return err
				}
			}
		}
	}
	for _, p := range sortedKeys(files) {
		if err := os.WriteFile(filepath.Join(root, p), files[p], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Stale compares the reference at root with what Generate makes now and
// lists each difference: a page missing, one left over from a command that
// is gone, one whose text differs. Empty when the reference is current.
func Stale(root string) ([]string, error) {
	files, err := Generate()
	if err != nil {
		return nil, err
	}
	var problems []string
	onDisk := map[string]bool{}
	for _, dir := range []string{MarkdownDir, ManDir} {
		have, err := listDir(root, dir)
		if err != nil {
			return nil, err
		}
		for _, p := range have {
			onDisk[p] = true
			if _, ok := files[p]; !ok {
				problems = append(problems, p+": no such command any more")
			}
		}
	}
	for _, p := range sortedKeys(files) {
		if !onDisk[p] {
			problems = append(problems, p+": missing")
			continue
		}
		got, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(got, files[p]) {
			problems = append(problems, p+": differs from the command's help ("+firstDiff(got, files[p])+")")
		}
	}
	sort.Strings(problems)
	return problems, nil
}

// listDir lists the generated pages (*.md, *.1) in dir under root, as
// slash-separated paths relative to root; a missing dir is empty.
func listDir(root, dir string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(root, dir))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.Type().IsRegular() && (strings.HasSuffix(e.Name(), ".md") || strings.HasSuffix(e.Name(), ".1")) {
			out = append(out, dir+"/"+e.Name())
		}
	}
	return out, nil
}

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// firstDiff names the first line where the committed page and the fresh
// one part.
func firstDiff(committed, fresh []byte) string {
	a := strings.Split(string(committed), "\n")
	b := strings.Split(string(fresh), "\n")
	for i := 0; i < len(a) || i < len(b); i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return fmt.Sprintf("line %d: committed %q, commands say %q", i+1, x, y)
		}
	}
	return "same lines, other bytes"
}
