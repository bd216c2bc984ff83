package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/report"
)

var benchOps = []string{"put", "get", "stat", "delete", "list", "mixed"}

var opHelp = map[string]string{
	"put":    "Measure PUT: write new objects (one step per --concurrency value)",
	"get":    "Measure GET: prepare objects, then read them (whole, or --range-size)",
	"stat":   "Measure STAT (HEAD): prepare objects, then ask for their metadata",
	"delete": "Measure DELETE: prepare objects, then delete them",
	"list":   "Measure LIST: prepare objects, then list them (every page)",
	"mixed":  "Measure a mix of ops by weight (--mix get=45,put=15,...)",
}

func newOpCommand(env Env, op string) *cobra.Command {
	o := &benchOptions{}
	cmd := &cobra.Command{
		Use:   op + " [flags]",
		Short: opHelp[op],
		Example: fmt.Sprintf(`  objbench %[1]s                                  # embedded server, 10 s
  objbench %[1]s --endpoint-url http://127.0.0.1:9000 --bucket b --size 4MiB --concurrency 1,4,16 --duration 30s
  objbench %[1]s --target file:///mnt/nvme --size 1MiB --ops 10000`, op),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := o.parse(op)
			if err != nil {
				return err
			}
			return runBench(cmd.Context(), env, o, buildSpec(op, o, p))
		},
	}
	o.register(cmd.Flags(), op)
	return cmd
}

func newRunCommand(env Env) *cobra.Command {
	o := &benchOptions{}
	cmd := &cobra.Command{
		Use:   "run [flags]",
		Short: "Run the default mixed workload (PUT/GET/STAT/DELETE/LIST), on the embedded server if no endpoint is given",
		Example: `  objbench run
  objbench run --endpoint-url http://127.0.0.1:9000 --bucket b --duration 30s`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := o.parse("run")
			if err != nil {
				return err
			}
			return runBench(cmd.Context(), env, o, buildSpec("run", o, p))
		},
	}
	o.register(cmd.Flags(), "run")
	return cmd
}

func newReportCommand(env Env) *cobra.Command {
	var csvOut string
	cmd := &cobra.Command{
		Use:   "report RESULT.json",
		Short: "Print a result file's tables again (from the file alone)",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			res, err := report.Read(args[0])
			if err != nil {
				return usageError{err}
			}
			if csvOut != "" {
				return writeCSVFile(csvOut, res)
			}
			return report.WriteTable(env.Stdout, res)
		},
	}
	cmd.Flags().StringVar(&csvOut, "csv", "", "write the table as CSV to this file instead")
	return cmd
}
