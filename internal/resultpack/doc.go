// Package resultpack is the result file's private codec: how a stream's
// per-second records are packed inside the file (pack.go, unpack.go), the
// packed forms of a latency histogram (the gap form, gapform.go, and the
// split form, split.go), the frames that compress them (frame.go), the
// cutting of the packed strings out of a document before encoding/json
// reads it (jsonspans.go), and the accumulators a merge and a summary add
// packed histograms into (paged.go, split_add.go), with the V2 histogram
// form read without the library's allocations (sparse.go).
//
// It knows no result types, so that result, which owns the schema, can
// import it: a second is given and returned as this package's Second and
// OpSecond, which result converts. result and merge are its only users;
// what it packs is result's business (docs/design/040-result-packing.md,
// 041-merge.md).
//
// Everything it reads is untrusted: a corrupt or hostile blob is an
// error, never a panic, and what it allocates is bounded by what it was
// given. It must not print, read flags or the environment.
package resultpack
