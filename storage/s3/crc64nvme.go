package s3

import (
	"encoding/binary"
	"hash"
	"hash/crc64"
)

// crc64NVMEPoly is CRC-64/NVME's polynomial 0xAD93D23594C93659, bit
// reversed as hash/crc64 takes it (S3's CRC64NVME checksum).
const crc64NVMEPoly = 0x9A6C9329AC4BC9B5

// crc64Tables are CRC-64/NVME's slicing-by-8 tables: hash/crc64's own
// table first, and seven derived from it. hash/crc64 has slicing tables
// only for its ISO and ECMA polynomials; for any other it builds them
// anew (16 KiB) in every Write of 2 KiB or more. These are built once per
// Store.
type crc64Tables [8]crc64.Table

func newCRC64Tables() *crc64Tables {
	t := new(crc64Tables)
	t[0] = *crc64.MakeTable(crc64NVMEPoly)
	for i := range 256 {
		crc := t[0][i]
		for j := 1; j < 8; j++ {
			crc = t[0][crc&0xff] ^ (crc >> 8)
			t[j][i] = crc
		}
	}
	return t
}

// crc64Digest is a hash.Hash64 of CRC-64/NVME.
type crc64Digest struct {
	t   *crc64Tables
	crc uint64
}

var _ hash.Hash64 = (*crc64Digest)(nil)

func (d *crc64Digest) Write(p []byte) (int, error) {
	n := len(p)
	crc := ^d.crc
	for len(p) >= 8 {
		crc ^= binary.LittleEndian.Uint64(p)
		crc = d.t[7][crc&0xff] ^ d.t[6][(crc>>8)&0xff] ^ d.t[5][(crc>>16)&0xff] ^ d.t[4][(crc>>24)&0xff] ^
			d.t[3][(crc>>32)&0xff] ^ d.t[2][(crc>>40)&0xff] ^ d.t[1][(crc>>48)&0xff] ^ d.t[0][crc>>56]
		p = p[8:]
	}
	for _, b := range p {
		crc = d.t[0][byte(crc)^b] ^ (crc >> 8)
	}
	d.crc = ^crc
	return n, nil
}

func (d *crc64Digest) Sum64() uint64 { return d.crc }
func (d *crc64Digest) Sum(b []byte) []byte {
	return binary.BigEndian.AppendUint64(b, d.crc)
}
func (d *crc64Digest) Reset()         { d.crc = 0 }
func (d *crc64Digest) Size() int      { return 8 }
func (d *crc64Digest) BlockSize() int { return 1 }
