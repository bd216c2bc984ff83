//go:build amd64 && !purego

package result

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// TestAddGroupsAssemblyIsGo adds payloads of every kind, escapes, gaps
// up to 254, buckets past the geometry and start points anywhere, by the
// assembly and by addGroupsGo: the same blocks, the same stops.
func TestAddGroupsAssemblyIsGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 11))
	var asm, gol countBlock
	for k := range 20000 {
		n := 8 + rng.IntN(400)
		g := make([]byte, n)
		cs := make([]byte, (n+3)/4+rng.IntN(3))
		var e []byte // the escapes of counts: a byte each, or now and then two
		maxGap := []int{1, 4, 40, 255}[rng.IntN(4)]
		escGap, escCount := rng.IntN(3) == 0, rng.IntN(2) == 0
		for i := range g {
			g[i] = byte(rng.IntN(maxGap))
			if escGap && rng.IntN(200) == 0 {
				g[i] = 255
			}
			c := rng.IntN(3)
			if escCount && rng.IntN(20) == 0 {
				c = 3
				e = append(e, byte(rng.IntN(128)))
				if rng.IntN(30) == 0 {
					e = append(e[:len(e)-1], 0x80|byte(rng.IntN(128)), byte(1+rng.IntN(127)))
				}
			}
			cs[i/4] |= byte(c) << (2 * (i % 4))
		}
		wide := min(n-7, 4*(len(cs)-3))
		if rng.IntN(50) == 0 {
			e = e[:rng.IntN(len(e)+1)] // the escapes run out
		}
		j, at, ei := 0, -1, 0
		switch rng.IntN(8) {
		case 0: // the first eight end just before, at or just after the geometry's end
			j = rng.IntN(max(wide, 1))
			if j+8 <= n {
				at = histCounts - 1 - 8 - gapsSum(binary.LittleEndian.Uint64(g[j:])) + rng.IntN(3)
			}
		case 1, 2:
			j, at, ei = rng.IntN(n), rng.IntN(histCounts+1)-1, rng.IntN(len(e)+1) // at below histCounts, as the caller sees
		}
		for {
			j1, at1, esc1, ei1, add1 := addGroups(&asm, g, cs, e, j, wide, at, ei)
			j2, at2, esc2, ei2, add2 := addGroupsGo(&gol, g, cs, e, j, wide, at, ei)
			if j1 != j2 || at1 != at2 || esc1 != esc2 || ei1 != ei2 || add1 != add2 {
				t.Fatalf("payload %d from %d after %d, escape %d: assembly stopped at %d after %d (esc %#x, escape %d, added %d), Go at %d after %d (esc %#x, escape %d, added %d)",
					k, j, at, ei, j1, at1, esc1, ei1, add1, j2, at2, esc2, ei2, add2)
			}
			if asm != gol {
				t.Fatalf("payload %d from %d after %d: the blocks differ", k, j, at)
			}
			if esc1 == 0 || j1+8 >= wide || ei1 >= len(e) {
				break
			}
			// Past the escape that stopped them (two bytes), as the caller's addEscapedCounts goes.
			j, at, ei = j1+8, at1+8+gapsSum(binary.LittleEndian.Uint64(g[j1:])), min(ei1+2, len(e))
		}
	}
	var zero countBlock
	if asm == zero {
		t.Fatal("nothing was added")
	}
}
