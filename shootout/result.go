package shootout

import (
	"slices"
	"strings"
	"time"
)

// Schema names the layout of the JSON result.
const Schema = "objbench-tools/1"

// Result is a whole shoot-out.
type Result struct {
	Schema   string `json:"schema"`
	RunID    string `json:"run_id"`
	Endpoint string `json:"endpoint"`
	Bucket   string `json:"bucket"`
	Prefix   string `json:"prefix"` // every run uploaded below it
	Repeat   int    `json:"repeat"`
	// Scaling is "fixed" (a file set is the total, whatever the threads)
	// or "weak" (each thread its own copy of the file set).
	Scaling string    `json:"scaling"`
	Started time.Time `json:"started"`
	WallS   float64   `json:"wall_s"`
	Tools   []Tool    `json:"tools"`
	Cells   []*Cell   `json:"cells"`
}

// Tool is one profile as it was found.
type Tool struct {
	Name     string `json:"name"`
	Version  string `json:"version,omitempty"`
	Path     string `json:"path,omitempty"`     // the program that ran
	Template string `json:"template,omitempty"` // custom profiles
	Note     string `json:"note,omitempty"`
	Skipped  string `json:"skipped,omitempty"` // why it did not run (not installed...)
	// Checksums is what the tool computed over an upload, as measured
	// (ProbeChecksums): "crc32 trailer (aws-chunked)", "none"...
	Checksums string `json:"checksums,omitempty"`
}

// Cell is one tool at one thread count on one file set, over its repeats.
type Cell struct {
	Tool       string `json:"tool"`
	Set        string `json:"file_set"` // as given, e.g. 32x128MiB
	Threads    int    `json:"threads"`
	Files      int    `json:"files"`
	FileSize   int64  `json:"file_size"`
	TotalBytes int64  `json:"total_bytes"` // the dataset's
	// OK: every run transferred everything (verified by listing).
	OK bool `json:"ok"`
	// Over the verified runs: the median, and the extremes.
	Duration Stat      `json:"duration_s"`
	Speed    Stat      `json:"speed_mib_s"` // TotalBytes / duration
	CPU      Stat      `json:"cpu_s"`       // user + sys of the tool's process (and its waited-for children)
	Runs     []Attempt `json:"runs"`
}

// Stat is a median with the smallest and largest value.
type Stat struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

// Attempt is one run of one tool.
type Attempt struct {
	Rep          int      `json:"rep"`
	Prefix       string   `json:"prefix"`
	Command      []string `json:"command,omitempty"` // argv (credentials are never in it: they go in the environment or a config file)
	DurationS    float64  `json:"duration_s"`
	CPUUserS     float64  `json:"cpu_user_s"`
	CPUSysS      float64  `json:"cpu_sys_s"`
	ExitCode     int      `json:"exit_code"`
	Objects      int64    `json:"objects"` // listed under Prefix after the run
	Bytes        int64    `json:"bytes"`
	Verified     bool     `json:"verified"`
	Error        string   `json:"error,omitempty"`
	Stderr       string   `json:"stderr_tail,omitempty"` // of a failed run, credentials scrubbed
	CleanupError string   `json:"cleanup_error,omitempty"`
}

// Ran lists the tools with at least one verified run, in order.
func (r *Result) Ran() []string {
	var out []string
	for _, t := range r.Tools {
		for _, c := range r.Cells {
			if c.Tool == t.Name && slices.ContainsFunc(c.Runs, func(a Attempt) bool { return a.Verified }) {
				out = append(out, t.Name)
				break
			}
		}
	}
	return out
}

// Shortfall says why the shoot-out compared nothing, or "" when it did:
// of several tools, fewer than two transferred anything; of one, none.
func (r *Result) Shortfall() string {
	ran := r.Ran()
	var missing []string
	for _, t := range r.Tools {
		if !slices.Contains(ran, t.Name) {
			missing = append(missing, t.Name)
		}
	}
	why := "skipped or failed: " + strings.Join(missing, ", ") + "; the notes under the table say why"
	switch {
	case len(ran) == 0:
		return "no tool ran (" + why + ")"
	case len(r.Tools) > 1 && len(ran) < 2:
		return "nothing to compare: only " + ran[0] + " ran (" + why + ")"
	}
	return ""
}

// CPUS is the run's CPU seconds, user + sys.
func (r Attempt) CPUS() float64 { return r.CPUUserS + r.CPUSysS }

// summarize recomputes the cell's statistics from its runs.
func (c *Cell) summarize() {
	var dur, speed, cpu []float64
	c.OK = len(c.Runs) > 0
	for _, r := range c.Runs {
		if !r.Verified {
			c.OK = false
			continue
		}
		dur = append(dur, r.DurationS)
		cpu = append(cpu, r.CPUS())
		if r.DurationS > 0 {
			speed = append(speed, float64(c.TotalBytes)/(1<<20)/r.DurationS)
		}
	}
	c.Duration, c.Speed, c.CPU = stat(dur), stat(speed), stat(cpu)
}

func stat(v []float64) Stat {
	if len(v) == 0 {
		return Stat{}
	}
	s := slices.Clone(v)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return Stat{Median: m, Min: s[0], Max: s[len(s)-1]}
}
