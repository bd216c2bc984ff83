package transfer_test

import (
	"context"
	"fmt"

	"github.com/objbench/objbench/storage/mem"
	"github.com/objbench/objbench/transfer"
)

// Upload 20 MiB of generated data in 5 MiB parts, then check what the store
// holds under the prefix.
func ExampleRun() {
	ctx := context.Background()
	st := mem.New()
	plan, err := transfer.UploadPlan("gen:2x10MiB", "demo/", 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := transfer.Run(ctx, st, plan, transfer.Options{PartSize: 5 << 20, PartConcurrency: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Objects, "objects,", res.Parts, "parts,", res.Retries, "retries")
	check, err := transfer.Verify(ctx, st, plan, res.Written)
	fmt.Println(check, err)
	// Output:
	// 2 objects, 4 parts, 0 retries
	// verified: 2 objects, 20971520 bytes (2 ETags as written) <nil>
}
