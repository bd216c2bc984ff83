package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// MPIRun finds Open MPI's mpirun for tb, or skips the test when it is not
// installed — unless OBJBENCH_REQUIRE_MPI is set (the test script sets it
// and installs openmpi-bin), in which case a missing mpirun fails.
func MPIRun(tb testing.TB) string {
	tb.Helper()
	p, err := exec.LookPath("mpirun")
	if err != nil {
		if os.Getenv("OBJBENCH_REQUIRE_MPI") != "" {
			tb.Fatalf("mpirun is required but not installed: apt-get install openmpi-bin (scripts/install-tools.sh does)")
		}
		tb.Skip("mpirun not installed (apt-get install openmpi-bin); skipping the distributed run")
	}
	return p
}
