//go:build !race

package faultserver_test

const raceEnabled = false
