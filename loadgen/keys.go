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
	// Of a run split across processes: the objects the other workers
	// prepared (adopted for reads once they are written), and this
	// worker's tag on the keys it writes in main stages.
	foreign []foreignKey
	tag     string
	listed  bool // filled from a data set (runState.fromDataset)
}

// foreignKey is an object another worker of the run prepared.
type foreignKey struct {
	key  string
	size int64
}

// adopt adds the objects the other workers prepared to a pool that the
// run only reads: reads then range over the whole key space. A pool the
// run also writes or deletes keeps to this worker's own objects, so that
// no two workers delete one object, and none reads what another deleted.
func (p *keyPool) adopt() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.mutable {
		for _, f := range p.foreign {
			p.live = append(p.live, f.key)
			if p.sizes != nil {
				p.sizes = append(p.sizes, f.size)
			}
		}
	}
	p.foreign = nil
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

// newKey reserves a fresh key for a PUT in a main stage; in a run split
// across processes the key carries this worker's tag, so no two workers
// write one key.
func (p *keyPool) newKey() string {
	if p.tag != "" {
		var buf [20]byte
		i := p.next.Add(1) - 1
		return p.prefix + p.tag + string(strconv.AppendInt(appendZeros(buf[:0], i), i, 10))
	}
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
