//go:build amd64 && !purego

package result

// addGroups is addGroupsGo (packedsplit_groups.go) in assembly
// (packedsplit_amd64.s): a merge's inner loop, six instructions a bucket
// and about twenty for each eight, where Go's compiler made nine and
// sixty (it kept the counts on the stack). go test -bench
// AddPacked/split against -tags purego: docs/design/041-merge.md.
//
// What the assembly reads and writes is bounded here: eight gaps from
// below wide (at most len(g)-8), four bytes of counts from below wide/4
// (wide at most 4*(len(cs)-3)), escapes from ei up to len(e), and d
// only at places from at+1 up to eight gaps of at most 254 past at, below
// histCounts here (d is longer by more than that).
func addGroups(d *countBlock, g, cs, e []byte, j, wide, at, ei int) (nj, nat int, esc uint, nei int, added uint64) {
	wide = min(wide, len(g)-7, 4*(len(cs)-3))
	if j < 0 || j >= wide || at < -1 || at >= histCounts || ei < 0 || ei > len(e) {
		return j, at, 0, ei, 0
	}
	var ep *byte // e may be empty
	if len(e) > 0 {
		ep = &e[0]
	}
	return addGroupsAsm(d, &g[0], &cs[0], ep, j, wide, at, ei, len(e))
}

// addGroupsAsm is addGroups' loop: see addGroupsGo.
//
//go:noescape
func addGroupsAsm(blk *countBlock, gaps, counts, escs *byte, j, wide, at, ei, elen int) (nj, nat int, esc uint, nei int, added uint64)

// The assembly's places are below histCounts and eight gaps: within a block.
const _ uint = blockLen - histCounts - 8*255
