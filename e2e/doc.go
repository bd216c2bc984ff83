// Package e2e holds end-to-end tests: they build the objbench binary once
// and run it as a user would, against the embedded server, a real MinIO
// started on 127.0.0.1 and temporary directories.
package e2e
