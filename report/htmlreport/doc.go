// Package htmlreport renders a run's result file as one self-contained
// HTML page: throughput, ops/s and latency over time, the latency
// distribution, the sweep's throughput-versus-latency curve and the
// machine's timeline beside them, with the run's facts and verdict.
// WriteCompare renders a comparison of runs the same way: each run's
// throughput beside the base's with the change and its mark, the runs'
// latency distributions and per-second throughput overlaid per op, and
// the comparison table.
//
// Charts are drawn by gonum/plot into SVG that the page inlines: the page
// fetches nothing, runs no script and opens offline. It only renders; it
// never prints, and reads nothing but the Results (and Comparison) it is
// given.
package htmlreport
