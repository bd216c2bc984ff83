// Package bench holds objbench's performance benchmarks and the scripts
// that reproduce the numbers quoted in notes and the README. Speed goals
// live here, never in unit tests.
package bench
