// Package cli is objbench's command line: cobra commands that turn flags
// into library values (a workload.Spec, a storage.Store) and call the
// library. It is the only package that prints or chooses exit codes.
package cli
