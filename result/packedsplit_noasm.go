//go:build !amd64 || purego

package result

// addGroups is addGroupsGo (packedsplit_groups.go) where there is no
// assembly for it.
func addGroups(d *countBlock, g, cs, e []byte, j, wide, at, ei int) (nj, nat int, esc uint, nei int, added uint64) {
	return addGroupsGo(d, g, cs, e, j, wide, at, ei)
}
