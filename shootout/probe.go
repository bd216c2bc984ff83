package shootout

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/objbench/objbench/dataset"
)

// probeTimeout bounds a tool's version command.
const probeTimeout = 30 * time.Second

// probe finds each tool and asks its version; a tool that is missing, or
// whose version command fails, is skipped with a line saying how to
// install it.
func (h *harness) probe(ctx context.Context) {
	for _, p := range h.c.Tools {
		p := *p
		info := Tool{Name: p.Name, Template: p.Template, Note: p.Note}
		if p.Name == "objbench" && p.Template == "" {
			p.Binary = h.c.Objbench
			p.Version = []string{h.c.Objbench, "--version"}
		}
		path, err := exec.LookPath(p.Binary)
		if err != nil || p.Binary == "" {
			info.Skipped = fmt.Sprintf("%s is not installed (%s not found on PATH): %s", p.Name, p.Binary, p.Install)
		} else {
			p.path = unshim(ctx, path)
			info.Path = p.path
		}
		if info.Skipped == "" && len(p.Version) > 0 {
			argv := slices.Clone(p.Version)
			if argv[0] == p.Binary {
				argv[0] = p.path
			}
			v, err := version(ctx, argv, h.c.Env)
			if err != nil {
				info.Skipped = fmt.Sprintf("%s is not usable (%s: %v): %s", p.Name, p.Version[0], err, p.Install)
			}
			info.Version = v
		}
		h.res.Tools = append(h.res.Tools, info)
		if info.Skipped != "" {
			h.c.event(Event{Kind: EventSkip, Tool: p.Name, Message: info.Skipped})
			continue
		}
		h.tools = append(h.tools, &p)
	}
}

// unshim resolves a pyenv shim to the program it starts: the shim is a
// shell script that runs pyenv, which costs every run ~0.2 s of CPU and up
// to ~0.6 s of wall time that a plain install of the tool would not.
func unshim(ctx context.Context, path string) string {
	if filepath.Base(filepath.Dir(path)) != "shims" || !strings.Contains(path, "pyenv") {
		return path
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, "pyenv", "which", filepath.Base(path)).Output()
	if real := strings.TrimSpace(string(out)); err == nil && filepath.IsAbs(real) {
		return real
	}
	return path
}

// version runs argv and returns the first line it prints; when it fails,
// the error says why in one line (failureLine).
func version(ctx context.Context, argv []string, env []string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = childEnv(env, Command{})
	out, err := cmd.CombinedOutput()
	if err != nil {
		if why := failureLine(string(out)); why != "" {
			return "", fmt.Errorf("%v: %s", err, why)
		}
		return "", err
	}
	first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(first), nil
}

// failureLine is the line of a failed program's output that says why: the
// last line naming an error or exception (Python's traceback ends with
// "ModuleNotFoundError: No module named 'boto3'", node's stack starts
// after "Error: Cannot find module ..."), else the first line.
func failureLine(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		name, _, ok := strings.Cut(l, ": ")
		if ok && !strings.ContainsAny(name, " \t") && (strings.HasSuffix(name, "Error") || strings.HasSuffix(name, "Exception")) {
			return l
		}
	}
	return strings.TrimSpace(lines[0])
}

// dataset returns the directory holding file set fs: made once per Run
// (incompressible payload), or reused from DataDir when it already holds
// exactly the right files.
func (h *harness) dataset(ctx context.Context, fs FileSet) (string, error) {
	root := h.c.DataDir
	if root == "" {
		root = filepath.Join(h.work, "data")
	}
	dir := filepath.Join(root, strings.ToLower(fs.Spec))
	switch ok, err := holds(dir, fs); {
	case err != nil:
		return "", err
	case ok:
		h.c.event(Event{Kind: EventData, FileSet: fs, Message: "reusing " + dir})
		return dir, nil
	}
	if err := dataset.WriteFiles(ctx, dir, fs.Count, fs.Size, dataset.Options{Seed: h.c.Seed, Workers: 2}); err != nil {
		return "", fmt.Errorf("make the dataset %s: %w", fs.Spec, err)
	}
	h.c.event(Event{Kind: EventData, FileSet: fs, Message: "made " + dir})
	return dir, nil
}

// weakDataset is a directory of threads copies of fs's files in src
// (copy k of file-01 is c02-file-01): hard links, so a copy costs no
// disk, falling back to a copy of the bytes across file systems. Each
// copy is its own object once uploaded.
func (h *harness) weakDataset(src string, fs FileSet, threads int) (string, error) {
	dir := filepath.Join(h.work, "weak", strings.ToLower(fs.Spec), fmt.Sprintf("t%d", threads))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return "", err
	}
	width := len(strconv.Itoa(threads))
	for k := 1; k <= threads; k++ {
		for _, e := range entries {
			from, to := filepath.Join(src, e.Name()), filepath.Join(dir, fmt.Sprintf("c%0*d-%s", width, k, e.Name()))
			if _, err := os.Lstat(to); err == nil {
				continue
			}
			if err := os.Link(from, to); err != nil {
				if err := copyFile(from, to); err != nil {
					return "", fmt.Errorf("weak scaling: copy %d of %s: %w", k, e.Name(), err)
				}
			}
		}
	}
	return dir, nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}

// holds says whether dir holds exactly fs's files; a directory with
// anything else in it is an error (the tools upload whole directories).
func holds(dir string, fs FileSet) (bool, error) {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) || (err == nil && len(entries) == 0) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if len(entries) == fs.Count {
		ok := true
		for i, e := range entries {
			info, err := e.Info()
			if err != nil || e.Name() != dataset.Name(i, fs.Count) || !info.Mode().IsRegular() || info.Size() != fs.Size {
				ok = false
				break
			}
		}
		if ok {
			return true, nil
		}
	}
	return false, fmt.Errorf("%s holds something other than %d files of %d bytes: empty it or choose another (Config.DataDir)", dir, fs.Count, fs.Size)
}
