package loadgen

import (
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
)

// keyPool is the set of objects one key space holds during a run. Streams
// that only read share it without locking; streams that write or delete
// take its lock, which then guards live.
type keyPool struct {
	prefix  string // full key prefix, namespace included
	size    int64  // size of objects this run writes
	mu      sync.Mutex
	live    []string
	sizes   []int64 // per live key, when sizes vary (existing objects, distributions)
	next    atomic.Int64
	mutable bool
	// leases counts in-flight reads per key in a mutable pool, so a DELETE
	// never removes an object another worker is reading (a false 404).
	leases map[string]int32
}

func newKeyPool(prefix string, size int64) *keyPool {
	return &keyPool{prefix: prefix, size: size}
}

// key formats the name of object i of this pool.
func (p *keyPool) key(i int64) string {
	var buf [20]byte
	return p.prefix + string(strconv.AppendInt(appendZeros(buf[:0], i), i, 10))
}

// appendZeros pads so that keys sort in index order (8 digits).
func appendZeros(b []byte, i int64) []byte {
	for lim := int64(10_000_000); lim > 1 && i < lim; lim /= 10 {
		b = append(b, '0')
	}
	return b
}

// plan reserves n fresh indices and returns the keys of those objects, to
// prepare.
func (p *keyPool) plan(n int) []string {
	first := p.next.Add(int64(n)) - int64(n)
	keys := make([]string, n)
	for i := range keys {
		keys[i] = p.key(first + int64(i))
	}
	return keys
}

func (p *keyPool) add(key string, size int64) {
	p.mu.Lock()
	p.live = append(p.live, key)
	if p.sizes != nil {
		p.sizes = append(p.sizes, size)
	}
	p.mu.Unlock()
}

// newKey reserves a fresh key for a PUT in a main stage.
func (p *keyPool) newKey() string {
	return p.key(p.next.Add(1) - 1)
}

// pick returns a random live object, or ok=false if there is none. In a
// mutable pool the key is leased until release.
func (p *keyPool) pick(rng *rand.Rand) (key string, size int64, ok bool) {
	if p.mutable {
		p.mu.Lock()
		defer p.mu.Unlock()
	}
	if len(p.live) == 0 {
		return "", 0, false
	}
	i := rng.IntN(len(p.live))
	size = p.size
	if p.sizes != nil {
		size = p.sizes[i]
	}
	if p.mutable {
		if p.leases == nil {
			p.leases = map[string]int32{}
		}
		p.leases[p.live[i]]++
	}
	return p.live[i], size, true
}

// release ends the lease pick took on key.
func (p *keyPool) release(key string) {
	if !p.mutable {
		return
	}
	p.mu.Lock()
	if p.leases[key]--; p.leases[key] <= 0 {
		delete(p.leases, key)
	}
	p.mu.Unlock()
}

// take removes and returns a random live object (for DELETE), preferring
// one nobody is reading.
func (p *keyPool) take(rng *rand.Rand) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.live)
	if n == 0 {
		return "", false
	}
	i := rng.IntN(n)
	for j := 0; j < n && p.leases[p.live[i]] > 0; j++ {
		i = (i + 1) % n
	}
	k := p.live[i]
	p.live[i] = p.live[n-1]
	p.live = p.live[:n-1]
	if p.sizes != nil {
		p.sizes[i] = p.sizes[n-1]
		p.sizes = p.sizes[:n-1]
	}
	return k, true
}

func (p *keyPool) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.live)
}
