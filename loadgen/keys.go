package loadgen

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// keyPool is the set of objects one key space holds during a run. Streams
// that only read share it without locking; streams that write or delete
// take its lock, which then guards live. Its keys are held compactly
// (keySet): a pool of half a million listed objects costs their key
// suffixes and about 12 bytes each, not a string and a slice slot apiece.
type keyPool struct {
	prefix  string // full key prefix, namespace included
	size    int64  // size of objects this run writes
	mu      sync.Mutex
	live    keySet // sizes kept when they vary (existing objects, distributions)
	next    atomic.Int64
	mutable bool
	// leases counts in-flight reads per key in a mutable pool, so a DELETE
	// never removes an object another worker is reading (a false 404).
	// Keyed by the key's part after the prefix (leaseKey).
	leases map[string]int32
	// Of a run split across processes: the objects the other workers
	// prepared (adopted for reads once they are written), and this
	// worker's tag on the keys it writes in main stages.
	foreign keySet
	tag     string
	listed  bool // filled from a data set (runState.fromDataset)
}

// adopt adds the objects the other workers prepared to a pool that the
// run only reads: reads then range over the whole key space. A pool the
// run also writes or deletes keeps to this worker's own objects, so that
// no two workers delete one object, and none reads what another deleted.
func (p *keyPool) adopt() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.mutable {
		for i := range p.foreign.len() {
			p.live.add(p.foreign.at(i))
		}
	}
	p.foreign.reset()
}

// addForeign records an object another worker of the run prepares.
func (p *keyPool) addForeign(key string, size int64) {
	p.foreign.add(key, size)
}

// varySizes makes the pool remember each object's size; call it before
// any object is added.
func (p *keyPool) varySizes() {
	p.live.varied = true
}

func newKeyPool(prefix string, size int64) *keyPool {
	return &keyPool{prefix: prefix, size: size, live: keySet{prefix: prefix}, foreign: keySet{prefix: prefix, varied: true}}
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

// plan reserves n fresh indices and returns the first: the keys of those
// objects, to prepare, are key(first) to key(first+n-1).
func (p *keyPool) plan(n int) (first int64) {
	return p.next.Add(int64(n)) - int64(n)
}

func (p *keyPool) add(key string, size int64) {
	p.mu.Lock()
	p.live.add(key, size)
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
	n := p.live.len()
	if n == 0 {
		return "", 0, false
	}
	key, size = p.live.at(rng.IntN(n))
	if !p.live.varied {
		size = p.size
	}
	if p.mutable {
		if p.leases == nil {
			p.leases = map[string]int32{}
		}
		p.leases[p.leaseKey(key)]++
	}
	return key, size, true
}

// leaseKey is what leases are counted under: the key after the prefix (a
// substring: no copy), as take finds it in the arena.
func (p *keyPool) leaseKey(key string) string {
	if strings.HasPrefix(key, p.prefix) {
		return key[len(p.prefix):]
	}
	return key
}

// release ends the lease pick took on key.
func (p *keyPool) release(key string) {
	if !p.mutable {
		return
	}
	p.mu.Lock()
	k := p.leaseKey(key)
	if p.leases[k]--; p.leases[k] <= 0 {
		delete(p.leases, k)
	}
	p.mu.Unlock()
}

// take removes and returns a random live object (for DELETE), preferring
// one nobody is reading.
func (p *keyPool) take(rng *rand.Rand) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := p.live.len()
	if n == 0 {
		return "", false
	}
	i := rng.IntN(n)
	for j := 0; j < n && p.leased(i); j++ {
		i = (i + 1) % n
	}
	k, _ := p.live.at(i)
	p.live.remove(i)
	return k, true
}

// leased reports whether live key i is being read.
func (p *keyPool) leased(i int) bool {
	if len(p.leases) == 0 {
		return false
	}
	var buf [256]byte
	rest, _, _ := p.live.appendRest(buf[:0], i)
	return p.leases[string(rest)] > 0 // no copy: a look-up only
}

func (p *keyPool) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.live.len()
}

// forget empties the pool: its objects are going.
func (p *keyPool) forget() {
	p.mu.Lock()
	p.live.reset()
	p.leases = nil
	p.mu.Unlock()
}
