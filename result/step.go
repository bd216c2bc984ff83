package result

import (
	"fmt"
	"strconv"
	"time"
)

// Stage kinds, as the workload package names them.
const (
	KindInit    = "init"
	KindPrepare = "prepare"
	KindMain    = "main"
	KindCleanup = "cleanup"
	KindDispose = "dispose"
	KindDelay   = "delay"
)

// Step is one step of a run: a stage with one sweep value.
type Step struct {
	Stage string `json:"stage"`
	Kind  string `json:"kind"`
	Step  int    `json:"step"`
	// Repetition numbers the step's runs (1..N) when each main step was
	// run N times (--repeat N); 0 when it ran once. Compare takes the
	// repetitions as its samples.
	Repetition int `json:"repetition,omitempty"`
	// Sweep names the step's swept values other than concurrency.
	Sweep   string        `json:"sweep,omitempty"`
	Start   time.Time     `json:"start"`
	Elapsed time.Duration `json:"elapsed_ns"`
	// Synced is the part of Elapsed spent flushing the file system after
	// the ops (fsync at-end).
	Synced  time.Duration `json:"synced_ns,omitempty"`
	Streams []Stream      `json:"streams"`
	// The process's CPU time during the step and, for network stores,
	// connections dialed vs requests sent.
	CPUUser     time.Duration `json:"cpu_user_ns"`
	CPUSys      time.Duration `json:"cpu_sys_ns"`
	ConnsDialed uint64        `json:"conns_dialed"`
	Requests    uint64        `json:"requests"`
	// Connections breaks the step's connections down (network stores).
	Connections *Connections `json:"connections,omitempty"`
	// Notes say what a step did besides ops: buckets created or kept,
	// why the workflow stopped.
	Notes []string `json:"notes,omitempty"`
	// Transfer is a transfer's own figures (objbench transfer; version 4).
	Transfer *Transfer `json:"transfer,omitempty"`
	// Training, Checkpoint and Lake are an AI profile's own figures
	// (objbench ai; version 8): an epoch of emulated training (a --find-max
	// step holds one Training per round), one checkpoint saved or loaded,
	// a lakehouse scan.
	Training   []Training  `json:"training,omitempty"`
	Checkpoint *Checkpoint `json:"checkpoint,omitempty"`
	Lake       *Lake       `json:"lake,omitempty"`
	// FailedWorks names the streams (COSBench works) whose failed ops
	// exceeded their acceptable failure ratio, judged at the step's end:
	// the run failed, but the later stages ran.
	FailedWorks []string `json:"failed_works,omitempty"`
}

// Concurrency is the workers of all the step's streams.
func (s *Step) Concurrency() int {
	n := 0
	for _, st := range s.Streams {
		n += st.Concurrency
	}
	return n
}

// Stream is what one stream did in one step.
type Stream struct {
	Name        string `json:"name"`
	Concurrency int    `json:"concurrency"`
	// Open loop: the most workers the schedule could have (MaxWorkers)
	// and the most it had (PeakWorkers); Concurrency is those started at
	// once.
	MaxWorkers  int    `json:"max_workers,omitempty"`
	PeakWorkers int    `json:"peak_workers,omitempty"`
	StoppedBy   string `json:"stopped_by"`
	// Seconds are the stream's per-second records. A version-5 file
	// holds them packed (Packed); Decode unpacks them here.
	Seconds []Second `json:"seconds,omitempty"`
	// Packed carries Seconds in a version-5 file: base64 of the packed
	// form (internal/resultpack). Empty in memory after Decode.
	Packed string    `json:"seconds_packed,omitempty"`
	Window Window    `json:"window"`
	Totals []OpTotal `json:"totals"`
	// Outages are the periods the store could not be reached (version 3).
	Outages []Outage `json:"outages,omitempty"`
	// Phases is where each op's requests spent their time (network stores).
	Phases []OpPhases `json:"phases,omitempty"`
	// COSBench is each op's rates by COSBench's formula (version 10).
	COSBench []COSBenchRate `json:"cosbench,omitempty"`
}

// SetWindow gives the stream its window and recomputes its totals from
// its seconds, keeping ticks only at the window's edges.
func (s *Stream) SetWindow(w Window) error {
	KeepEdgeTicks(s.Seconds, w)
	totals, err := Summarize(s.Seconds, w)
	if err != nil {
		return fmt.Errorf("stream %s: %w", s.Name, err)
	}
	s.Window, s.Totals = w, totals
	return nil
}

// NameStreams tells apart the streams of the step that share a name (two
// COSBench works called "rw" in one workstage): the second and later
// become "rw#2", "rw#3"..., so every table, compare and merge keep them
// apart. Names already unique are left as they are.
func (s *Step) NameStreams() {
	taken := map[string]bool{}
	for _, st := range s.Streams {
		taken[st.Name] = true
	}
	seen := map[string]int{}
	for i := range s.Streams {
		name := s.Streams[i].Name
		seen[name]++
		if seen[name] == 1 {
			continue
		}
		for k := seen[name]; ; k++ {
			alt := name + "#" + strconv.Itoa(k)
			if !taken[alt] {
				s.Streams[i].Name, taken[alt] = alt, true
				break
			}
		}
	}
}
