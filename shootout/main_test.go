package shootout_test

import (
	"context"
	"os"
	"testing"

	"github.com/objbench/objbench/internal/cli"
)

// asObjbench, set in a child's environment, makes the test binary act as
// the objbench binary: the objbench profile (and a custom template) run
// it as `objbench transfer ...` without building the command first.
const asObjbench = "OBJBENCH_SHOOTOUT_TEST_AS_OBJBENCH"

func TestMain(m *testing.M) {
	if os.Getenv(asObjbench) == "1" {
		os.Exit(cli.Execute(context.Background(), cli.OSEnv()))
	}
	os.Exit(m.Run())
}
