package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/oplog"
	"github.com/objbench/objbench/report"
	"github.com/objbench/objbench/result"
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
  objbench %[1]s --endpoint-url http://127.0.0.1:9000 --bucket bench --size 4MiB --concurrency 1,4,16 --duration 30s
  objbench %[1]s --target file:///mnt/nvme --size 1MiB --ops 10000`, op),
		Args: noArgs(),
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
	f := &fileOptions{}
	cmd := &cobra.Command{
		Use:   "run [flags] [WORKLOAD.yaml | COSBENCH.xml]",
		Short: "Run a workload file (YAML or COSBench XML), or the default mixed workload, on the embedded server if no endpoint is given",
		Long: `Run a workload file, or with none the default mixed workload (PUT, GET,
STAT, DELETE, LIST).

A workload file is YAML (stages of streams with op ratios, key spaces,
sizes and sweeps; see examples/) or a COSBench workload XML, run as it is:
its storage endpoint and keys are used unless flags such as --endpoint-url
say otherwise. Everything the run writes lives under objbench/RUN-ID/ in
its buckets; buckets are created only when missing and removed only when
this run created them.`,
		Example: `  objbench run
  objbench run --endpoint-url http://127.0.0.1:9000 --bucket bench --duration 30s
  objbench run examples/cosbench-80-20.yaml
  objbench run --dry-run s3-config-sample.xml
  objbench run --scale 0.01 --endpoint-url http://127.0.0.1:9000 s3-config-sample.xml
  objbench run --cap-runtime 10s --endpoint-url http://127.0.0.1:9000 s3-config-sample.xml`,
		Args: positional(0, 1, "one workload file at most"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWorkload(cmd.Context(), env, o, f, cmd.Flags(), args)
		},
	}
	o.register(cmd.Flags(), "run")
	f.register(cmd.Flags())
	return cmd
}

func newReportCommand(env Env) *cobra.Command {
	var csvOut, hdrLog, htmlOut, opLog string
	var timeline, noColor, asJSON bool
	cmd := &cobra.Command{
		Use:   "report RESULT.json | report --op-log OPS.jsonl",
		Short: "Print a result file's tables again (from the file alone), or rebuild them from an op log",
		Example: `  objbench report objbench-results/RUN-ID.json
  objbench report --html run.html objbench-results/RUN-ID.json
  objbench report --op-log ops.jsonl.zst     # the tables of the run that wrote it (--op-log)`,
		Args: func(cmd *cobra.Command, args []string) error {
			if opLog != "" {
				return positional(0, 0, "no result file with --op-log")(cmd, args)
			}
			return positional(1, 1, "a result file")(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutputs(output{flag: "--csv", path: csvOut}, output{flag: "--html", path: htmlOut},
				output{flag: "--hdr-log", path: hdrLog, dir: true}); err != nil {
				return err
			}
			var res *result.Run
			var err error
			if opLog != "" {
				res, err = oplog.Rebuild(opLog)
			} else {
				res, err = result.ReadContext(cmd.Context(), args[0])
			}
			if cmd.Context().Err() != nil {
				return errInterrupted // the first signal: nothing more to say
			}
			if err != nil {
				return inputError{err}
			}
			if hdrLog != "" {
				if err := writeHDRLogs(hdrLog, res); err != nil {
					return err
				}
			}
			if htmlOut != "" {
				if err := writeHTMLFile(htmlOut, res); err != nil {
					return err
				}
			}
			switch {
			case asJSON:
				return report.WriteJSON(env.Stdout, res)
			case csvOut != "":
				return writeCSVFile(csvOut, res)
			case timeline:
				return report.WriteTimeline(env.Stdout, res, report.TimelineStyle{Color: useColor(env, noColor)})
			}
			return report.WriteTable(env.Stdout, res)
		},
	}
	cmd.Flags().StringVar(&csvOut, "csv", "", "write the table as CSV to this file instead")
	cmd.Flags().BoolVar(&timeline, "timeline", false, "print the per-second system timeline (CPU, disk, net, ops) and the verdict")
	cmd.Flags().BoolVar(&noColor, "no-color", false, "no colours (also: NO_COLOR set, or output not a terminal)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the totals (no per-second records) as JSON instead")
	cmd.Flags().StringVar(&htmlOut, "html", "", "also write the report as one self-contained HTML page with charts (opens offline)")
	cmd.Flags().StringVar(&opLog, "op-log", "", "rebuild the tables from this op log (written by --op-log) instead of a result file")
	cmd.Flags().StringVar(&hdrLog, "hdr-log", "", "also write one HdrHistogram interval log per op (DIR/OP.hlog, microseconds)")
	return cmd
}
