package result

// Replay says what a replayed run replayed: its sources, how, and what the
// source log itself measured, so the replay's latency can be set beside
// the latency the traffic had where it was recorded.
type Replay struct {
	Sources []string `json:"sources"`
	Format  string   `json:"format,omitempty"` // as detected or named: s3-access, cloudtrail, minio-trace, oplog
	// Speed is the factor the trace's offsets were divided by; 0: as fast
	// as the workers allow ("max").
	Speed float64 `json:"speed"`
	// Window and Ops are the slice of the trace replayed, as given.
	Window string `json:"window,omitempty"`
	Ops    int64  `json:"ops_limit,omitempty"`
	// Issued is the trace's ops replayed; Prepared the objects written
	// first because the trace reads them before it writes them.
	Issued   int64 `json:"issued"`
	Prepared int64 `json:"prepared"`
	// Skipped counts the entries not replayed, by reason.
	Skipped map[string]int64 `json:"skipped,omitempty"`
	// Late counts records that came later than the reorder window allowed
	// and were issued at once instead of at their offset.
	Late int64 `json:"late,omitempty"`
	// Loop is how the requests were paced: "open" (each at its offset,
	// workers added as needed, drops counted), "closed" (Workers workers
	// take them in order, each at its offset or when one is free), ""
	// back to back (speed max). Burst: a second of a log with
	// whole-second times went out at once, not spread over the second.
	Loop  string `json:"loop,omitempty"`
	Burst bool   `json:"burst,omitempty"`
	// LogConcurrency is the most requests the source had in flight at
	// once (from their starts and durations; 0 when it has none).
	LogConcurrency int `json:"log_concurrency,omitempty"`
	// Span is the replayed slice's length in the source's time (speed
	// 1), seconds: from its first request's start to its last's.
	Span float64 `json:"span_s,omitempty"`
	// Held counts the requests that waited for an earlier request of
	// their key to end (the trace's order of ops on one key is kept).
	Held int64 `json:"held,omitempty"`
	// Source is what the source recorded, per op: its latency (an access
	// log's total time, an op log's latency, a trace's duration) and time
	// to first byte (turn-around time); ops without timings are counted
	// only.
	Source []SourceOp `json:"source,omitempty"`
}

// SourceOp is one op's latency as the source log recorded it.
type SourceOp struct {
	Op      string      `json:"op"`
	Ops     int64       `json:"ops"`
	Latency Percentiles `json:"latency"`
	TTFB    Percentiles `json:"ttfb"`
}
