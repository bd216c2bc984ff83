package workload

import (
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
)

var driverNumber = regexp.MustCompile(`^driver(\d+)$`)

// DriverRanks maps the COSBench drivers a spec's works name onto the ranks
// of a run split across processes: driverK runs on rank K-1, and other
// names take the ranks after the numbered ones, in the order they appear.
// A work with a driver runs whole on its rank; works without one are
// shared by all workers. A local run runs every work.
func (s Spec) DriverRanks() map[string]int {
	ranks := map[string]int{}
	var named []string
	next := 0
	for _, st := range s.Stages {
		for _, str := range st.Streams {
			d := str.Driver
			if d == "" {
				continue
			}
			if _, ok := ranks[d]; ok {
				continue
			}
			if m := driverNumber.FindStringSubmatch(d); m != nil {
				n, err := strconv.Atoi(m[1])
				if err == nil && n >= 1 && n <= 1<<20 {
					ranks[d] = n - 1
					next = max(next, n)
					continue
				}
			}
			ranks[d] = -1
			named = append(named, d)
		}
	}
	for _, d := range named {
		ranks[d] = next
		next++
	}
	return ranks
}

// WriteDriverRanks prints the mapping DriverRanks makes, for --dry-run.
func WriteDriverRanks(w io.Writer, s Spec) {
	ranks := s.DriverRanks()
	if len(ranks) == 0 {
		return
	}
	names := make([]string, 0, len(ranks))
	for d := range ranks {
		names = append(names, d)
	}
	sort.Slice(names, func(i, j int) bool { return ranks[names[i]] < ranks[names[j]] })
	fmt.Fprint(w, "COSBench drivers with --worker: ")
	for i, d := range names {
		if i > 0 {
			fmt.Fprint(w, ", ")
		}
		fmt.Fprintf(w, "%s -> worker %d", d, ranks[d])
	}
	fmt.Fprintln(w, " (each runs its works whole; works without a driver are shared; a local run runs them all)")
}
