package ai

import (
	"fmt"

	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/storage"
)

// Parquet is a parquet data set's row layout as MLPerf Storage v3.0's
// flux and dlrm configurations give it (dataset.parquet): the columns of
// a row and the rows of a row group.
type Parquet struct {
	// RowGroupRows is row_group_size; 0: each file is one row group (flux
	// sets none, and its 288 rows are fewer than any writer's default).
	RowGroupRows int64
	Columns      []Column
}

// Column is one column of a row: its bytes (the dtype's width times its
// size) and whether the reader reads it (read; DLIO's default is true).
type Column struct {
	Name  string
	Bytes int64
	Read  bool
}

// The footer's size is estimated, not measured: Parquet's file metadata
// holds the schema (an element a column) and, for every row group, each
// column chunk's metadata (offsets, sizes, encodings, statistics).
const (
	footerBaseBytes   = 512
	footerColumnBytes = 32
	footerChunkBytes  = 96
)

// footerRead is what Arrow's Parquet reader reads first, from the end of
// a file (kDefaultFooterReadSize, apache/arrow
// cpp/src/parquet/file_reader.cc): the footer and its length in one
// request when they fit, else a second request for the footer's rest.
const footerRead = 64 << 10

// parquetLayout is where a parquet file's bytes are: "PAR1", the row
// groups one after another (each the chunks of every column in order),
// the footer, its 4-byte length and "PAR1" again. Only the shape is
// Parquet's: the bytes are generated.
type parquetLayout struct {
	rows, groupRows, groups int64
	rowBytes                int64
	// spanFrom and spanTo are, per row of a row group, where the span of
	// the read columns' chunks starts and ends inside the row group.
	spanFrom, spanTo int64
	footer           int64 // metadata, without the 8-byte tail
	fileBytes        int64
}

func newParquetLayout(p *Parquet, rows int64) *parquetLayout {
	l := &parquetLayout{rows: rows, groupRows: p.RowGroupRows}
	if l.groupRows <= 0 || l.groupRows > rows {
		l.groupRows = rows
	}
	l.groups = (rows + l.groupRows - 1) / max(l.groupRows, 1)
	first, last := -1, -1
	for c, col := range p.Columns {
		if col.Read {
			if first < 0 {
				first = c
			}
			last = c
		}
	}
	if first < 0 { // no column marked: all are read
		first, last = 0, len(p.Columns)-1
	}
	for c, col := range p.Columns {
		if c == first {
			l.spanFrom = l.rowBytes
		}
		l.rowBytes += col.Bytes
		if c == last {
			l.spanTo = l.rowBytes
		}
	}
	l.footer = footerBaseBytes + footerColumnBytes*int64(len(p.Columns)) + footerChunkBytes*l.groups*int64(len(p.Columns))
	l.fileBytes = lakeMagic + rows*l.rowBytes + l.footer + lakeTail
	return l
}

// groupRange is the span of row group g the reader fetches: from the
// first read column's chunk to the end of the last one's, unread columns
// between them included.
func (l *parquetLayout) groupRange(g int64) storage.Range {
	n := min(l.groupRows, l.rows-g*l.groupRows)
	start := lakeMagic + g*l.groupRows*l.rowBytes
	return storage.Range{Offset: start + n*l.spanFrom, Length: n * (l.spanTo - l.spanFrom)}
}

// footerRanges are the requests that open a file: the last footerRead
// bytes (or the whole file when smaller), then what of the footer they
// did not hold.
func (l *parquetLayout) footerRanges() []storage.Range {
	first := min(int64(footerRead), l.fileBytes)
	out := []storage.Range{{Offset: l.fileBytes - first, Length: first}}
	if rest := l.footer + lakeTail - first; rest > 0 {
		out = append(out, storage.Range{Offset: l.fileBytes - l.footer - lakeTail, Length: rest})
	}
	return out
}

// sampleReader is one read thread's reader of a data set: the requests
// that read a sample. For parquet it is DLIO's S3 Parquet reader
// (argonne-lcf/dlio_benchmark dlio_benchmark/reader/parquet_reader_s3_iterable.py
// at 2a9cf78b8361): a file is opened by reading its footer, a sample by
// fetching its row group's span of the read columns in one ranged GET;
// footers and row groups fetched are kept for the epoch, so each is read
// once per thread and epoch. (DLIO keeps them in per-thread maps; an
// epoch's samples of a file, and of a row group, come to a thread one run
// after another, so remembering the last file and row group is the same.)
// Other formats read a sample with one request.
type sampleReader struct {
	ds          Dataset
	file, group int64
	buf         []loadgen.ScriptOp
}

func newSampleReader(ds Dataset) *sampleReader {
	return &sampleReader{ds: ds, file: -1, group: -1}
}

// reads are the requests that read sample s (valid until the next call).
func (r *sampleReader) reads(s int64) []loadgen.ScriptOp {
	r.buf = r.buf[:0]
	l := r.ds.pq
	if l == nil {
		return append(r.buf, r.ds.Read(s))
	}
	f := s / int64(r.ds.SamplesPerFile)
	g := (s % int64(r.ds.SamplesPerFile)) / l.groupRows
	key := r.ds.Key(f)
	if f != r.file {
		r.file, r.group = f, -1
		for _, rg := range l.footerRanges() {
			r.buf = append(r.buf, loadgen.ScriptOp{Op: metrics.OpRangeGet, Key: key, Size: l.fileBytes, Range: rg})
		}
	}
	if g != r.group {
		r.group = g
		if rg := l.groupRange(g); rg.Length > 0 {
			r.buf = append(r.buf, loadgen.ScriptOp{Op: metrics.OpRangeGet, Key: key, Size: l.fileBytes, Range: rg})
		}
	}
	return r.buf
}

// parquetLine says what a parquet data set's file holds and how it is
// read, for a dry run.
func parquetLine(ds Dataset) string {
	l := ds.pq
	read := 0
	for _, c := range ds.Parquet.Columns {
		if c.Read {
			read++
		}
	}
	cols := fmt.Sprintf("%d columns, all read", len(ds.Parquet.Columns))
	if read > 0 {
		cols = fmt.Sprintf("%d columns, %d read", len(ds.Parquet.Columns), read)
	}
	return fmt.Sprintf("parquet: each file %d row groups of %d rows of %d bytes (%s), footer about %s; a thread opens a file with %d ranged GETs of its end, then reads each row group's span of the read columns (%s) in one ranged GET",
		l.groups, l.groupRows, l.rowBytes, cols, sizeText(l.footer), len(l.footerRanges()), sizeText(l.groupRange(0).Length))
}

// fluxParquet is flux's row: five float32 columns of the sizes
// flux_b200.yaml and flux_mi355.yaml give, all read.
func fluxParquet() *Parquet {
	return &Parquet{Columns: []Column{
		{Name: "t5_encodings", Bytes: 4 * 524328}, {Name: "clip_encodings", Bytes: 4 * 409},
		{Name: "mean", Bytes: 4 * 8232}, {Name: "logvar", Bytes: 4 * 8232}, {Name: "timestamp", Bytes: 4 * 7},
	}}
}

// dlrmTypes are the dtypes of dlrm_b200.yaml's and dlrm_mi355.yaml's 200
// columns feature_000 to feature_199, one letter each: h float16, s
// float32, d float64, b int8 (761 bytes a row).
const dlrmTypes = "hhddshsbhb" + "ssdsbhsssh" + "ddddhsshhs" + "dsdshhdbbb" + "hshsdbddds" +
	"sbbsssbshs" + "dhdbshbshs" + "hshssdhbsd" + "bbsshbhbsb" + "sshsddshbh" +
	"hdhsdhhsds" + "ddbhhbbdsb" + "hhbbbhbbsb" + "hsdhhdhsdd" + "hsbbdsdsdd" +
	"bbbddssbsh" + "shshdhdhsb" + "dhbdbbbbhh" + "bdddhdbbhs" + "dbdsdssddh"

// dlrmParquet is dlrm's row: 200 one-value columns, the 40 the files
// mark read: true, in row groups of 6144 rows.
func dlrmParquet() *Parquet {
	read := []int{11, 17, 18, 20, 25, 31, 41, 43, 49, 53, 58, 59, 67, 68, 71, 74, 75, 88, 90, 91, 92, 93, 94, 96, 97,
		116, 117, 137, 141, 147, 154, 155, 158, 160, 162, 169, 180, 186, 189, 195}
	width := map[byte]int64{'h': 2, 's': 4, 'd': 8, 'b': 1}
	p := &Parquet{RowGroupRows: 6144, Columns: make([]Column, len(dlrmTypes))}
	for c := range p.Columns {
		p.Columns[c] = Column{Name: fmt.Sprintf("feature_%03d", c), Bytes: width[dlrmTypes[c]]}
	}
	for _, c := range read {
		p.Columns[c].Read = true
	}
	return p
}

// parquetEpoch counts the requests and bytes of epoch's reads of a
// parquet data set by accels accelerators of threads read threads each,
// as their loaders make them: each thread's sampleReader is asked for
// the samples of its batches (batch k to thread k mod threads). In file
// order only a sample where a row group or a file begins can need a
// request, so only those are asked.
func parquetEpoch(ds Dataset, seed uint64, epoch, accels, batch, threads int) (reqs, bytes int64) {
	deal := newEpochBatches(ds, seed, epoch, accels, batch)
	spf, rows := int64(ds.SamplesPerFile), ds.pq.groupRows
	for g := range accels {
		sh := ShardOf(deal.n, g, accels, batch)
		rds := make([]*sampleReader, threads)
		for k := range deal.steps() {
			if rds[k%threads] == nil {
				rds[k%threads] = newSampleReader(ds)
			}
			rd := rds[k%threads]
			from := sh.From + int64(k*batch)
			for pos := from; pos < from+int64(batch); {
				s := deal.o.at(pos)
				for _, op := range rd.reads(s) {
					reqs++
					bytes += op.Range.Length
				}
				step := int64(1)
				if ds.FileOrder {
					in := s % spf
					step = min((in/rows+1)*rows, spf) - in
				}
				pos += step
			}
		}
	}
	return reqs, bytes
}
