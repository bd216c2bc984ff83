package loadgen

import "github.com/objbench/objbench/storage"

// tracedPhases is the phases an op's trace holds when its store fills
// them (a network store: one that counts connections), else nil.
func tracedPhases(st storage.Store, tr *storage.Trace) *storage.Phases {
	if _, ok := st.(storage.ConnCounter); !ok {
		return nil
	}
	return &tr.Phases
}
