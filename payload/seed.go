package payload

import (
	"crypto/rand"
	"encoding/binary"
)

// RandomSeed is a fresh, non-zero seed for a run's payload (0 means "pick
// one" in options, so a drawn seed is never 0).
func RandomSeed() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:]) | 1
}
