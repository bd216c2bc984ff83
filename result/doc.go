// Package result is objbench's result file: the versioned records a run
// writes (per-second op records with their HDR histograms, windows, steps,
// the machine's timeline and verdict), reading and writing them (Read,
// Write, Decode, Encode), and the one computation every reader shares to
// turn them into totals (Summarize, Summary). report, compare, merge and
// the HTML page read only these types; the engines (metrics, loadgen,
// sysmon) produce them.
//
// The JSON form is the file format. Changing a field's name, type or
// meaning is a schema change: bump Version, keep a file of the old
// version in testdata, and teach Decode to read it (schema_test.go fails
// otherwise). Since version 5 a stream's seconds are one packed string in
// it; how they are packed (frames, histogram forms, the cutting of those
// strings out of a document before encoding/json reads the rest) is
// private to internal/resultpack, which this package converts its seconds
// to and from. Combining workers' files is package merge's.
//
// This package must not print, read flags or the environment, or depend
// on the packages that produce its records.
package result
