package result

import "time"

// Transfer is what one whole-object transfer (objbench transfer) did in a
// step: its own figures beside the step's per-second request records.
// The step's stream records each request that moved data (a small
// object's PUT or GET, one part, one ranged GET) as op PUT or GET; the
// whole objects are counted here, with their latency (version 4).
type Transfer struct {
	Download    bool   `json:"download"`
	Source      string `json:"source"`
	Destination string `json:"destination"`
	PlanObjects int64  `json:"plan_objects"`
	PlanBytes   int64  `json:"plan_bytes"`
	// Objects and Bytes are what finished; Parts the data requests;
	// Retries the requests tried again.
	Objects         int64         `json:"objects"`
	Bytes           int64         `json:"bytes"`
	Parts           int64         `json:"parts"`
	Retries         int64         `json:"retries"`
	Wall            time.Duration `json:"wall_ns"`
	PartSize        int64         `json:"part_size"`
	PartConcurrency int           `json:"part_concurrency"`
	Workers         int           `json:"workers"`
	// ObjectLatency is the encoded HDR histogram (microseconds) of whole
	// objects, first request to last answer.
	ObjectLatency string `json:"object_latency_us,omitempty"`
	// Check is what the destination held afterwards; nil when not
	// checked (the transfer failed first).
	Check *TransferCheck `json:"check,omitempty"`
	Error string         `json:"error,omitempty"`
	// Manifest is the key of the record of what an upload wrote, beside
	// its prefix (objbench clean deletes exactly that); on the last step.
	Manifest string `json:"manifest,omitempty"`
}

// TransferCheck is an upload's verification: each key it wrote present,
// of its size and with the ETag its upload got back (where compared);
// objects under the prefix it did not write are counted, not failed. A
// download's counts what it moved against what it planned.
type TransferCheck struct {
	Verified    bool   `json:"verified"`
	Objects     int64  `json:"objects"`
	Bytes       int64  `json:"bytes"`
	WantObjects int64  `json:"want_objects"`
	WantBytes   int64  `json:"want_bytes"`
	Missing     int64  `json:"missing,omitempty"`
	WrongSize   int64  `json:"wrong_size,omitempty"`
	Changed     int64  `json:"changed,omitempty"`
	Compared    int64  `json:"etags_compared,omitempty"`
	Others      int64  `json:"others,omitempty"`
	OtherBytes  int64  `json:"other_bytes,omitempty"`
	Text        string `json:"text"`
}

// MiBps is the throughput over the wall time.
func (t *Transfer) MiBps() float64 {
	if t.Wall <= 0 {
		return 0
	}
	return float64(t.Bytes) / (1 << 20) / t.Wall.Seconds()
}

// ObjectsPerSec is the object rate over the wall time.
func (t *Transfer) ObjectsPerSec() float64 {
	if t.Wall <= 0 {
		return 0
	}
	return float64(t.Objects) / t.Wall.Seconds()
}

// Objects is the percentiles of whole objects' latency.
func (t *Transfer) ObjectPercentiles() (Percentiles, error) {
	if t.ObjectLatency == "" {
		return Percentiles{}, nil
	}
	h, err := DecodeHistogram(t.ObjectLatency)
	if err != nil {
		return Percentiles{}, err
	}
	return percentiles(h), nil
}
