package result

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/objbench/objbench/internal/resultpack"
)

// The geometry of every latency histogram objbench writes: microseconds
// from 1 µs to 1 h at 3 significant digits (0.1% resolution), so that any
// two histograms merge.
const (
	HistLowest  = 1
	HistHighest = int64(time.Hour / time.Microsecond)
	HistDigits  = 3
)

// The codec's geometry is this one (compile-time checks: a difference
// either way is a negative constant, which no uint64 holds).
const (
	_ = uint64(HistLowest-resultpack.Lowest) + uint64(resultpack.Lowest-HistLowest)
	_ = uint64(HistHighest-resultpack.Highest) + uint64(resultpack.Highest-HistHighest)
	_ = uint64(HistDigits-resultpack.Digits) + uint64(resultpack.Digits-HistDigits)
)

// NewHistogram is an empty histogram of objbench's geometry.
func NewHistogram() *hdr.Histogram { return hdr.New(HistLowest, HistHighest, HistDigits) }

// EncodeHistogram is h in a result file's form (V2 compressed, base64);
// "" for an empty or nil histogram.
func EncodeHistogram(h *hdr.Histogram) string {
	if h == nil || h.TotalCount() == 0 {
		return ""
	}
	b, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil { // only on an unknown version constant
		panic(err)
	}
	return string(b)
}

// DecodeHistogram reads a histogram of a result file (V2 text, or the
// packed form of version 5's per-second records), refusing any of another
// geometry before it allocates.
func DecodeHistogram(enc string) (*hdr.Histogram, error) {
	if resultpack.IsPacked(enc) {
		h, err := resultpack.DecodePacked(enc)
		if err != nil {
			return nil, fmt.Errorf("decode histogram: %w", err)
		}
		return h, nil
	}
	if err := checkGeometry(enc); err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	h, err := hdr.Decode([]byte(enc))
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	return h, nil
}

// checkGeometry reads the header inside the compressed form: [cookie,
// length] then zlib of [cookie, payload length, normalizing offset,
// digits, lowest, highest, ratio].
func checkGeometry(enc string) error {
	const outer, inner = 8, 40
	raw := make([]byte, base64.StdEncoding.DecodedLen(min(len(enc), 4096)))
	n, err := base64.StdEncoding.Decode(raw, []byte(enc[:min(len(enc), 4096)&^3]))
	if err != nil || n < outer {
		return resultpack.ErrGeometry
	}
	z, err := zlib.NewReader(bytes.NewReader(raw[outer:n]))
	if err != nil {
		return resultpack.ErrGeometry
	}
	defer z.Close()
	var head [inner]byte
	if _, err := io.ReadFull(z, head[:]); err != nil {
		return resultpack.ErrGeometry
	}
	digits := int32(binary.BigEndian.Uint32(head[12:]))
	lowest := int64(binary.BigEndian.Uint64(head[16:]))
	highest := int64(binary.BigEndian.Uint64(head[24:]))
	if digits != HistDigits || lowest != HistLowest || highest != HistHighest {
		return resultpack.ErrGeometry
	}
	return nil
}
