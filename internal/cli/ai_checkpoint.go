package cli

import (
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/profiles/ai"
)

type aiCheckpointOptions struct {
	ai                   aiOptions
	model                string
	ranks, writes, reads int
	scale                float64
	interval             time.Duration
}

// aiCommandCheckpoint is the command that runs with o (a workload file's profile
// sets its options through the command's flags).
func aiCommandCheckpoint(env Env, o *aiCheckpointOptions) *cobra.Command {
	var names []string
	for _, m := range ai.LLMs() {
		names = append(names, m.Name)
	}
	cmd := &cobra.Command{
		Use:   "checkpoint [flags]",
		Short: "Save and load LLM checkpoints as MLPerf Storage's checkpointing does: duration, GiB/s, per-rank p50/p99, the slowest rank",
		Long: `Save checkpoints of a llama3 model, then load them back, as MLPerf Storage's
checkpointing (DLIO) does: the model's and optimizer's state sizes follow
from its parameters and data types (fp16 model, fp32 optimizer: three
copies), split across --ranks as Megatron-DeepSpeed splits them (tensor
and pipeline parallelism, ZeRO); each rank writes its objects one after
another (multipart uploads streamed from the payload generator, or files
flushed with fsync), --writes checkpoints, then reads --reads of them back
whole. No rank holds its shard in memory, whatever the checkpoint's size.

Each save and load is a step: its duration is until the slowest rank is
done. --scale shrinks every object for a trial run (the result says so).
The payload generator's speed per core is measured first and recorded, so
the report can say when the generator, not the store, set the pace.`,
		Example: `  objbench ai checkpoint --model llama3-8b --scale 0.001 --writes 2 --reads 2 --interval 0   # embedded server
  objbench ai checkpoint --model llama3-8b --ranks 8 --endpoint-url http://10.0.0.5:9000 --bucket ckpt
  objbench ai checkpoint --model llama3-70b --dry-run
  objbench ai checkpoint --model llama3-70b --target file:///mnt/nvme/ckpt`,
		Args: noArgs(),
		RunE: func(cmd *cobra.Command, _ []string) error { return runAICheckpoint(cmd, env, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.model, "model", "llama3-8b", "checkpointing model: "+strings.Join(names, ", "))
	f.IntVar(&o.ranks, "ranks", 0, "ranks, in all workers (default: MLPerf's CLOSED count: 8, 64, 512, 1024); a multiple of tensor x pipeline parallelism")
	f.IntVar(&o.writes, "writes", 10, "checkpoints to save")
	f.IntVar(&o.reads, "reads", 10, "checkpoints to load (of those saved)")
	f.Float64Var(&o.scale, "scale", 1, "multiply every object's size by this (0.001 for a trial run)")
	f.DurationVar(&o.interval, "interval", 5*time.Second, "computation before each save and load, untimed (MLPerf's time_between_checkpoints); 0: none")
	o.ai.register(f)
	return cmd
}

func runAICheckpoint(cmd *cobra.Command, env Env, o *aiCheckpointOptions) error {
	m, err := ai.LookupLLM(o.model)
	if err != nil {
		return usagef("--model: %v", err)
	}
	if o.writes < 1 || o.reads < 0 || o.interval < 0 || o.ranks < 0 {
		return usagef("--writes %d, --reads %d, --interval %v, --ranks %d: want at least one write, and none negative", o.writes, o.reads, o.interval, o.ranks)
	}
	wk, err := o.ai.worker(env)
	if err != nil {
		return err
	}
	c := ai.CheckpointConfig{Model: m, Ranks: o.ranks, Writes: o.writes, Reads: o.reads, Interval: o.interval, Scale: o.scale,
		Worker: wk, Verify: o.ai.verify}
	if c.Reads == 0 {
		c.Reads = -1
	}
	if c.Interval == 0 {
		c.Interval = -1
	}
	p, err := ai.Checkpoints(c)
	if err != nil {
		return usageError{err}
	}
	if !o.ai.dryRun {
		rate, err := ai.MeasureGenerator(512 << 20)
		if err != nil {
			return err
		}
		notes(env, o.ai.bench.quiet)("payload generator: %.2f GB/s per core", rate/1e9)
		c.GeneratorRate = rate
		if p, err = ai.Checkpoints(c); err != nil {
			return usageError{err}
		}
	}
	return runAI(cmd.Context(), env, &o.ai, p)
}
