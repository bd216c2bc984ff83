package cli

import (
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/profiles/ai"
	"github.com/objbench/objbench/sysmon"
	"github.com/objbench/objbench/units"
)

type aiTrainOptions struct {
	ai                     aiOptions
	model, accelerator     string
	accelerators, epochs   int
	generate               bool
	datasetSize, dataset   string
	findMax                bool
	maxAccels, roundSteps  int
	maxTime, compute       time.Duration
	batch, threads, prefch int
	genWorkers             int
	seed                   uint64
}

// aiCommandTrain is the command that runs with o (a workload file's profile
// sets its options through the command's flags).
func aiCommandTrain(env Env, o *aiTrainOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "train [flags]",
		Short: "Emulate a training job's reads: accelerator utilisation per epoch, or the most accelerators the store feeds (--find-max)",
		Long: `Emulate the data loading of a training job as DLIO (MLPerf Storage's
emulator) does, with the parameters of the model and accelerator its
configuration files give (objbench ai models lists them): each emulated
accelerator has its own loader, whose read threads each build whole
batches, asking for batches ahead (PyTorch's prefetch); the accelerator
waits for each batch, computes (sleeps) the model's time per batch, and
meets the other accelerators of this process at a barrier (DLIO's
emulated all-reduce). Each epoch every accelerator reads its shard of a
seeded shuffle of the data set: one sample per object (npz, jpeg) is a
GET of the object; samples inside larger objects (tfrecord) are ranged
GETs. Parquet data sets (flux and dlrm on b200 and mi355) are read in
file order, as DLIO's S3 Parquet reader reads them: each read thread
opens a file with ranged GETs of its end (the footer), then fetches each
row group it needs once per epoch, as one ranged GET of the span of the
columns the configuration reads. What differs from DLIO (the footer's
size is estimated; no HEAD before the first read) is in docs/ai.md.

The parameters are MLPerf Storage v3.0's (mlcommons/storage
configs/dlio/workload, each entry naming its file and commit) for h100,
a100, b200 and mi355, and DLIO's for v100. objbench ai models lists them.

Accelerator utilisation (AU) is DLIO's: the computation time of every
step but the first over the epoch's wall time less the first step, per
accelerator; the epoch's AU is their mean. MLPerf Storage passes a run
whose AU stays at or above the model's target (90%; retinanet 85%, flux
on h100 and a100 80%, cosmoflow and dlrm 70%).

The data set lives in the store under objbench/data/NAME/ and is kept:
--generate writes it (streamed from the payload generator), later runs
read it. --dataset-size shrinks it for a trial (or "mlperf": MLPerf's
rule of 5x the client's memory and 500 steps an epoch); the report warns
when it is smaller than 5x this client's memory.

--find-max searches the most accelerators the store keeps at the AU
target from this client: rounds of --round-steps batches, the count
doubled while AU holds, then halved back to the edge.`,
		Example: `  objbench ai train --generate --dataset-size 2GB --accelerators 2 --epochs 2          # embedded server
  objbench ai train --model unet3d --accelerator h100 --accelerators 8 --generate \
      --endpoint-url http://10.0.0.5:9000 --bucket train
  objbench ai train --model unet3d --accelerator b200 --find-max --endpoint-url http://10.0.0.5:9000 --bucket train
  objbench ai train --model dlrm --accelerator b200 --accelerators 4 --dry-run
  objbench ai train --model retinanet --accelerator mi355 --accelerators 2 --dataset-size 5GB --generate
  mpirun -np 4 objbench ai train --worker auto --accelerators 32 --endpoint-url http://10.0.0.5:9000 --bucket train`,
		Args: noArgs(),
		RunE: func(cmd *cobra.Command, _ []string) error { return runAITrain(cmd, env, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.model, "model", "unet3d", "training model: "+strings.Join(ai.Models(), ", "))
	f.StringVar(&o.accelerator, "accelerator", "h100", "emulated accelerator: "+strings.Join(ai.Accelerators(), ", ")+" (as the model's sources give them; any other name needs --compute-time)")
	f.IntVar(&o.accelerators, "accelerators", 1, "emulated accelerators, in all workers (with --find-max: the first count tried)")
	f.IntVar(&o.epochs, "epochs", 0, "epochs (default: the model's, 5)")
	f.BoolVar(&o.generate, "generate", false, "write the data set first (default on the embedded server, which starts empty)")
	f.StringVar(&o.datasetSize, "dataset-size", "", "the data set's size (2GB, 500GiB; default: the model's file count), or mlperf: "+
		"5x this client's memory times the workers, and 500 steps an epoch")
	f.StringVar(&o.dataset, "dataset", "", "the data set's name (default ai-MODEL-NUMBERf)")
	f.BoolVar(&o.findMax, "find-max", false, "search the most accelerators that keep the AU target")
	f.IntVar(&o.maxAccels, "max-accelerators", 64, "with --find-max: the most accelerators to try")
	f.IntVar(&o.roundSteps, "round-steps", ai.DefaultRoundSteps, "with --find-max: batches each accelerator computes a round")
	f.DurationVar(&o.maxTime, "max-time", 0, "bound each epoch (with --find-max: the search, default 30m); 0: none")
	f.DurationVar(&o.compute, "compute-time", 0, "computation time per batch (default: the model's on the accelerator)")
	f.IntVar(&o.batch, "batch-size", 0, "samples per batch (default: the model's)")
	f.IntVar(&o.threads, "read-threads", 0, "read threads per accelerator (default: the model's)")
	f.IntVar(&o.prefch, "prefetch", 0, "DLIO's prefetch_size (default 2): batches asked for ahead are threads x ceil(prefetch / threads)")
	f.IntVar(&o.genWorkers, "generate-workers", 16, "with --generate: uploads at once, in all workers")
	f.Uint64Var(&o.seed, "seed", 0, "shuffle seed (default DLIO's, 123)")
	o.ai.register(f)
	return cmd
}

func runAITrain(cmd *cobra.Command, env Env, o *aiTrainOptions) error {
	w, err := o.workload(cmd)
	if err != nil {
		return err
	}
	wk, err := o.ai.worker(env)
	if err != nil {
		return err
	}
	files, err := o.files(w, wk.N())
	if err != nil {
		return err
	}
	generate := o.ai.generate(env, o.generate, "the data set")
	c := ai.TrainConfig{Workload: w, Files: files, Dataset: o.dataset, Accelerators: o.accelerators, Epochs: o.epochs,
		Generate: generate, GenerateWorkers: o.genWorkers, Seed: o.seed, Worker: wk, MaxTime: o.maxTime, Verify: o.ai.verify}
	if o.findMax {
		c.FindMax = &ai.FindMax{Start: o.accelerators, Max: o.maxAccels, RoundSteps: o.roundSteps}
	}
	p, err := ai.Train(c)
	if err != nil {
		return usageError{err}
	}
	return runAI(cmd.Context(), env, &o.ai, p)
}

// workload is the catalog's entry with the flags' changes.
func (o *aiTrainOptions) workload(cmd *cobra.Command) (ai.Workload, error) {
	if o.compute < 0 || o.batch < 0 || o.threads < 0 || o.prefch < 0 || o.epochs < 0 || o.genWorkers < 1 {
		return ai.Workload{}, usagef("--compute-time, --batch-size, --read-threads, --prefetch and --epochs must not be negative, --generate-workers at least 1")
	}
	w, err := ai.Lookup(o.model, o.accelerator)
	if err != nil {
		if o.compute == 0 {
			return w, usagef("--model/--accelerator: %v (--compute-time)", err)
		}
		if w, err = ai.Lookup(o.model, "h100"); err != nil {
			return w, usagef("--model: %v", err)
		}
		w.Accelerator = strings.ToLower(o.accelerator)
		w.Source += "; computation time from --compute-time"
	}
	changed := cmd.Flags().Changed
	if changed("compute-time") {
		w.Compute = o.compute
	}
	if o.batch > 0 {
		w.BatchSize = o.batch
	}
	if o.threads > 0 {
		w.ReadThreads = o.threads
	}
	if o.prefch > 0 {
		w.Prefetch = o.prefch
	}
	return w, nil
}

// files is the data set's file count --dataset-size asks for (0: the
// model's); MLPerf's rule (mlpstorage rules.py,
// calculate_training_data_size) takes 5x the memory of the clients
// (this one's, times the workers) and 500 steps an epoch.
func (o *aiTrainOptions) files(w ai.Workload, workers int) (int64, error) {
	switch o.datasetSize {
	case "":
		return 0, nil
	case "mlperf":
		mem := int64(sysmon.ReadMachine().MemoryBytes) * int64(workers)
		if mem <= 0 {
			return 0, inputf("--dataset-size mlperf: this machine's memory is unknown; give a size")
		}
		bySize := 5 * mem / w.FileBytes()
		bySteps := 500 * int64(o.accelerators) * int64(w.BatchSize) / int64(w.SamplesPerFile)
		return max(bySize, bySteps, 1), nil
	}
	size, err := units.ParseSize(o.datasetSize)
	if err != nil || size <= 0 {
		return 0, usagef("--dataset-size %q: want a size (2GB, 500GiB) or mlperf", o.datasetSize)
	}
	return max(size/w.FileBytes(), 1), nil
}
