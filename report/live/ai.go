package live

import (
	"github.com/objbench/objbench/report"
	"github.com/objbench/objbench/result"
)

// aiFigures are an AI run's figures of the steps done so far: their lines
// for the page, and the gauges /metrics exposes.
type aiFigures struct {
	lines []string
	au    []stageValue // training: the AU that decides, per step
	ckpt  []stageValue // checkpoints: seconds, per step
}

type stageValue struct {
	stage string
	v     float64
}

// StepDone takes a step once it is recorded (loadgen.Config.StepDone):
// its AI figures, if any, go out with the next event and into /metrics.
func (v *View) StepDone(s result.Step) {
	line := report.AIStepLine(&s)
	if line == "" {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.ai.lines = append(v.ai.lines, s.Stage+": "+line)
	for i := range s.Training {
		t := &s.Training[i]
		v.ai.au = append(v.ai.au, stageValue{s.Stage, t.AUJudged()})
	}
	if c := s.Checkpoint; c != nil {
		v.ai.ckpt = append(v.ai.ckpt, stageValue{s.Stage, c.Duration().Seconds()})
	}
}
