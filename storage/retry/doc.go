// Package retry wraps a storage.Store so that an operation failing in a way
// that may pass (a dropped connection, a timeout, a 5xx, 408 or 429 answer)
// is tried again, a bounded number of times, after a jittered backoff that
// grows with each attempt and never outlasts the context.
//
// An operation is retried only when it can be repeated exactly: a Put or
// part upload only if its body is an io.Seeker (it is rewound to where it
// started), a Get only if nothing was written yet, or the writer is an
// io.Seeker (rewound) or io.Discard, and a List only if no object was handed
// to the caller's function yet. The wrapper also retries multipart
// operations when the wrapped store has them, and reports every retry and
// the duration of each op's successful attempt to the caller's hooks.
//
// Like the stores it wraps, this package must not print, read flags or the
// environment, or hide the last error: when retries run out, the error of
// the last attempt is returned as the wrapped store gave it. Other optional
// capabilities (BucketManager, Syncer, ConnCounter) are reached through
// Unwrap and are not retried.
package retry
