package resultpack

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// The geometry of every latency histogram objbench writes (result's
// Lowest, Highest and Digits, which it checks are these):
// microseconds from 1 µs to 1 h at 3 significant digits.
const (
	Lowest  = 1
	Highest = int64(time.Hour / time.Microsecond)
	Digits  = 3
)

// NewHistogram is an empty histogram of objbench's geometry.
func NewHistogram() *hdr.Histogram { return hdr.New(Lowest, Highest, Digits) }

// ErrGeometry: a histogram that is not of objbench's geometry (a result
// file edited by hand, or made to exhaust memory: a wide geometry decodes
// into a counts array of tens of MiB).
var ErrGeometry = errors.New("histogram of another geometry than objbench writes (1 µs .. 1 h, 3 digits)")

// The V2 compressed form of an HDR histogram (what a result file holds,
// base64): [cookie, length of what follows] then zlib of [cookie, payload
// length, normalizing offset, digits, lowest, highest, conversion ratio]
// and a payload of ZigZag LEB128 counts in index order, a negative value
// being a run of that many empty buckets.
//
// A histogram codec of our own, for merging only: hdrhistogram-go's
// decoders allocate a zlib reader (and, for the dense form, 184 KiB of
// counts) per histogram, and re-inflate with each call; merging a run of
// 100 workers for an hour decodes 720,000 histograms. bench.BenchmarkMerge
// measures it; the codec's tests check it against the library's both ways.
const (
	v2Cookie           = 0x1c849303
	v2CompressedCookie = 0x1c849304
	cookieVersionMask  = 0xf0
	v2HeaderSize       = 40
	// Indexing of objbench's geometry (1 µs .. 1 h, 3 digits): 2,048
	// sub-buckets of which the upper 1,024 repeat per power of two.
	subBucketHalfMag = 10
	subBucketHalf    = 1 << subBucketHalfMag
	histCounts       = 23 * subBucketHalf // hdr's countsLen for the geometry; TestSparseGeometry checks it
)

var errSparse = errors.New("corrupt histogram")

// sparseHist is a histogram of objbench's geometry as its populated
// buckets, in index order.
type sparseHist struct {
	idx []int32
	cnt []int64
}

// bucketValue is the lowest value of bucket index i.
func bucketValue(i int32) int64 {
	bucket := (i >> subBucketHalfMag) - 1
	sub := (i & (subBucketHalf - 1)) + subBucketHalf
	if bucket < 0 {
		sub -= subBucketHalf
		bucket = 0
	}
	return int64(sub) << uint(bucket)
}

// into adds s to the dense histogram h (of objbench's geometry).
func (s *sparseHist) into(h *hdr.Histogram) error {
	for k, i := range s.idx {
		if err := h.RecordValues(bucketValue(i), s.cnt[k]); err != nil {
			return err
		}
	}
	return nil
}

// Codec decodes and encodes histograms, reusing its buffers and zlib
// streams: one per goroutine.
type Codec struct {
	raw, payload []byte
	zr           io.ReadCloser
	zw           *zlib.Writer
	out          bytes.Buffer
	tmp, scratch sparseHist
	dense        []int64 // sum's accumulator, all zero between calls
}

// decode reads enc (V2 text, or the packed form; "": no values, as
// encode writes an empty histogram) into dst (emptied first), refusing
// another geometry.
func (c *Codec) decode(enc string, dst *sparseHist) error {
	if enc == "" {
		dst.idx, dst.cnt = dst.idx[:0], dst.cnt[:0]
		return nil
	}
	if IsPacked(enc) {
		return parsePackedString(enc, dst)
	}
	dst.idx, dst.cnt = dst.idx[:0], dst.cnt[:0]
	n := base64.StdEncoding.DecodedLen(len(enc))
	if cap(c.raw) < n {
		c.raw = make([]byte, n)
	}
	n, err := base64.StdEncoding.Decode(c.raw[:n], []byte(enc))
	if err != nil || n < 8 {
		return errSparse
	}
	raw := c.raw[:n]
	if int32(binary.BigEndian.Uint32(raw))&^cookieVersionMask != v2CompressedCookie {
		return errSparse
	}
	if l := binary.BigEndian.Uint32(raw[4:]); uint64(l) > uint64(len(raw)-8) {
		return errSparse
	}
	if err := c.inflate(raw[8:]); err != nil {
		return err
	}
	return parsePayload(c.payload, dst)
}

// inflate reads the zlib stream z into c.payload, checking the header.
func (c *Codec) inflate(z []byte) error {
	var err error
	if c.zr == nil {
		c.zr, err = zlib.NewReader(bytes.NewReader(z))
	} else {
		err = c.zr.(zlib.Resetter).Reset(bytes.NewReader(z), nil)
	}
	if err != nil {
		return errSparse
	}
	var head [v2HeaderSize]byte
	if _, err := io.ReadFull(c.zr, head[:]); err != nil {
		return errSparse
	}
	if int32(binary.BigEndian.Uint32(head[:]))&^cookieVersionMask != v2Cookie {
		return errSparse
	}
	if int32(binary.BigEndian.Uint32(head[12:])) != Digits || int64(binary.BigEndian.Uint64(head[16:])) != Lowest ||
		int64(binary.BigEndian.Uint64(head[24:])) != Highest {
		return ErrGeometry
	}
	plen := int64(binary.BigEndian.Uint32(head[4:]))
	if plen > histCounts*9 { // one varint of at most 9 bytes per bucket
		return errSparse
	}
	if int64(cap(c.payload)) < plen+1 {
		c.payload = make([]byte, plen+1)
	}
	c.payload = c.payload[:plen+1]
	got, err := io.ReadFull(c.zr, c.payload)
	if int64(got) != plen || (err != io.ErrUnexpectedEOF && err != io.EOF) {
		return errSparse // shorter or longer than its header says
	}
	c.payload = c.payload[:plen]
	return nil
}

// parsePayload reads the ZigZag LEB128 counts into dst.
func parsePayload(p []byte, dst *sparseHist) error {
	var at int64
	for len(p) > 0 {
		u, n := uvarint9(p)
		if n <= 0 {
			return errSparse
		}
		p = p[n:]
		v := int64(u>>1) ^ -int64(u&1)
		switch {
		case v < 0:
			if v == math.MinInt64 || -v > histCounts-at {
				return errSparse
			}
			at -= v
		case at >= histCounts:
			return errSparse
		default:
			if v > 0 {
				dst.idx, dst.cnt = append(dst.idx, int32(at)), append(dst.cnt, v)
			}
			at++
		}
	}
	return nil
}

// uvarint9 reads HdrHistogram's LEB128-64b9B: up to eight bytes of seven
// bits with a continuation bit, then a ninth of eight bits. It returns
// the bytes read, 0 when p ends first.
func uvarint9(p []byte) (uint64, int) {
	var v uint64
	for i := range 8 {
		if i == len(p) {
			return 0, 0
		}
		v |= uint64(p[i]&0x7f) << (7 * i)
		if p[i] < 0x80 {
			return v, i + 1
		}
	}
	if len(p) < 9 {
		return 0, 0
	}
	return v | uint64(p[8])<<56, 9
}

// appendVarint9 appends v as uvarint9 reads it.
func appendVarint9(b []byte, v uint64) []byte {
	for i := 0; i < 8; i++ {
		if v < 0x80 {
			return append(b, byte(v))
		}
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// encode writes s in a result file's form; "" when it is empty.
func (c *Codec) encode(s *sparseHist) string {
	if len(s.idx) == 0 {
		return ""
	}
	c.payload = c.payload[:0]
	var at int32
	for k, i := range s.idx {
		if gap := int64(i - at); gap > 0 {
			c.payload = appendVarint9(c.payload, uint64(-gap<<1)^uint64(-gap>>63))
		}
		c.payload = appendVarint9(c.payload, uint64(s.cnt[k]<<1)^uint64(s.cnt[k]>>63))
		at = i + 1
	}
	var head [v2HeaderSize]byte
	binary.BigEndian.PutUint32(head[0:], v2Cookie|0x10)
	binary.BigEndian.PutUint32(head[4:], uint32(len(c.payload)))
	binary.BigEndian.PutUint32(head[12:], Digits)
	binary.BigEndian.PutUint64(head[16:], Lowest)
	binary.BigEndian.PutUint64(head[24:], uint64(Highest))
	binary.BigEndian.PutUint64(head[32:], math.Float64bits(1))
	c.out.Reset()
	c.out.Write(make([]byte, 8))
	if c.zw == nil {
		c.zw = zlib.NewWriter(&c.out)
	} else {
		c.zw.Reset(&c.out)
	}
	_, _ = c.zw.Write(head[:]) // writes to a bytes.Buffer do not fail
	_, _ = c.zw.Write(c.payload)
	_ = c.zw.Close()
	b := c.out.Bytes()
	binary.BigEndian.PutUint32(b[0:], v2CompressedCookie|0x10)
	binary.BigEndian.PutUint32(b[4:], uint32(len(b)-8))
	return base64.StdEncoding.EncodeToString(b)
}

// histError is a histogram decode refused.
func histError(err error) error { return fmt.Errorf("decode histogram: %w", err) }

// AddEncoded adds the encoded histogram enc (V2 text or a packed form;
// "": none) to *dst, making *dst when it is the first.
func (c *Codec) AddEncoded(dst **hdr.Histogram, enc string) error {
	if enc == "" {
		return nil
	}
	if err := c.decode(enc, &c.tmp); err != nil {
		return histError(err)
	}
	if *dst == nil {
		*dst = NewHistogram()
	}
	return c.tmp.into(*dst)
}

// Sum is the encoded histograms encs added up, encoded: each bucket's
// counts summed in a dense array the codec keeps, so adding many
// histograms costs what they hold, not what the sum holds.
func (c *Codec) Sum(encs []string) (string, error) {
	if len(encs) == 0 {
		return "", nil
	}
	if c.dense == nil {
		c.dense = make([]int64, histCounts)
	}
	touched := c.scratch.idx[:0]
	for _, enc := range encs {
		if err := c.decode(enc, &c.tmp); err != nil {
			return "", histError(err)
		}
		for k, i := range c.tmp.idx {
			if c.dense[i] == 0 {
				touched = append(touched, i)
			}
			c.dense[i] += c.tmp.cnt[k]
		}
	}
	slices.Sort(touched)
	out := &c.scratch
	out.idx, out.cnt = touched, out.cnt[:0]
	for _, i := range touched {
		out.cnt = append(out.cnt, c.dense[i])
		c.dense[i] = 0
	}
	return c.encode(out), nil
}
