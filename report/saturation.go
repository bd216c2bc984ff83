package report

import (
	"fmt"
	"io"
	"time"

	"github.com/objbench/objbench/result"
)

// WriteSaturation prints a knee search's curve (offered and achieved rate,
// p50/p99, errors, dropped slots, whether each step met the objective)
// and its knee; nothing for a run that was not one.
func WriteSaturation(w io.Writer, r *result.Run) {
	s := r.Saturation
	if s == nil {
		return
	}
	stepped, p50, p99, unit := "OFFERED/s", "RESP P50", "RESP P99", "/s offered"
	if s.By == "concurrency" {
		stepped, p50, p99, unit = "WORKERS", "P50", "P99", " workers"
	}
	slo := fmt.Sprintf("p99<%v, errors+dropped <= %.2f%%", s.P99, 100*s.MaxErrorRatio)
	if s.P99 <= 0 {
		slo = fmt.Sprintf("errors+dropped <= %.2f%%", 100*s.MaxErrorRatio)
	}
	fmt.Fprintf(w, "%10s %10s %9s %10s %10s %7s %8s  %s\n", stepped, "ACHIEVED/s", "MiB/s", p50, p99, "ERR%", "DROPPED", "MEETS "+slo)
	for _, p := range s.Points {
		met := "yes"
		if !p.Met {
			met = "no: " + p.Why
		}
		fmt.Fprintf(w, "%10.0f %10.0f %9.1f %10s %10s %6.2f%% %8d  %s\n", p.Rate, p.Achieved, p.MiBPerSec, msDur(p.P50), msDur(p.P99),
			100*p.ErrorRatio, p.Dropped, met)
	}
	switch {
	case s.Knee != nil:
		fmt.Fprintf(w, "knee: %.0f%s, %.0f/s achieved, p99 %s (the next step: %s)\n", s.Knee.Rate, unit, s.Knee.Achieved, msDur(s.Knee.P99), s.StoppedBy)
	case s.Best != nil:
		fmt.Fprintf(w, "knee: not reached (stopped: %s); the highest step meeting the objective was %.0f%s, %.0f/s achieved, p99 %s\n",
			s.StoppedBy, s.Best.Rate, unit, s.Best.Achieved, msDur(s.Best.P99))
	case len(s.Points) > 0:
		fmt.Fprintf(w, "knee: none, the first step already missed the objective (%s)\n", s.StoppedBy)
	default:
		fmt.Fprintf(w, "knee: not reached (stopped: %s) before any step\n", s.StoppedBy)
	}
}

func msDur(d time.Duration) string {
	return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
}
