package payload

import (
	"errors"
	"math/rand/v2"
)

// LettersPeriod is the length of the piece an object of a letters block
// repeats: COSBench's RandomInputStream fills 4 KB with random lower-case
// letters and sends it again and again.
const LettersPeriod = 4096

// NewLettersBlock makes a block of COSBench's data: pieces of
// LettersPeriod random lower-case letters, each object repeating one piece
// (chosen by its seed) from start to end. Such data compresses (a
// compressor with a window of more than 4 KiB keeps little more than one
// piece per object) where NewBlock's does not.
func NewLettersBlock(size int, seed uint64) (*Block, error) {
	if size < LettersPeriod {
		return nil, errors.New("payload: block size must be at least 4096 bytes")
	}
	size -= size % LettersPeriod
	data := make([]byte, size)
	rng := rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d))
	for i := range data {
		data[i] = 'a' + byte(rng.Uint32N(26))
	}
	return &Block{data: data, period: LettersPeriod}, nil
}
