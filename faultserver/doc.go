// Package faultserver is test support, also used by `objbench selftest`: an
// S3 server whose misbehaviour is known exactly. It serves the embedded
// s3server's handler behind a middleware that injects, by configuration,
// service delays (fixed, jittered, and a tail at given fractions), periodic
// full stalls, 503 SlowDown answers, connection resets, slow, truncated and
// corrupted GET bodies. Every decision comes from a seeded generator, and
// the server records what it did to each request (an Event), so tests
// compare what a client measured against recorded truth, not assumptions.
//
// It also has a null target (Config.Null): a handler that keeps only object
// sizes and answers with zeros, to measure the client's own ceiling.
//
// This package must not print, exit, or read flags or the environment.
package faultserver
