package loadgen_test

import (
	"testing"

	"github.com/objbench/objbench/loadgen"
)

// CleanableKey accepts a key only when it is provably the run's: below
// its namespace, with no segment path normalisation could change.
func TestCleanableKey(t *testing.T) {
	const ns = "objbench/20260101-000000-abcdef/"
	for _, tc := range []struct {
		ns, key string
		ok      bool
	}{
		{ns, ns + "00000001", true},
		{ns, ns + "put/w3-00000001", true},
		{ns, ns + "dir/", true},
		{"objbench/data/set.1/", "objbench/data/set.1/a", true},
		{ns, ns, false},                                // the namespace itself: never written
		{ns, "objbench/other-run/00000001", false},     // another run's
		{ns, "precious/a", false},                      // outside
		{ns, ns + "../../precious/a", false},           // climbs out through a proxy
		{ns, ns + "..%2F..%2Fprecious%2Fb%2Fc", false}, // ... through one that decodes
		{ns, ns + "a//b", false},
		{ns, ns + "./a", false},
		{"objbench/../", "objbench/../precious", false}, // a namespace that is not one
		{"objbench/x", "objbench/x/a", false},
		{"", "a", false},
	} {
		if err := loadgen.CleanableKey(tc.ns, tc.key); (err == nil) != tc.ok {
			t.Errorf("CleanableKey(%q, %q) = %v; want ok %v", tc.ns, tc.key, err, tc.ok)
		}
	}
}
