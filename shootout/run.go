package shootout

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/objbench/objbench/storage"
)

//go:embed boto3_upload.py
var boto3Script []byte

//go:embed js_upload.cjs
var jsScript []byte

// cleanupTimeout bounds verifying and deleting one run's upload.
const cleanupTimeout = 5 * time.Minute

// Namespace is the prefix under which every run uploads; a run writes
// only below Namespace + RUN-ID + "/".
const Namespace = "objbench-tools/"

// Target is the store every tool uploads to.
type Target struct {
	Endpoint                           string // http(s)://HOST[:PORT]
	Bucket                             string
	Region                             string // default us-east-1
	AccessKey, SecretKey, SessionToken string
	CABundle                           string // PEM file for https endpoints (s3cmd's config)
	// Store is the bucket, opened by the caller: the harness lists it to
	// verify each run and deletes what a run put under its own prefix.
	Store storage.Store
}

func (t Target) region() string {
	if t.Region == "" {
		return "us-east-1"
	}
	return t.Region
}

// Config is one shoot-out.
type Config struct {
	Target   Target
	Tools    []*Profile
	FileSets []FileSet
	Threads  []int
	Repeat   int // runs per cell; the cell reports their median (default 1)
	// DataDir holds the datasets (one directory per file set, reused when
	// it already holds the right files); "" makes them in a temporary
	// directory removed afterwards.
	DataDir  string
	WorkDir  string   // where temporary files go ("" = the system's)
	Env      []string // the tools' base environment; AWS_* (but AWS_CA_BUNDLE) and RCLONE_* are removed from it
	Objbench string   // the objbench binary, for the objbench profile
	// RunTimeout bounds one run of one tool (default 30 minutes).
	RunTimeout time.Duration
	RunID      string // default: time and random
	Seed       uint64 // dataset payload seed (default 1)
	OnEvent    func(Event)
	// Checksum is the objbench profile's --checksum (ALG or ALG/trailer):
	// objbench computes what the other tools compute, for a CPU column
	// that compares like with like.
	Checksum string
	// ProbeChecksums measures what each tool computes over an upload
	// before the matrix (Tool.Checksums).
	ProbeChecksums bool
	// Weak makes each thread its own copy of a file set (weak scaling:
	// at t threads a run uploads t x COUNT files, as the seed's totals
	// grow with threads); otherwise a file set is the total whatever the
	// threads (fixed total, strong scaling).
	Weak bool
}

// EventKind says what an Event reports.
type EventKind int

// Events, in the order they happen.
const (
	EventSkip    EventKind = iota // a tool is not installed (Message says how to install it)
	EventData                     // a file set's dataset is ready (Message: made or reused)
	EventRunDone                  // a run finished (Run)
)

// Event is progress; OnEvent gets one at each step, in order.
type Event struct {
	Kind    EventKind
	Tool    string
	FileSet FileSet
	Threads int
	Rep     int
	Index   int // runs done so far, this one included
	Total   int // runs planned
	Run     *Attempt
	Message string
}

func (c *Config) validate() error {
	switch {
	case c.Target.Store == nil || c.Target.Bucket == "":
		return errors.New("shootout: no target store or bucket")
	case c.Target.Endpoint == "":
		return errors.New("shootout: the tools need an endpoint URL")
	case len(c.Tools) == 0 || len(c.FileSets) == 0 || len(c.Threads) == 0:
		return errors.New("shootout: need at least one tool, file set and thread count")
	case c.Repeat < 0 || c.Repeat > MaxRepeat:
		return fmt.Errorf("shootout: repeat %d is not within 1..%d", c.Repeat, MaxRepeat)
	}
	seen := map[string]bool{}
	for _, p := range c.Tools {
		if seen[p.Name] {
			return fmt.Errorf("shootout: tool %q given twice", p.Name)
		}
		seen[p.Name] = true
	}
	return nil
}

func (c *Config) defaults() {
	if c.Repeat == 0 {
		c.Repeat = 1
	}
	if c.RunTimeout <= 0 {
		c.RunTimeout = 30 * time.Minute
	}
	if c.RunID == "" {
		var b [3]byte
		_, _ = rand.Read(b[:])
		c.RunID = time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
}

func (c *Config) event(e Event) {
	if c.OnEvent != nil {
		c.OnEvent(e)
	}
}

// Run runs the shoot-out. It returns what it measured even when it stops
// early (the context ended): the error says why.
func Run(ctx context.Context, c Config) (*Result, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	c.defaults()
	work, err := os.MkdirTemp(c.WorkDir, "objbench-tools-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	h := &harness{c: &c, work: work, base: Namespace + c.RunID + "/",
		res: &Result{Schema: Schema, RunID: c.RunID, Endpoint: c.Target.Endpoint, Bucket: c.Target.Bucket,
			Repeat: c.Repeat, Scaling: "fixed", Started: time.Now().UTC()}}
	if c.Weak {
		h.res.Scaling = "weak"
	}
	h.res.Prefix = h.base
	h.script, h.jsScript = filepath.Join(work, "boto3_upload.py"), filepath.Join(work, "js_upload.cjs")
	if err := os.WriteFile(h.script, boto3Script, 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(h.jsScript, jsScript, 0o644); err != nil {
		return nil, err
	}
	if n, _, err := listPrefix(ctx, c.Target.Store, h.base); err != nil {
		return nil, fmt.Errorf("list s3://%s/%s: %w", c.Target.Bucket, h.base, err)
	} else if n > 0 {
		return nil, fmt.Errorf("s3://%s/%s already holds %d objects: refusing to use it", c.Target.Bucket, h.base, n)
	}
	h.probe(ctx)
	if c.ProbeChecksums {
		h.probeChecksums(ctx)
	}
	err = h.matrix(ctx)
	// Whatever a tool left beside its run's prefix (objbench's manifest
	// of a custom transfer template) is still in this run's namespace.
	after, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	if derr := deletePrefix(after, c.Target.Store, h.base); derr != nil {
		err = errors.Join(err, fmt.Errorf("delete what is left under %s: %w", h.base, derr))
	}
	h.res.WallS = time.Since(h.res.Started).Seconds()
	return h.res, err
}

// harness is one Run's state.
type harness struct {
	c        *Config
	work     string
	base     string // this run's namespace, Namespace + RunID + "/"
	script   string
	jsScript string
	tools    []*Profile // the installed ones
	res      *Result
}

// threadsOf is the thread counts tool p runs at.
func (h *harness) threadsOf(p *Profile) []int {
	if p.Threads > 0 {
		return []int{p.Threads}
	}
	return h.c.Threads
}

// matrix runs every cell: file set, then thread count, then repeat, then
// tool, so slow drift of the machine spreads over the tools alike.
func (h *harness) matrix(ctx context.Context) error {
	threads := slices.Clone(h.c.Threads)
	for _, p := range h.tools {
		if p.Threads > 0 && !slices.Contains(threads, p.Threads) {
			threads = append(threads, p.Threads)
		}
	}
	slices.Sort(threads)
	total := 0
	for _, p := range h.tools {
		total += len(h.threadsOf(p)) * len(h.c.FileSets) * h.c.Repeat
	}
	if h.c.Weak {
		defer os.RemoveAll(filepath.Join(h.work, "weak"))
	}
	cells := map[string]*Cell{}
	done := 0
	for _, fs := range h.c.FileSets {
		src, err := h.dataset(ctx, fs)
		if err != nil {
			return err
		}
		for _, t := range threads {
			run, runSrc := fs, src
			if h.c.Weak {
				if runSrc, err = h.weakDataset(src, fs, t); err != nil {
					return err
				}
				run.Count *= t
			}
			for rep := 1; rep <= h.c.Repeat; rep++ {
				for _, p := range h.tools {
					if !slices.Contains(h.threadsOf(p), t) {
						continue
					}
					key := p.Name + "/" + fs.Spec + "/" + strconv.Itoa(t)
					cell := cells[key]
					if cell == nil {
						cell = &Cell{Tool: p.Name, Set: fs.Spec, Threads: t, Files: run.Count, FileSize: fs.Size, TotalBytes: run.Bytes()}
						cells[key] = cell
						h.res.Cells = append(h.res.Cells, cell)
					}
					attempt := h.runOne(ctx, p, run, runSrc, t, rep)
					cell.Runs = append(cell.Runs, attempt)
					cell.summarize()
					done++
					h.c.event(Event{Kind: EventRunDone, Tool: p.Name, FileSet: run, Threads: t, Rep: rep,
						Index: done, Total: total, Run: &cell.Runs[len(cell.Runs)-1]})
					if err := ctx.Err(); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// runOne runs tool p once on the dataset in src, checks what arrived, and
// deletes it.
func (h *harness) runOne(ctx context.Context, p *Profile, fs FileSet, src string, threads, rep int) Attempt {
	prefix := fmt.Sprintf("%s%s/%s/t%d/r%d/", h.base, p.Name, strings.ToLower(fs.Spec), threads, rep)
	r := Attempt{Rep: rep, Prefix: prefix}
	st := h.c.Target.Store
	if n, _, err := listPrefix(ctx, st, prefix); err != nil || n > 0 {
		r.Error = fmt.Sprintf("prefix %s is not empty or cannot be listed (%v): not run", prefix, err)
		return r
	}
	scratch, err := os.MkdirTemp(h.work, "run-*")
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer os.RemoveAll(scratch) // config files with credentials
	job := Job{Src: src, Bucket: h.c.Target.Bucket, Prefix: prefix, Threads: threads, Files: fs.Count,
		Dir: scratch, Target: h.c.Target, Objbench: h.c.Objbench, Script: h.script, JSScript: h.jsScript, Checksum: h.c.Checksum}
	cmd, err := p.Command(job)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	if p.path != "" && len(cmd.Args) > 0 && cmd.Args[0] == p.Binary {
		cmd.Args[0] = p.path
	}
	r.Command = cmd.Args
	child := runChild(ctx, cmd, childEnv(h.c.Env, cmd), h.c.RunTimeout, h.secrets())
	r.DurationS, r.CPUUserS, r.CPUSysS = child.Wall.Seconds(), child.User.Seconds(), child.Sys.Seconds()
	r.ExitCode = child.ExitCode
	// Always look, even after a failure or an interrupt: a partial upload
	// is deleted too.
	after, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	objects, bytes, lerr := listPrefix(after, st, prefix)
	r.Objects, r.Bytes = objects, bytes
	switch {
	case child.Interrupted:
		r.Error = "interrupted"
	case child.TimedOut:
		r.Error = fmt.Sprintf("timed out after %v", h.c.RunTimeout)
	case child.Err != nil:
		r.Error = child.Err.Error()
	case lerr != nil:
		r.Error = "verify: " + lerr.Error()
	case objects != int64(fs.Count) || bytes != fs.Bytes():
		r.Error = fmt.Sprintf("verify: the prefix holds %d objects, %d bytes; want %d objects, %d bytes",
			objects, bytes, fs.Count, fs.Bytes())
	default:
		r.Verified = true
	}
	if !r.Verified {
		r.Stderr = child.Stderr
	}
	if err := deletePrefix(after, st, prefix); err != nil {
		r.CleanupError = err.Error()
	}
	return r
}

// secrets are the strings scrubbed from anything a tool says.
func (h *harness) secrets() []string {
	t := h.c.Target
	return []string{t.SecretKey, t.SessionToken, t.AccessKey}
}

// childEnv is base without the variables that configure S3 clients (the
// profile sets its own) and without cmd.Unset, plus cmd.Env.
func childEnv(base []string, cmd Command) []string {
	env := make([]string, 0, len(base)+len(cmd.Env))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		drop := (strings.HasPrefix(k, "AWS_") && k != "AWS_CA_BUNDLE") || strings.HasPrefix(k, "RCLONE_") ||
			slices.Contains(cmd.Unset, k)
		if !drop {
			env = append(env, kv)
		}
	}
	return append(env, cmd.Env...)
}

// listPrefix counts the objects and bytes under prefix.
func listPrefix(ctx context.Context, st storage.Store, prefix string) (objects, bytes int64, err error) {
	err = storage.ListUnder(ctx, st, prefix, func(o storage.ObjectInfo) error {
		objects++
		bytes += o.Size
		return nil
	})
	return objects, bytes, err
}

// deletePrefix deletes what a run put under its own prefix. The listing
// is checked, not trusted: one key outside the prefix and nothing is
// deleted (storage.ListUnder).
func deletePrefix(ctx context.Context, st storage.Store, prefix string) error {
	if !strings.HasPrefix(prefix, Namespace) || !strings.HasSuffix(prefix, "/") {
		return fmt.Errorf("refusing to delete under %q", prefix)
	}
	keys, err := storage.KeysUnder(ctx, st, prefix)
	if err != nil {
		return err
	}
	var errs []error
	for _, k := range keys {
		if err := st.Delete(ctx, k); err != nil && !errors.Is(err, storage.ErrNotFound) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
