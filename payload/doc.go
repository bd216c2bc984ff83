// Package payload generates object bodies fast: a block of incompressible
// bytes made once per run, served by readers that wrap around it at a
// per-object offset, so no payload byte is allocated or generated per op.
//
// It must not do I/O beyond what callers read from it.
package payload
