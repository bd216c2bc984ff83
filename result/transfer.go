package result

import (
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

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

// mergeTransfers adds up the transfers of a step's parts (workers):
// counts add, the wall is the longest, object latencies merge.
func mergeTransfers(steps []*Step) (*Transfer, error) {
	var out *Transfer
	var lat *hdr.Histogram
	var codec histCodec
	for _, s := range steps {
		t := s.Transfer
		if t == nil {
			continue
		}
		if out == nil {
			c := *t
			out = &c
			out.Objects, out.Bytes, out.Parts, out.Retries, out.PlanObjects, out.PlanBytes = 0, 0, 0, 0, 0, 0
			out.Check, out.ObjectLatency = nil, ""
		}
		out.Objects += t.Objects
		out.Bytes += t.Bytes
		out.Parts += t.Parts
		out.Retries += t.Retries
		out.PlanObjects += t.PlanObjects
		out.PlanBytes += t.PlanBytes
		out.Wall = max(out.Wall, t.Wall)
		if out.Error == "" {
			out.Error = t.Error
		}
		if err := codec.addEncoded(&lat, t.ObjectLatency); err != nil {
			return nil, err
		}
		out.Check = out.Check.add(t.Check)
	}
	if out != nil {
		out.ObjectLatency = EncodeHistogram(lat)
	}
	return out, nil
}

func (c *TransferCheck) add(o *TransferCheck) *TransferCheck {
	switch {
	case o == nil:
		return c
	case c == nil:
		x := *o
		return &x
	}
	x := *c
	x.Verified = c.Verified && o.Verified
	x.Objects += o.Objects
	x.Bytes += o.Bytes
	x.WantObjects += o.WantObjects
	x.WantBytes += o.WantBytes
	x.Missing += o.Missing
	x.WrongSize += o.WrongSize
	x.Changed += o.Changed
	x.Compared += o.Compared
	x.Others = max(x.Others, o.Others)
	x.OtherBytes = max(x.OtherBytes, o.OtherBytes)
	x.Text = ""
	return &x
}
