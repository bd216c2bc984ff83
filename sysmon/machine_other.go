//go:build !linux

package sysmon

// kernelAndMemory is unknown here: the machine's facts in a result come
// from Linux (sysmon reads /proc); elsewhere objbench reads, merges and
// reports results, and runs without them.
func kernelAndMemory() (string, uint64) { return "", 0 }
