// Package clidoc generates objbench's command-line reference from its cobra
// commands: a markdown page per command (docs/cli) and a man page per
// command (docs/man). The reference is committed, and a test fails when it
// no longer matches the commands, naming the command that refreshes it:
//
//	go generate ./internal/clidoc
//
// It must not depend on the machine or the environment it runs in: the
// same commands give the same bytes everywhere.
package clidoc

//go:generate go run ./gen -root ../..
