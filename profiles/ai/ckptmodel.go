package ai

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// LLM is a transformer whose checkpoints DLIO writes the way
// Megatron-DeepSpeed lays them out: the model's layers split over
// pipeline stages and tensor ranks (and, with ZeRO stage 3, over the
// data-parallel ranks too), the optimizer state over every rank.
type LLM struct {
	Name                                string
	Layers, Hidden, FFN, Heads, KVHeads int64
	Vocab                               int64
	Tensor, Pipeline                    int // parallelism
	Zero                                int // ZeRO stage
	ModelBytes, OptimizerBytes          int64
	// ClosedRanks is MLPerf Storage's process count for a CLOSED run.
	ClosedRanks int
	// Writes and Reads are num_checkpoints_write and _read; Interval is
	// time_between_checkpoints (computation before each, untimed).
	Writes, Reads int
	Interval      time.Duration
	Source        string
}

func llama(name, file string, layers, hidden, ffn, heads, kv int64, tp, pp, zero, closed int) LLM {
	return LLM{Name: name, Layers: layers, Hidden: hidden, FFN: ffn, Heads: heads, KVHeads: kv, Vocab: 128256,
		Tensor: tp, Pipeline: pp, Zero: zero, ModelBytes: 2, OptimizerBytes: 4, ClosedRanks: closed,
		Writes: 10, Reads: 10, Interval: 5 * time.Second,
		Source: mlperfV2 + " configs/dlio/workload/" + file + " (CLOSED ranks: mlpstorage/config.py LLM_ALLOWED_VALUES)"}
}

// llms are MLPerf Storage's checkpointing models: fp16 model, fp32
// optimizer state, 10 checkpoints written and 10 read, 5 s apart.
var llms = []LLM{
	llama("llama3-8b", "llama3_8b.yaml", 32, 4096, 14336, 32, 8, 1, 1, 3, 8),
	llama("llama3-70b", "llama3_70b.yaml", 80, 8192, 28672, 128, 8, 8, 1, 3, 64),
	llama("llama3-405b", "llama3_405b.yaml", 126, 16384, 53248, 128, 8, 8, 32, 1, 512),
	llama("llama3-1t", "llama3_1t.yaml", 128, 25872, 98304, 192, 32, 8, 64, 1, 1024),
}

// LLMs lists the checkpointing models.
func LLMs() []LLM { return slices.Clone(llms) }

// LookupLLM finds a checkpointing model by name (any case).
func LookupLLM(name string) (LLM, error) {
	var names []string
	for _, m := range llms {
		if strings.EqualFold(m.Name, name) {
			return m, nil
		}
		names = append(names, m.Name)
	}
	return LLM{}, fmt.Errorf("model %q: want one of %s", name, strings.Join(names, ", "))
}

// Parameters is the model's parameter count: the embedding and the
// output head (vocabulary x hidden each), per layer the two norms, the
// attention's Q, K and V (K and V of the KV heads only), its output and
// the gated MLP's three matrices, and the final norm.
func (m LLM) Parameters() int64 {
	return 2*m.Vocab*m.Hidden + m.Layers*m.layerParams() + m.Hidden
}

func (m LLM) kvDim() int64 { return m.Hidden / m.Heads * m.KVHeads }

func (m LLM) layerParams() int64 {
	h := m.Hidden
	return h + h*(h+2*m.kvDim()) + h*h + h + 3*h*m.FFN
}

// layerTensors are the element counts of layer i's tensors on one rank:
// layer 0 is the embedding, Layers+1 the output head, Layers+2 the final
// norm; each matrix split over the tensor ranks and, under ZeRO stage 3,
// everything over the data-parallel ranks (shard), rounded down as DLIO
// does (checkpointing/base_checkpointing.py, get_layer_parameters).
func (m LLM) layerTensors(i, shard int64) []int64 {
	tp, h := int64(m.Tensor), m.Hidden
	switch {
	case i == 0 || i == m.Layers+1:
		return []int64{h * m.Vocab / tp / shard}
	case i == m.Layers+2:
		return []int64{h / shard}
	}
	return []int64{h / shard, h * (h + 2*m.kvDim()) / tp / shard, h * h / tp / shard, h / shard,
		h * 2 * m.FFN / tp / shard, h * m.FFN / tp / shard}
}

// stageLayers is the layers pipeline stage pp holds (first to last,
// inclusive): the transformer layers dealt out as evenly as they go, the
// first stage also holding the embedding, the last the head and norm.
func (m LLM) stageLayers(pp int64) (first, last int64) {
	stages := int64(m.Pipeline)
	per, rem := m.Layers/stages, m.Layers%stages
	if pp < rem {
		first = pp*(per+1) + 1
		last = first + per
	} else {
		first = rem*(per+1) + (pp-rem)*per + 1
		last = first + per - 1
	}
	if pp == stages-1 {
		last = m.Layers + 2
	}
	if pp == 0 {
		first = 0
	}
	return first, last
}

// CkptObject is one object of a checkpoint.
type CkptObject struct {
	Name string // below the checkpoint's prefix
	Size int64
}

// Shards is each rank's objects of one checkpoint with ranks ranks, as
// DLIO's checkpointing writes them (its file names, without extension
// ".pt"): the model state of a rank's layers, in one object or, under
// ZeRO 1 and 2 with pipeline stages, an object a layer, written by the
// first data-parallel replica only (every rank under ZeRO 3, where
// each holds its slice); the optimizer state of every rank: three
// fp32 copies of its share of the parameters and three small groups.
// Under ZeRO 0 only the first model-parallel group writes.
func (m LLM) Shards(ranks int) ([][]CkptObject, error) {
	mp := m.Tensor * m.Pipeline
	if ranks < mp || ranks%mp != 0 {
		return nil, fmt.Errorf("%s splits over %d tensor x %d pipeline ranks: ranks %d must be a multiple of %d", m.Name, m.Tensor, m.Pipeline, ranks, mp)
	}
	dp := ranks / mp
	out := make([][]CkptObject, ranks)
	for r := range ranks {
		if m.Zero == 0 && r >= mp {
			continue // only the first replica checkpoints
		}
		out[r] = m.rankObjects(r, dp)
	}
	return out, nil
}

func (m LLM) rankObjects(r, dp int) []CkptObject {
	mp := m.Tensor * m.Pipeline
	mpRank, dpRank, pp := r%mp, r/mp, int64(r/m.Tensor%m.Pipeline)
	shard := int64(1)
	if m.Zero >= 3 {
		shard = int64(dp)
	}
	first, last := m.stageLayers(pp)
	size := func(i int64) int64 {
		var n int64
		for _, e := range m.layerTensors(i, shard) {
			n += e
		}
		return n * m.ModelBytes
	}
	var objs []CkptObject
	switch {
	case m.Zero >= 1 && m.Zero < 3 && dpRank != 0: // the first replica holds the model
	case m.Zero >= 1 && m.Zero < 3 && m.Pipeline > 1:
		for i := first; i <= last; i++ {
			objs = append(objs, CkptObject{fmt.Sprintf("layer_%d-model_%d_model_states", i, mpRank), size(i)})
		}
	case m.Zero >= 1 && m.Zero < 3:
		var n int64
		for i := first; i <= last; i++ {
			n += size(i)
		}
		objs = append(objs, CkptObject{fmt.Sprintf("model_%d_model_states", mpRank), n})
	default:
		var n int64
		for i := first; i <= last; i++ {
			n += size(i)
		}
		objs = append(objs, CkptObject{fmt.Sprintf("zero_pp_rank_%d_mp_rank_%d_model_states", dpRank, mpRank), n})
	}
	share := m.Parameters() / int64(mp)
	if m.Zero > 0 {
		share = m.Parameters() / int64(dp*mp)
	}
	opt := 3 * (share + 5*m.Hidden) * m.OptimizerBytes
	return append(objs, CkptObject{fmt.Sprintf("zero_pp_rank_%d_mp_rank_%d_optim_states", dpRank, mpRank), opt})
}
