// Package sysmon reads facts about the machine objbench runs on from /proc
// and the kernel (and, in time, samples CPU, disk and network each second).
//
// It must not spawn programs, print, or fail a run: a missing counter is
// reported as missing.
package sysmon
