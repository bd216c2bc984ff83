package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/result"
)

// Exit codes.
const (
	ExitOK          = 0
	ExitFailure     = 1   // the run could not be done or failed its thresholds
	ExitUsage       = 2   // bad flags, arguments or input files
	ExitInterrupted = 130 // stopped by a signal; a partial result was written
)

// Version may be stamped at build time with -ldflags
// "-X github.com/objbench/objbench/internal/cli.Version=v1.2.3"; empty, the
// version is the module's as the go command recorded it in the binary
// (a release tag for go install, a pseudo-version of the commit for a
// build in a checkout).
var Version = ""

// tool is objbench as result files record it: its version and the commit
// it was built from (result.ToolFromBuild).
func tool() result.Tool { return result.ToolFromBuild("objbench", Version) }

// version is what objbench --version says: the version and the commit.
func version() string { return tool().String() }

// Env is everything a command may touch of the outside world, so tests can
// run commands in-process with their own arguments, output and environment.
type Env struct {
	Args   []string
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	// Last is what to say if a second interrupt ends the process at once
	// (Main); nil in tests.
	Last *LastWords
}

// OSEnv is the real process environment.
func OSEnv() Env {
	return Env{Args: os.Args[1:], Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Last: &LastWords{}}
}

// usageError marks a mistake in the command line itself: a flag or an
// argument missing, unknown, malformed or at odds with another (exit code
// 2, and a pointer to --help, which says how to write it).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// inputError marks bad input that --help would not fix: a file named on the
// command line that cannot be read or written or holds bad data (a corrupt
// result file, a workload with mistakes), or a value this machine cannot
// honour. Exit code 2, like a usage error, but no pointer to --help.
type inputError struct{ err error }

func (e inputError) Error() string { return e.err.Error() }
func (e inputError) Unwrap() error { return e.err }

func inputf(format string, a ...any) error { return inputError{fmt.Errorf(format, a...)} }

// errInterrupted is returned when a signal cut the run short.
var errInterrupted = errors.New("interrupted")

// Execute runs the command line in env and returns the process exit code.
func Execute(ctx context.Context, env Env) int {
	root := newRootCommand(env)
	root.SetArgs(env.Args)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	err := inFlagWords(root.ExecuteContext(ctx))
	var ue usageError
	var ie inputError
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, errInterrupted):
		fmt.Fprintln(env.Stderr, "objbench: interrupted; partial result written")
		return ExitInterrupted
	case errors.As(err, &ue) || isCobraUsage(err):
		fmt.Fprintf(env.Stderr, "objbench: %v\nRun '%s --help' for usage.\n", err, helpPath(root, env.Args))
		return ExitUsage
	case errors.As(err, &ie):
		fmt.Fprintf(env.Stderr, "objbench: %v\n", err)
		return ExitUsage
	default:
		fmt.Fprintf(env.Stderr, "objbench: %v\n", err)
		return ExitFailure
	}
}

// Command is objbench's command tree for env, for programs that walk it
// (the generated reference: internal/clidoc).
func Command(env Env) *cobra.Command { return newRootCommand(env) }

// libraryWords are the options library errors name, and the flags that
// set them.
var libraryWords = strings.NewReplacer("(Options.Force replaces it)", "(use --force to replace it)",
	"choose another (Config.DataDir)", "choose another --data-dir", "write it first (Generate)", "write it first with --generate",
	"(Generate writes it again)", "(--generate writes it again)")

// reworded is an error in the flags' words, still the error it was
// (errors.As finds usage and input errors through it).
type reworded struct {
	err  error
	text string
}

func (r reworded) Error() string { return r.text }
func (r reworded) Unwrap() error { return r.err }

// inFlagWords says err with the flags that set the options a library
// error names.
func inFlagWords(err error) error {
	if err == nil {
		return nil
	}
	if t := libraryWords.Replace(err.Error()); t != err.Error() {
		return reworded{err, t}
	}
	return err
}

func newRootCommand(env Env) *cobra.Command {
	root := &cobra.Command{
		Use:   "objbench",
		Short: "Measure object storage (S3) and file systems: speed, latency tails, and whether to trust the numbers",
		Long: `objbench measures S3-compatible object storage and file systems.

With no endpoint it starts an embedded S3 server on 127.0.0.1, so
'objbench run' works out of the box. Point it at a real store with
--endpoint-url and --bucket (credentials as the aws CLI finds them), or at
a directory with --target file:///path.

Every run prints a latency/throughput table and writes a result file
(JSON) that 'objbench report' can print again later.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version(),
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newRunCommand(env))
	root.AddCommand(newReplayCommand(env))
	for _, op := range benchOps {
		root.AddCommand(newOpCommand(env, op))
	}
	root.AddCommand(newServerCommand(env), newReportCommand(env), newCompareCommand(env), newMonitorCommand(env))
	root.AddCommand(newGenCommand(env), newDatasetCommand(env))
	root.AddCommand(newTransferCommand(env), newCleanCommand(env), newNetemCommand(env), newProbeCommand(env))
	root.AddCommand(newSelftestCommand(env))
	root.AddCommand(newSaturateCommand(env))
	root.AddCommand(newToolsCommand(env))
	root.AddCommand(newMergeCommand(env))
	root.AddCommand(newAICommand(env))
	return root
}

// helpPath is the command whose --help explains the usage error: the
// subcommand the arguments name ("objbench report"), else objbench.
func helpPath(root *cobra.Command, args []string) string {
	if c, _, err := root.Find(args); err == nil && c != nil {
		return c.CommandPath()
	}
	return root.CommandPath()
}

// isCobraUsage recognises cobra's own argument errors (unknown command...).
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires ", "invalid argument"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
