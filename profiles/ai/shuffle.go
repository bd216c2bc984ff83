package ai

import "math/bits"

// perm is a seeded pseudo-random permutation of [0, n), computed, never
// stored: a balanced Feistel network of four rounds over the smallest
// even number of bits that covers n, walked again from its output until
// it lands inside [0, n) (cycle walking, which keeps it a permutation).
// It shuffles a data set of any size in constant memory.
type perm struct {
	n    uint64
	half uint
	mask uint64
	keys [4]uint64
}

// newPerm is the permutation of [0, n) for seed and epoch: the same
// arguments give the same permutation in every process.
func newPerm(n, seed uint64, epoch int) perm {
	b := uint(bits.Len64(max(n, 2) - 1))
	b += b & 1
	p := perm{n: n, half: b / 2, mask: 1<<(b/2) - 1}
	x := seed ^ uint64(epoch)*0x9e3779b97f4a7c15
	for i := range p.keys {
		x = mix64(x + uint64(i) + 1)
		p.keys[i] = x
	}
	return p
}

// at is the i-th element of the permutation (i < n).
func (p perm) at(i uint64) uint64 {
	x := i
	for {
		l, r := x>>p.half, x&p.mask
		for _, k := range p.keys {
			l, r = r, l^(mix64(r^k)&p.mask)
		}
		x = l<<p.half | r
		if x < p.n {
			return x
		}
	}
}

// order is an epoch's order of a data set's samples: a seeded shuffle of
// all samples (DLIO's sample_shuffle: seed), or, with files only
// shuffled (file_shuffle alone), the shuffled files' samples each file's
// in order.
type order struct {
	p   perm
	spf int64 // samples per file when files only are shuffled, else 0
}

// newOrder is epoch's order of ds's samples.
func newOrder(ds Dataset, seed uint64, epoch int) order {
	if ds.FileOrder {
		return order{p: newPerm(uint64(ds.Files), seed, epoch), spf: int64(ds.SamplesPerFile)}
	}
	return order{p: newPerm(uint64(ds.Samples()), seed, epoch)}
}

// at is the sample at position i of the epoch.
func (o order) at(i int64) int64 {
	if o.spf > 0 {
		return int64(o.p.at(uint64(i/o.spf)))*o.spf + i%o.spf
	}
	return int64(o.p.at(uint64(i)))
}

// mix64 is SplitMix64's finalizer: every input bit moves every output bit.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// Shard is what one accelerator reads in one epoch: positions From to
// From+Len of the epoch's shuffle of the data set's samples.
type Shard struct {
	From, Len int64
}

// ShardOf is accelerator g's shard of n samples among accels, in whole
// batches: each accelerator gets n/accels consecutive positions of the
// shuffle, of which it reads the whole batches (a last, short batch is
// dropped, as PyTorch's drop_last does), so every accelerator computes
// the same number of steps.
func ShardOf(n int64, g, accels, batch int) Shard {
	per := n / int64(accels)
	steps := per / int64(batch)
	return Shard{From: int64(g) * per, Len: steps * int64(batch)}
}

// Samples yields accelerator g's samples, epoch after epoch: epoch e's
// shard of the shuffle seeded by (seed, e), then the next epoch's.
type Samples struct {
	n     int64
	seed  uint64
	shard Shard
	epoch int
	pos   int64
	p     perm
}

// NewSamples starts accelerator g's samples at epoch (from 1).
func NewSamples(n int64, seed uint64, epoch, g, accels, batch int) *Samples {
	return &Samples{n: n, seed: seed, shard: ShardOf(n, g, accels, batch), epoch: epoch, p: newPerm(uint64(n), seed, epoch)}
}

// Next is the next sample's index and the epoch it belongs to.
func (s *Samples) Next() (sample int64, epoch int) {
	if s.pos == s.shard.Len {
		s.epoch++
		s.pos = 0
		s.p = newPerm(uint64(s.n), s.seed, s.epoch)
	}
	i := s.shard.From + s.pos
	s.pos++
	return int64(s.p.at(uint64(i))), s.epoch
}
