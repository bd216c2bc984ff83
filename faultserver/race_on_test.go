//go:build race

package faultserver_test

// raceEnabled: the race detector slows the client (and the server in the
// same process) several times over, so absolute latency bounds widen.
const raceEnabled = true
