package transfer

import (
	"context"
	"fmt"

	"github.com/objbench/objbench/storage"
)

// Check is what the store holds under a plan's prefix, beside the plan.
type Check struct {
	Objects, Bytes         int64 // found under the prefix
	WantObjects, WantBytes int64 // in the plan
	// Missing counts planned keys absent or of another size.
	Missing int64
}

// OK says whether the store holds exactly the plan: same count and bytes
// under the prefix (as `s5cmd du` counts them) and every key in place.
func (c Check) OK() bool {
	return c.Objects == c.WantObjects && c.Bytes == c.WantBytes && c.Missing == 0
}

func (c Check) String() string {
	if c.OK() {
		return fmt.Sprintf("verified: %d objects, %d bytes", c.Objects, c.Bytes)
	}
	return fmt.Sprintf("%d objects, %d bytes found, %d objects, %d bytes sent (%d missing or of another size)",
		c.Objects, c.Bytes, c.WantObjects, c.WantBytes, c.Missing)
}

// Verify lists the plan's prefix in st and compares it with the plan. A
// plan of one object at exactly its prefix (s3://b/key) counts that key
// alone, not its namesakes (s3://b/key2); other plans count everything
// under the prefix as a directory (p/, so not p2/).
func Verify(ctx context.Context, st storage.Store, p *Plan) (Check, error) {
	exact := len(p.Items) == 1 && p.Items[0].Key == p.Prefix
	prefix := p.Prefix
	if !exact {
		prefix = dirPrefix(prefix)
	}
	want := make(map[string]int64, len(p.Items))
	for _, it := range p.Items {
		want[it.Key] = it.Size
	}
	c := Check{WantObjects: int64(len(want)), WantBytes: p.Bytes()}
	found := int64(0)
	err := storage.ListUnder(ctx, st, prefix, func(o storage.ObjectInfo) error {
		if exact && o.Key != p.Prefix {
			return nil
		}
		c.Objects++
		c.Bytes += o.Size
		if size, ok := want[o.Key]; ok && size == o.Size {
			found++
		}
		return nil
	})
	c.Missing = c.WantObjects - found
	return c, err
}
