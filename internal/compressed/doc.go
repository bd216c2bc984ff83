// Package compressed reads and writes streams that may be gzip or zstd
// compressed: readers recognise the format by its magic bytes (never by a
// file name), writers choose it from the file name's extension (.gz,
// .zst). Decoders are bounded against hostile input (a zstd window of at
// most MaxWindow) and run synchronously, without goroutines of their own.
//
// It must not buffer whole streams or guess a format from content other
// than the magic bytes.
package compressed
