package e2e_test

import (
	"fmt"
	"os"
	"runtime"
	"time"
)

// spinEnv makes the test binary a CPU spinner (TestMain): one busy
// thread until it is killed or a minute has passed.
const spinEnv = "OBJBENCH_E2E_SPIN"

// spinIfAsked is called first in TestMain.
func spinIfAsked() {
	if os.Getenv(spinEnv) == "" {
		return
	}
	runtime.GOMAXPROCS(1)
	deadline := time.Now().Add(time.Minute)
	x := uint64(1)
	for time.Now().Before(deadline) {
		for range 1 << 20 {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	if x == 0 { // never: keeps the loop from being optimised away
		fmt.Println(x)
	}
	os.Exit(0)
}
