package cli

import (
	"context"

	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/oplog"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/workload"
)

// createOpLog opens --op-log's file; nil without the flag. The file
// appears at its path only once the run ends and it is closed whole.
func createOpLog(path string) (*oplog.Writer, error) {
	if path == "" {
		return nil, nil
	}
	w, err := oplog.Create(path, oplog.Options{})
	if err != nil {
		return nil, inputf("--op-log %s: %v", path, err)
	}
	return w, nil
}

// planned is a workload made once the run id is known (a replay's keys go
// below its namespace), with what the load generator needs to run it.
type planned struct {
	spec   workload.Spec
	replay *loadgen.Replay
	// workers is the most workers it may run at once (the connection
	// pool's size), beyond what its spec says.
	workers int
	info    func() *result.Replay
	err     func() error // what went wrong reading the input during the run
	close   func()
	// scripts drive the spec's scripted streams (objbench ai); check,
	// if set, looks at the target before the run (is the data set there?).
	scripts func(st workload.Stage, i int, sp workload.Stream) (loadgen.Script, error)
	check   func(ctx context.Context, st storage.Store) error
}
