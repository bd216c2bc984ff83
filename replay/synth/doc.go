// Package synth turns a trace (a stream of replay.Records) into a
// workload file that reproduces its shape at any scale: the op mix, a size
// histogram per op, key popularity (a zipf exponent fitted by maximum
// likelihood, or uniform when the fit is poor, with the fit's quality
// written beside it), the arrival rate (mean and peak; the mean becomes
// the open-loop rate), the share of reads of keys the trace wrote earlier
// (read-after-write, replayed as a stream of its own over the written
// keys) and the working set (distinct keys and bytes).
//
// Memory is bounded however long the trace: sizes go into power-of-two
// histograms, arrivals into per-second counts of the last two minutes,
// and keys into a bounded counter: every key is counted exactly up to
// Options.MaxKeys keys (default 262,144); beyond, a stratified sample:
// the MaxKeys/4 keys with the most requests stay exact (the head of a
// skewed popularity, which a plain sample would catch only in part), and
// of the others only the keys whose hash falls in a shrinking 1/2^k share
// of hash space are kept, each with exact counts and standing for 2^k
// keys. Distinct keys, bytes and the read-after-write share are estimated
// from that; the zipf fit weighs each kept key by what it stands for.
// Measured: a 50,000-key zipf(1.1) trace of 200,000 requests counted in
// 5,000 slots (1 in 8 sampled) fits 1.110 where exact counts fit 1.075,
// and estimates 19,601 distinct keys of 21,817 (keys that become hot only
// after the sampling began are missed).
//
// It must not print, touch storage or read the trace itself: callers feed
// records to a Profile.
package synth
