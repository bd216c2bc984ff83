//go:build race

package s3_test

// raceEnabled: the race detector slows the client and the server beside
// it several times over, so millisecond timing checks are not asserted.
const raceEnabled = true
