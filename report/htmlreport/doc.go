// Package htmlreport renders a run's result file as one self-contained
// HTML page: throughput, ops/s and latency over time, the latency
// distribution, the sweep's throughput-versus-latency curve and the
// machine's timeline beside them, with the run's facts and verdict.
//
// Charts are drawn by gonum/plot into SVG that the page inlines: the page
// fetches nothing, runs no script and opens offline. It only renders; it
// never prints, and reads nothing but the Result it is given.
package htmlreport
