// Package sysmon watches the machine objbench runs on: facts about it
// (Machine), a per-second sample of CPU (irq, softirq and steal in their
// own columns), whole-disk and per-interface I/O, paging, interrupts,
// context switches and objbench's own process (Sampler, on the same clock
// as a step's op records), and a verdict in words on what limited a run
// (Verdict, a pure function of samples and facts).
//
// Counters come from /proc and /sys through prometheus/procfs and from
// runtime/metrics. It must not spawn programs, print, read flags or the
// environment, or fail a run: a counter the machine lacks is named in the
// timeline and its columns stay empty.
package sysmon
