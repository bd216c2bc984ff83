package loadgen

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// refPool is the pool as it was before keys were held compactly: a slice
// of strings, one of sizes, leases by key. keyPool must behave exactly as
// it does, given the same random draws.
type refPool struct {
	prefix  string
	size    int64
	live    []string
	sizes   []int64 // nil: sizes do not vary
	leases  map[string]int32
	foreign []string
	fsizes  []int64
}

func (p *refPool) add(key string, size int64) {
	p.live = append(p.live, key)
	if p.sizes != nil {
		p.sizes = append(p.sizes, size)
	}
}

func (p *refPool) pick(rng *rand.Rand) (string, int64, bool) {
	if len(p.live) == 0 {
		return "", 0, false
	}
	i := rng.IntN(len(p.live))
	size := p.size
	if p.sizes != nil {
		size = p.sizes[i]
	}
	p.leases[p.live[i]]++
	return p.live[i], size, true
}

func (p *refPool) release(key string) {
	if p.leases[key]--; p.leases[key] <= 0 {
		delete(p.leases, key)
	}
}

func (p *refPool) take(rng *rand.Rand) (string, bool) {
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

func (p *refPool) adopt() {
	for i, k := range p.foreign {
		p.add(k, p.fsizes[i])
	}
	p.foreign, p.fsizes = nil, nil
}

// TestKeyPoolBehavesAsTheSlicePool drives a keyPool and the reference
// with the same random adds, picks, releases, takes, adoptions and
// forgets, and compares every answer and, often, the whole content.
func TestKeyPoolBehavesAsTheSlicePool(t *testing.T) {
	for seed := range uint64(40) {
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) {
			ops := rand.New(rand.NewPCG(seed, 1))
			varied := seed%2 == 0
			prefix := []string{"objbench/run/", "", "p/"}[seed%3]
			p := newKeyPool(prefix, 4096)
			p.mutable = true
			ref := &refPool{prefix: prefix, size: 4096, leases: map[string]int32{}}
			if varied {
				p.varySizes()
				ref.sizes = []int64{}
			}
			r1, r2 := rand.New(rand.NewPCG(seed, 2)), rand.New(rand.NewPCG(seed, 2))
			var leased []string
			next := 0
			newKey := func() string {
				next++
				switch n := ops.IntN(200); {
				case n < 20: // outside the prefix
					return "other/" + strconv.Itoa(next)
				case n == 20: // longer than an arena chunk
					return prefix + strings.Repeat("y", chunkSize+ops.IntN(1000)) + strconv.Itoa(next)
				case n < 40: // a git blob id, packed two digits a byte
					return prefix + fmt.Sprintf("%040x", next*7919)
				case n < 45: // hex, but not as packed: upper case, odd length
					return prefix + fmt.Sprintf("%040X", next*7919)
				case n < 50:
					return prefix + fmt.Sprintf("%039x", next*7919)
				case n < 80: // long: removed ones soon outweigh the live, and are reclaimed
					return prefix + strings.Repeat("x", ops.IntN(6000)) + strconv.Itoa(next)
				}
				return prefix + strconv.Itoa(next)
			}
			steps := 3000 + ops.IntN(3000)
			for step := range steps {
				op := ops.IntN(100)
				if seed%4 == 1 && op >= 30 && op < 40 { // a pool that drains now and then
					op = 70
				}
				switch {
				case op < 40:
					k, size := newKey(), ops.Int64N(1<<40)
					p.add(k, size)
					ref.add(k, size)
				case op < 60:
					k1, s1, ok1 := p.pick(r1)
					k2, s2, ok2 := ref.pick(r2)
					if k1 != k2 || s1 != s2 || ok1 != ok2 {
						t.Fatalf("step %d: pick = %q %d %v, want %q %d %v", step, k1, s1, ok1, k2, s2, ok2)
					}
					if ok1 {
						leased = append(leased, k1)
					}
				case op < 70 && len(leased) > 0:
					i := ops.IntN(len(leased))
					p.release(leased[i])
					ref.release(leased[i])
					leased = append(leased[:i], leased[i+1:]...)
				case op < 95:
					k1, ok1 := p.take(r1)
					k2, ok2 := ref.take(r2)
					if k1 != k2 || ok1 != ok2 {
						t.Fatalf("step %d: take = %q %v, want %q %v", step, k1, ok1, k2, ok2)
					}
				case op < 98:
					k, size := newKey(), ops.Int64N(1000)
					p.addForeign(k, size)
					ref.foreign, ref.fsizes = append(ref.foreign, k), append(ref.fsizes, size)
				case op < 99:
					p.mutable = false // adopt adds only to a pool that is read alone
					p.adopt()
					p.mutable = true
					ref.adopt()
				default:
					p.forget()
					ref.live, ref.leases, leased = nil, map[string]int32{}, nil
					if ref.sizes != nil {
						ref.sizes = []int64{}
					}
				}
				if step%97 == 0 || step == steps-1 {
					sameContent(t, p, ref)
				}
			}
		})
	}
}

func sameContent(t *testing.T, p *keyPool, ref *refPool) {
	t.Helper()
	if p.count() != len(ref.live) {
		t.Fatalf("count %d, want %d", p.count(), len(ref.live))
	}
	for i, want := range ref.live {
		k, size := p.live.at(i)
		if !p.live.varied {
			size = p.size
		}
		wantSize := ref.size
		if ref.sizes != nil {
			wantSize = ref.sizes[i]
		}
		if k != want || size != wantSize {
			t.Fatalf("key %d = %q (%d), want %q (%d)", i, k, size, want, wantSize)
		}
	}
	if len(p.leases) != len(ref.leases) {
		t.Fatalf("%d leased keys, want %d", len(p.leases), len(ref.leases))
	}
	for k, n := range ref.leases {
		if p.leases[p.leaseKey(k)] != n {
			t.Fatalf("key %q leased %d times, want %d", k, p.leases[p.leaseKey(k)], n)
		}
	}
}

// TestKeySetReclaimsWhatIsRemoved: a pool that keeps adding and taking
// (a put/delete mix) holds about what is live, not all it ever held.
func TestKeySetReclaimsWhatIsRemoved(t *testing.T) {
	s := keySet{prefix: "objbench/run/", varied: true}
	var ref []string // what s must hold, in its order
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range 400_000 {
		k := fmt.Sprintf("objbench/run/%040d", i)
		s.add(k, int64(i))
		ref = append(ref, k)
		if s.len() > 1000 {
			j := rng.IntN(s.len())
			s.remove(j)
			ref[j] = ref[len(ref)-1]
			ref = ref[:len(ref)-1]
		}
		if i%10_007 == 0 {
			for j, want := range ref {
				if k, size := s.at(j); k != want || fmt.Sprintf("objbench/run/%040d", size) != want {
					t.Fatalf("after %d adds: key %d = %q (size %d), want %q", i+1, j, k, size, want)
				}
			}
		}
	}
	live := int64(1000 * 41)
	if b := s.bytes(); b > 8*live+8*chunkSize {
		t.Fatalf("%d keys of %d bytes held in %d bytes", s.len(), live, b)
	}
	for s.len() > 0 {
		s.remove(0)
	}
	if b := s.bytes(); b > 16*chunkSize {
		t.Fatalf("an emptied set holds %d bytes", b)
	}
}

// BenchmarkKeyPoolBytesPerKey is what a pool of listed objects (with
// their sizes) costs per key in the Go heap, after a GC, against the
// slices of strings it replaced: keys of a 26-byte prefix and either a
// git blob id (40 hex digits, as a git corpus's items are named) or a
// 40-character name. Half a million objects must fit in a small memory.
func BenchmarkKeyPoolBytesPerKey(b *testing.B) {
	const n = 200_000
	prefix := "objbench/0123456789abcdef/"
	names := map[string]func(int) string{
		"blob-id": func(i int) string { return fmt.Sprintf("%s%040x", prefix, i*7919) },
		"name":    func(i int) string { return fmt.Sprintf("%smail/2024/inbox/message-%014d.eml", prefix, i) },
	}
	for _, kind := range []string{"blob-id", "name"} {
		key := names[kind]
		for _, c := range []struct {
			name string
			fill func() any
		}{
			{"keyPool", func() any {
				p := newKeyPool(prefix, 0)
				p.varySizes()
				for i := range n {
					p.add(key(i), int64(1000+i%30000))
				}
				return p
			}},
			{"slices", func() any {
				var live []string
				var sizes []int64
				for i := range n {
					live, sizes = append(live, key(i)), append(sizes, int64(1000+i%30000))
				}
				return []any{live, sizes}
			}},
		} {
			b.Run(kind+"/"+c.name, func(b *testing.B) {
				var per float64
				for range b.N {
					before := heapBytes()
					keep := c.fill()
					after := heapBytes()
					runtime.KeepAlive(keep)
					per = float64(after-before) / n
				}
				b.ReportMetric(per, "bytes/key")
			})
		}
	}
}

func heapBytes() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
