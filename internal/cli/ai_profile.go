package cli

import (
	"context"
	"slices"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/objbench/objbench/workload"
)

// runProfile runs a workload file that names a profile instead of stages
// (profile: kind: ai train, and its options): the profile's command with
// those options, on the target, output and workers the run command's
// flags and the file's storage give.
func runProfile(ctx context.Context, env Env, b *benchOptions, f *fileOptions, sp workload.Spec) error {
	pr := sp.Profile
	if f.scale != 1 || f.capRuntime > 0 || f.dataset != "" || f.incompressible || f.cosbenchKeys {
		return usagef("%s: a profile's options size it: --scale, --cap-runtime, --dataset, --incompressible and --cosbench-keys do not apply", pr.Pos)
	}
	var cmd *cobra.Command
	var ao *aiOptions
	switch pr.Kind {
	case "ai train":
		o := &aiTrainOptions{}
		cmd, ao = aiCommandTrain(env, o), &o.ai
	case "ai checkpoint":
		o := &aiCheckpointOptions{}
		cmd, ao = aiCommandCheckpoint(env, o), &o.ai
	case "ai lake":
		o := &aiLakeOptions{}
		cmd, ao = aiCommandLake(env, o), &o.ai
	default:
		return usagef("%s: profile kind %q: want one of ai train, ai checkpoint, ai lake", pr.Pos, pr.Kind)
	}
	shared := pflag.NewFlagSet("shared", pflag.ContinueOnError)
	(&aiOptions{}).register(shared)
	names := make([]string, 0, len(pr.Options))
	for k := range pr.Options {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		if shared.Lookup(k) != nil && k != "verify" {
			return usagef("%s: profile option %q: where to run and what to write come from the command line and the file's storage, not the profile", pr.Pos, k)
		}
		if cmd.Flags().Lookup(k) == nil {
			return usagef("%s: profile option %q: objbench %s has no --%s", pr.Pos, k, pr.Kind, k)
		}
		if err := cmd.Flags().Set(k, pr.Options[k]); err != nil {
			return usagef("%s: profile option %s: %v", pr.Pos, k, err)
		}
	}
	ao.bench, ao.dryRun = *b, f.dryRun
	cmd.SetContext(ctx)
	return cmd.RunE(cmd, nil)
}
