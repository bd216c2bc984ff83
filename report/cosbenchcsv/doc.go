// Package cosbenchcsv writes a run's result in the CSV layouts COSBench's
// controller archives (its SimpleWorkloadArchiver and CSV exporters): the
// workload CSV (one row per stage and operation), one timeline CSV per
// stage, the response-time histogram CSV, and a row appended to
// run-history.csv, so scripts and spreadsheets built on COSBench's
// archive keep working.
//
// It reads a result only; it must not print.
package cosbenchcsv
