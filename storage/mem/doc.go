// Package mem is an in-memory storage.Store (with multipart uploads): the
// baseline that shows what the load generator itself costs, and a fast store
// for tests.
//
// Put copies the body, so callers may reuse their buffers. Memory is never
// bounded or spilled: the caller decides how much it writes. This package must
// not print, read the environment, or hold its lock while copying data.
package mem
