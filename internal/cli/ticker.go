package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/objbench/objbench/report"
)

// tickLines shows a progress line until done closes: redrawn in place each
// second on a terminal, printed every ten seconds otherwise (logs stay
// short). line renders the text for the time elapsed since start.
func tickLines(w io.Writer, start time.Time, done <-chan struct{}, line func(elapsed time.Duration) string) {
	tty := isTerminal(w)
	every := 10 * time.Second
	if tty {
		every = time.Second
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-done:
			if tty {
				fmt.Fprint(w, "\r\033[K")
			}
			return
		case now := <-t.C:
			if tty {
				fmt.Fprint(w, "\r\033[K"+line(now.Sub(start)))
			} else {
				fmt.Fprintln(w, line(now.Sub(start)))
			}
		}
	}
}

// amountLine is "what: n/of units, B of TOTAL (P%), R/s".
func amountLine(what, units string, n, of, b, total int64, elapsed time.Duration) string {
	return fmt.Sprintf("%s: %d/%d %s, %s of %s (%.0f%%), %s/s", what, n, of, units,
		report.Bytes(float64(b)), report.Bytes(float64(total)), 100*float64(b)/float64(max(total, 1)),
		report.Bytes(float64(b)/max(elapsed.Seconds(), 1e-9)))
}
