package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// positional returns a cobra.PositionalArgs that takes min to max arguments
// (max < 0: no limit) and, when they are not there, says what to give and
// how, instead of cobra's "accepts 1 arg(s), received 0":
//
//	report needs a result file: objbench report RESULT.json
func positional(minN, maxN int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		synopsis := strings.TrimSuffix(cmd.UseLine(), " [flags]")
		_, name, _ := strings.Cut(cmd.CommandPath(), " ") // "gen files", not "objbench gen files"
		switch {
		case len(args) < minN:
			return usagef("%s needs %s: %s", name, what, synopsis)
		case maxN == 0 && len(args) > 0:
			return usagef("%s takes no arguments, got %s (flags start with --): %s", name, quoteArgs(args), synopsis)
		case maxN > 0 && len(args) > maxN:
			return usagef("%s takes %s, got %d arguments (%s): %s", name, what, len(args), quoteArgs(args), synopsis)
		}
		return nil
	}
}

// noArgs is positional for a command that takes none.
func noArgs() cobra.PositionalArgs { return positional(0, 0, "") }

func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = fmt.Sprintf("%q", a)
	}
	return strings.Join(q, " ")
}
