//go:build !linux

package payload

// newData returns size bytes on the heap: no memfd outside Linux, so
// Readers never offer FileWriters their pieces.
func newData(size int) (data []byte, fd int) { return make([]byte, size), -1 }

func (b *Block) seal() {}
