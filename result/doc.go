// Package result is objbench's result file: the versioned records a run
// writes (per-second op records with their HDR histograms, windows, steps,
// the machine's timeline and verdict) and the one computation every
// reader shares to turn them into totals (Summarize). report, compare,
// merge and the HTML page read only these types; the engines (metrics,
// loadgen, sysmon) produce them.
//
// The JSON form is the file format. Changing a field's name, type or
// meaning is a schema change: bump Version, keep a file of the old
// version in testdata, and teach Decode to read it (schema_test.go fails
// otherwise). Since version 5 a stream's seconds are one packed string in
// it (packstream.go, packedhist.go): Decode cuts those strings out before
// encoding/json reads the rest (jsonspans.go), and a merge reads them
// frame by frame without unpacking them into records (merge_order.go);
// since version 6 each frame names its codec (packframe.go), and since
// version 7 histograms are in the split form (packedsplit.go).
//
// This package must not print, read flags or the environment, or depend
// on the packages that produce its records.
package result
