package studies

import (
	"fmt"
	"path"
	"strconv"

	"github.com/objbench/objbench/result"
)

// Transfers is seed 000's table: each transfer (one row per step of each
// run) with its size, files, time and throughput, and what dstat showed
// meanwhile, averaged over the transfer's seconds: CPU usr/sys/idl/wai,
// disk and network MiB/s, paging in/out KiB/s.
func Transfers(runs []*result.Run) (Table, error) {
	t := Table{Title: "seed 000: transfers, watched with dstat (averages over each transfer's seconds)",
		Columns: []string{"TRANSFER", "SIZE", "FILES", "TIME (s)", "MiB/s", "usr", "sys", "idl", "wai",
			"dsk read", "dsk writ", "net recv", "net send", "pg in", "pg out"},
		Notes: []string{"TIME and MiB/s are each transfer's wall time and bytes over it; dsk and net in MiB/s, pg (paging) in KiB/s; usr..wai in % of all CPUs"}}
	for _, r := range runs {
		for i := range r.Steps {
			st := &r.Steps[i]
			tr := st.Transfer
			if tr == nil {
				continue
			}
			name := path.Base(tr.Destination)
			if tr.Download {
				name = "get " + path.Base(tr.Source)
			}
			if st.Repetition > 0 {
				name += " #" + strconv.Itoa(st.Repetition)
			}
			size := "-"
			if tr.Objects > 0 {
				size = mib(float64(tr.Bytes) / float64(tr.Objects))
			}
			row := []string{name, size, strconv.FormatInt(tr.Objects, 10), fmt.Sprintf("%.2f", tr.Wall.Seconds()),
				fmt.Sprintf("%.1f", tr.MiBps())}
			row = append(row, dstat(r, i)...)
			t.Rows = append(t.Rows, row)
		}
	}
	if len(t.Rows) == 0 {
		return t, fmt.Errorf("no transfer in these result files")
	}
	return t, nil
}

// mib formats bytes as seed 000 names sizes: "16 MiB", "64 KiB".
func mib(b float64) string {
	switch {
	case b >= 1<<30:
		return strconv.FormatFloat(b/(1<<30), 'g', 4, 64) + " GiB"
	case b >= 1<<20:
		return strconv.FormatFloat(b/(1<<20), 'g', 4, 64) + " MiB"
	case b >= 1<<10:
		return strconv.FormatFloat(b/(1<<10), 'g', 4, 64) + " KiB"
	}
	return strconv.FormatFloat(b, 'f', 0, 64) + " B"
}

// dstat averages the samples of step i, weighted by their length.
func dstat(r *result.Run, i int) []string {
	var n, usr, sys, idl, wai, rd, wr, rx, tx, pin, pout float64
	if r.System != nil {
		for _, s := range r.System.Samples {
			if s.Step != i || s.Dur <= 0 {
				continue
			}
			d := s.Dur
			n += d
			usr, sys, idl, wai = usr+s.CPU.User*d, sys+s.CPU.Sys*d, idl+s.CPU.Idle*d, wai+s.CPU.IOWait*d
			rd, wr = rd+s.Disk.ReadBytes*d, wr+s.Disk.WriteBytes*d
			rx, tx = rx+s.Net.RecvBytes*d, tx+s.Net.SendBytes*d
			pin, pout = pin+s.PageIn*d, pout+s.PageOut*d
		}
	}
	if n == 0 {
		return []string{"-", "-", "-", "-", "-", "-", "-", "-", "-", "-"}
	}
	pct := func(v float64) string { return strconv.FormatFloat(v/n, 'f', 0, 64) }
	mb := func(v float64) string { return strconv.FormatFloat(v/n/(1<<20), 'f', 1, 64) }
	kb := func(v float64) string { return strconv.FormatFloat(v/n/(1<<10), 'f', 0, 64) }
	return []string{pct(usr), pct(sys), pct(idl), pct(wai), mb(rd), mb(wr), mb(rx), mb(tx), kb(pin), kb(pout)}
}
