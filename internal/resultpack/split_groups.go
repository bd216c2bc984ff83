package resultpack

import (
	"encoding/binary"
	"math/bits"
)

// addGroups adds the split payload's buckets from j, eight at a time, to d
// (bucket j's place is after at) while j < wide and the eight have no
// gap that escapes and end within the geometry (eight that end past it
// are added: from at below histCounts they stay within d, and the
// caller finds the payload corrupt). Counts that escape are
// added as 3 with the others, then made up from their escapes in e
// (from ei on) where those are a byte long; added is what those add
// beyond 4. It returns where it stopped: j and at of the eight it
// stopped at, with esc the lanes (their low bits) whose escaped counts
// it did not make up (longer escapes, or e ran out), or 0 when it
// stopped before eight it did not add; and the next escape's place. The
// caller sees that eight gaps from below wide and four bytes of counts
// from below wide/4 are there to read, that at is -1 or a bucket's
// place below histCounts and that 0 <= ei <= len(e).
func addGroups(d *countBlock, g, cs, e []byte, j, wide, at, ei int) (nj, nat int, esc uint, nei int, added uint64) {
	const mask = blockLen - 1
	for ; j < wide; j += 8 {
		w := binary.LittleEndian.Uint64(g[j:])
		if escapedGaps(w) != 0 {
			return j, at, 0, ei, added
		}
		cw := countsAt(cs, j)
		esc := cw & (cw >> 1) & pairsLow // counts of 4 and more
		// The counts, each field plus 1, 3 where it escapes (no field
		// carries into the next).
		cw1 := cw + pairsLow - esc
		b := g[j : j+8 : j+8]
		a := at + int(b[0]) + 1
		d[a&mask] += int64(cw1 & 3)
		a += int(b[1]) + 1
		d[a&mask] += int64(cw1 >> 2 & 3)
		a += int(b[2]) + 1
		d[a&mask] += int64(cw1 >> 4 & 3)
		a += int(b[3]) + 1
		d[a&mask] += int64(cw1 >> 6 & 3)
		a += int(b[4]) + 1
		d[a&mask] += int64(cw1 >> 8 & 3)
		a += int(b[5]) + 1
		d[a&mask] += int64(cw1 >> 10 & 3)
		a += int(b[6]) + 1
		d[a&mask] += int64(cw1 >> 12 & 3)
		a += int(b[7]) + 1
		d[a&mask] += int64(cw1 >> 14)
		if a >= histCounts { // added, but the payload is corrupt (a merge of it fails)
			return j, at, 0, ei, added
		}
		for ; esc != 0; esc &= esc - 1 {
			if ei >= len(e) || e[ei] >= 0x80 {
				return j, at, esc, ei, added
			}
			v := uint64(e[ei])
			ei++
			d[lanePlace(at, w, bits.TrailingZeros(esc)/2)&mask] += int64(v + 1)
			added += v
		}
		at = a
	}
	return j, at, 0, ei, added
}
