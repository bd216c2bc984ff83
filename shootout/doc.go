// Package shootout runs external S3 transfer tools (aws CLI, s5cmd, rclone,
// s3cmd, a boto3 script, objbench's own transfer, or any command template)
// under one harness: the same dataset, the same endpoint, a matrix of file
// shapes and thread counts, each cell repeated and reduced to its median.
//
// Every tool runs as a child process, so its wall time and CPU (user+sys
// from the child's rusage) are measured the same way. Each run uploads to
// its own fresh prefix under objbench-tools/RUN-ID/; afterwards the harness
// lists that prefix and marks the run failed unless count and bytes equal
// the dataset, then deletes what is under the prefix. Nothing outside the
// run's namespace is ever written or deleted.
//
// Credentials reach a tool only through its environment or a temporary
// config file (mode 0600, removed after the run); they never appear in a
// Result, an Event or an error: captured stderr is scrubbed of them.
//
// The package never prints: progress goes to Config.OnEvent, results to the
// writers the caller hands to WriteTable, WriteCSV and WriteJSON.
package shootout
