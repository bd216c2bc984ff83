package transfer

import (
	"context"
	"fmt"
)

// genItems are the objects of gen:NxSIZE: file-0001 to file-N under a
// directory, all of one size, object i generated with seed i. They are
// made as the plan runs, never listed: a plan of half a million
// generated objects holds none of them.
type genItems struct {
	dir   string
	count int
	size  int64
	width int // digits of the original count: names sort in order
}

func (g *genItems) item(i int) Item {
	// Named as `objbench gen files` names them: file-0001...
	return Item{Key: fmt.Sprintf("%sfile-%0*d", g.dir, g.width, i+1), Size: g.size, Seed: uint64(i)}
}

// each calls fn with every item, in key order (the names are zero-padded
// to one width), and stops at fn's first error.
func (g *genItems) each(ctx context.Context, fn func(Item) error) error {
	for i := range g.count {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := fn(g.item(i)); err != nil {
			return err
		}
	}
	return nil
}

func (g *genItems) stats() sizeStats {
	return sizeStats{n: int64(g.count), bytes: int64(g.count) * g.size, min: g.size, max: g.size}
}

// limit keeps the first n, named as before: the first n of the N.
func (g *genItems) limit(n int)     { g.count = min(g.count, n) }
func (g *genItems) generated() bool { return true }
func (g *genItems) close() error    { return nil }
