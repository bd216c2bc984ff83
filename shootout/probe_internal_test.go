package shootout

import "testing"

// A failed version command is explained by the line that says why, not
// by the first line of a traceback or a stack.
func TestFailureLine(t *testing.T) {
	for _, c := range []struct{ name, out, want string }{
		{"python traceback", "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\nModuleNotFoundError: No module named 'boto3'\n",
			"ModuleNotFoundError: No module named 'boto3'"},
		{"node stack", "node:internal/modules/cjs/loader:1228\n  throw err;\n  ^\n\nError: Cannot find module '@aws-sdk/client-s3/package.json'\nRequire stack:\n- /x/[eval]\n",
			"Error: Cannot find module '@aws-sdk/client-s3/package.json'"},
		{"one line", "s5cmd: command not found\n", "s5cmd: command not found"},
		{"a message that mentions an error", "usage: aws [options]\naws: error: argument command: Invalid choice\n", "usage: aws [options]"},
	} {
		if got := failureLine(c.out); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// A shoot-out of several tools in which fewer than two ran compares
// nothing, and says so; one of a single tool that ran is fine.
func TestShortfall(t *testing.T) {
	ok := &Cell{Tool: "objbench", Runs: []Attempt{{Verified: true}}}
	failed := &Cell{Tool: "aws", Runs: []Attempt{{Verified: false}}}
	for _, c := range []struct {
		name  string
		tools []Tool
		cells []*Cell
		want  string
	}{
		{"only objbench of three ran", []Tool{{Name: "s5cmd", Skipped: "x"}, {Name: "aws"}, {Name: "objbench"}}, []*Cell{failed, ok},
			"nothing to compare: only objbench ran (skipped or failed: s5cmd, aws; the notes under the table say why)"},
		{"none ran", []Tool{{Name: "s5cmd", Skipped: "x"}}, nil, "no tool ran (skipped or failed: s5cmd; the notes under the table say why)"},
		{"objbench alone, as asked", []Tool{{Name: "objbench"}}, []*Cell{ok}, ""},
		{"two ran", []Tool{{Name: "aws"}, {Name: "objbench"}, {Name: "s5cmd", Skipped: "x"}},
			[]*Cell{{Tool: "aws", Runs: []Attempt{{Verified: true}}}, ok}, ""},
	} {
		r := &Result{Tools: c.tools, Cells: c.cells}
		if got := r.Shortfall(); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
