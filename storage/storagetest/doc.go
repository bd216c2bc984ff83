// Package storagetest is the one conformance suite every storage.Store passes:
// storagetest.Run(t, newStore) runs the same subtests against s3, fs and mem
// alike, so a backend that passes behaves the way load generation expects.
//
// The suite writes only under a unique prefix per subtest, so it can run
// against a shared bucket, and removes what it wrote. It must not depend on any
// particular backend, sleep to wait for something, or assume it owns the whole
// store.
package storagetest
