package cli

import (
	"io"
	"path/filepath"
	"strings"

	"github.com/objbench/objbench/atomicfile"
	"github.com/objbench/objbench/report"
	"github.com/objbench/objbench/result"
)

// writeHDRLogs writes DIR/op.hlog for every op of res with latencies.
func writeHDRLogs(dir string, res *result.Run) error {
	for _, op := range report.LoggedOps(res) {
		path := filepath.Join(dir, strings.ToLower(op)+".hlog")
		err := atomicfile.Write(path, 0o644, func(w io.Writer) error { return report.WriteHDRLog(w, res, op) })
		if err != nil {
			return writeError("--hdr-log", path, err)
		}
	}
	return nil
}
