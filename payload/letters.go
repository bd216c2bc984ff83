package payload

import (
	"errors"
	"math/rand/v2"
)

// LettersPeriod is the length of the piece an object of a letters block
// repeats: COSBench's RandomInputStream fills 4 KB with random lower-case
// letters and sends it again and again.
const LettersPeriod = 4096

// lettersRun is how much of the block one object wraps within: a piece
// written out 16 times, so a large object goes out in 64 KiB writes, not
// 4 KiB ones.
const lettersRun = 16 * LettersPeriod

// NewLettersBlock makes a block of COSBench's data: pieces of
// LettersPeriod random lower-case letters, each object repeating one piece
// (chosen by its seed) from start to end. Such data compresses (a
// compressor with a window of more than 4 KiB keeps little more than one
// piece per object) where NewBlock's does not.
func NewLettersBlock(size int, seed uint64) (*Block, error) {
	if size < lettersRun {
		return nil, errors.New("payload: a letters block must be at least 64 KiB")
	}
	size -= size % lettersRun
	data, fd := newData(size)
	rng := rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d))
	for run := 0; run < size; run += lettersRun {
		piece := data[run : run+LettersPeriod]
		for i := range piece {
			piece[i] = 'a' + byte(rng.Uint32N(26))
		}
		for at := run + LettersPeriod; at < run+lettersRun; at += LettersPeriod {
			copy(data[at:], piece)
		}
	}
	b := &Block{data: data, fd: fd, period: lettersRun}
	b.seal()
	return b, nil
}
