package s3

import (
	"encoding/base64"
	"hash/crc64"
	"testing"
)

// CRC-64/NVME agrees with published values (the CRC catalogue's check
// value, the AWS checksum library's test, a CLI's README) and with
// hash/crc64 on the same table, whatever the writes' sizes.
func TestCRC64NVME(t *testing.T) {
	tables := newCRC64Tables()
	sum := func(parts ...string) uint64 {
		d := &crc64Digest{t: tables}
		for _, p := range parts {
			d.Write([]byte(p))
		}
		return d.Sum64()
	}
	for _, tt := range []struct {
		in   string
		want uint64
	}{
		{"123456789", 0xAE8B14860A799888},
		{"aaaaaaaaaa", 0x0C1A80036D65C555},
		{"", 0},
	} {
		if got := sum(tt.in); got != tt.want {
			t.Errorf("crc64nvme(%q) = %#x, want %#x", tt.in, got, tt.want)
		}
	}
	d := &crc64Digest{t: tables}
	d.Write([]byte("Hello, World!\n"))
	if got := base64.StdEncoding.EncodeToString(d.Sum(nil)); got != "SoXXbx67KpE=" {
		t.Errorf("base64 of crc64nvme(\"Hello, World!\\n\") = %s, want SoXXbx67KpE=", got)
	}
	data := make([]byte, 10_000)
	for i := range data {
		data[i] = byte(i*31 + i>>7)
	}
	want := crc64.Checksum(data, crc64.MakeTable(crc64NVMEPoly))
	for _, split := range []int{0, 1, 7, 8, 2047, 2048, 5001} {
		if got := sum(string(data[:split]), string(data[split:])); got != want {
			t.Errorf("split at %d: %#x, hash/crc64 says %#x", split, got, want)
		}
	}
}

func BenchmarkCRC64NVME(b *testing.B) {
	data := make([]byte, 1<<20)
	d := &crc64Digest{t: newCRC64Tables()}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		d.Write(data)
	}
}
