// Package transfer moves whole objects between local sources and a store:
// uploads of files, directories, globs or generated data (gen:SIZE,
// gen:NxSIZE, streamed from the payload generator, so a 100 GiB upload
// needs no 100 GiB file), and downloads to a directory or to nothing.
//
// A Plan lists what to move, or, for a corpus, hands its items out one at
// a time (CorpusPlan: half a million emails are never in memory at once);
// Run moves it with Workers objects in flight
// and, for objects larger than a part, PartConcurrency parts in flight per
// object (multipart uploads, ranged GETs), retrying failed requests with
// backoff (the store is wrapped in storage/retry) and timing every object
// and part in HDR histograms. What an upload wrote (key, size, ETag) is
// kept sorted in temporary files (Result.Written, removed by Close), and
// Verify compares what the store then holds with the plan by merging the
// plan, those records and the listing in key order, holding nothing per
// object.
//
// Safety: an upload writes only the keys of its plan (all under the
// destination prefix) and its manifest (beside the prefix: WriteManifest)
// and deletes nothing except its own unfinished multipart uploads, which
// it always aborts on failure or interrupt. Clean deletes only keys a
// manifest records and that still hold what the upload wrote. A
// download never replaces an existing local file unless Force is set.
// The package never prints: progress is a Counter the caller reads.
package transfer
