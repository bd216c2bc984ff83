package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/objbench/objbench/report"
	"github.com/objbench/objbench/result"
)

// writeHDRLogs writes DIR/op.hlog for every op of res with latencies.
func writeHDRLogs(dir string, res *result.Run) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--hdr-log: %w", err)
	}
	for _, op := range report.LoggedOps(res) {
		path := filepath.Join(dir, strings.ToLower(op)+".hlog")
		f, err := os.Create(path)
		if err != nil {
			return fmt.Errorf("--hdr-log: %w", err)
		}
		err = report.WriteHDRLog(f, res, op)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("--hdr-log %s: %w", path, err)
		}
	}
	return nil
}
