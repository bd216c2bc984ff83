package loadgen

import (
	"fmt"
	"strings"

	"github.com/objbench/objbench/storage"
)

// CleanableKey is the one rule that decides whether cleanup may delete a
// key a listing returned for a run whose keys all start with namespace
// ("objbench/RUN-ID/", or a data set's "objbench/data/NAME/"). A listing
// is evidence to check, not a delete list: nil means the key is provably
// the run's, because
//
//   - it starts with namespace, which is the run's alone (its id is new,
//     or given to this run's processes only), and
//   - neither the namespace nor the key has a segment that path
//     normalisation could change (storage.CheckKeyPath: no empty, '.' or
//     '..' segment, also once percent-decoded), so the DELETE sent for it
//     reaches that key and no other, whatever proxy stands in between.
//
// Any other key is refused with the reason: cleanup skips it, names it,
// and records that the run did not clean up (a store that lists such a
// key under a run's namespace is at fault: objbench never writes one).
// Whoever cleans a run's keys (a surviving worker cleaning a dead one's,
// objbench clean) decides with this function.
func CleanableKey(namespace, key string) error {
	if namespace == "" || !strings.HasSuffix(namespace, "/") {
		return fmt.Errorf("namespace %q: want one ending in '/'", namespace)
	}
	if err := storage.CheckKeyPath(namespace); err != nil {
		return fmt.Errorf("namespace %q cannot be cleaned safely: %w", namespace, err)
	}
	if !strings.HasPrefix(key, namespace) || key == namespace {
		return fmt.Errorf("key %q is not below the run's namespace %q", key, namespace)
	}
	return storage.CheckKeyPath(key)
}
