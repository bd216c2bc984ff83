package loadgen

import (
	"github.com/objbench/objbench/payload"
	"github.com/objbench/objbench/workload"
)

// block is the payload block for data made as d says (compressibility,
// pattern), made once per run.
func (r *runState) block(d workload.Data) (*payload.Block, error) {
	k := workload.Data{Compress: d.Compress, Pattern: d.Pattern}
	if k.Compress <= 1 {
		k.Compress = 0
	}
	if k == (workload.Data{}) {
		return r.cfg.Block, nil
	}
	if b, ok := r.blocks[k]; ok {
		return b, nil
	}
	var b *payload.Block
	var err error
	if k.Pattern == workload.PatternLetters {
		b, err = payload.NewLettersBlock(r.cfg.Block.Size(), r.cfg.Seed)
	} else {
		b, err = payload.NewBlock(r.cfg.Block.Size(), r.cfg.Seed, k.Compress)
	}
	if err != nil {
		return nil, err
	}
	r.blocks[k] = b
	return b, nil
}
