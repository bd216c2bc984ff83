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
