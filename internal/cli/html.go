package cli

import (
	"io"

	"github.com/objbench/objbench/atomicfile"
	"github.com/objbench/objbench/report"
	"github.com/objbench/objbench/report/htmlreport"
	"github.com/objbench/objbench/result"
)

// writeHTMLFile writes res as an HTML page at path, atomically.
func writeHTMLFile(path string, res *result.Run) error {
	err := atomicfile.Write(path, 0o644, func(w io.Writer) error { return htmlreport.Write(w, res) })
	if err != nil {
		return writeError("--html", path, err)
	}
	return nil
}

// writeCompareHTMLFile writes the comparison c of runs as an HTML page at
// path, atomically.
func writeCompareHTMLFile(path string, c *report.Comparison, runs []*result.Run) error {
	err := atomicfile.Write(path, 0o644, func(w io.Writer) error { return htmlreport.WriteCompare(w, c, runs) })
	if err != nil {
		return writeError("--html", path, err)
	}
	return nil
}
