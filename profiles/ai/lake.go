package ai

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"golang.org/x/sync/errgroup"

	"github.com/objbench/objbench/distributed"
	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/workload"
)

// LakeLayout is a table of Parquet-shaped objects: each file the magic
// "PAR1", its row groups one after another (each the chunks of every
// column in order), the footer (the file's metadata), the footer's
// length in 4 bytes and "PAR1" again. Only the shape is Parquet's: the
// bytes are generated.
type LakeLayout struct {
	Files     int
	RowGroups int
	Columns   int
	// ColumnBytes is a column chunk's mean size: column c's chunks are
	// ColumnBytes times a factor from 0.5 to 1.5 drawn from (Seed, c), in
	// every row group and file (columns differ in width, not files).
	ColumnBytes int64
	FooterBytes int64
	// Projected is how many columns a query reads: spread evenly over
	// the columns (column j*Columns/Projected), so no two are adjacent
	// unless most are read.
	Projected int
	Seed      uint64
}

// lakeMagic is the 4 bytes at each end of a Parquet file; lakeTail the
// footer length and magic a reader fetches first.
const (
	lakeMagic = 4
	lakeTail  = 8
)

func (l LakeLayout) check() error {
	if l.Files < 1 || l.RowGroups < 1 || l.Columns < 1 || l.ColumnBytes < 1 || l.FooterBytes < 1 || l.Projected < 1 || l.Projected > l.Columns {
		return fmt.Errorf("lake layout: %d files, %d row groups, %d columns of %d bytes, footer %d bytes, %d projected: want each at least 1 and at most %d projected",
			l.Files, l.RowGroups, l.Columns, l.ColumnBytes, l.FooterBytes, l.Projected, l.Columns)
	}
	return nil
}

// ChunkBytes is the size of column c's chunks.
func (l LakeLayout) ChunkBytes(c int) int64 {
	f := 0.5 + float64(mix64(l.Seed^uint64(c+1))>>11)/float64(1<<53)
	return max(int64(float64(l.ColumnBytes)*f), 1)
}

// rowGroupBytes is one row group's size.
func (l LakeLayout) rowGroupBytes() int64 {
	var n int64
	for c := range l.Columns {
		n += l.ChunkBytes(c)
	}
	return n
}

// FileBytes is each file's size.
func (l LakeLayout) FileBytes() int64 {
	return lakeMagic + int64(l.RowGroups)*l.rowGroupBytes() + l.FooterBytes + lakeTail
}

// Key is file f's key below the data set's namespace.
func (l LakeLayout) Key(f int) string { return fmt.Sprintf("lake/part-%05d.parquet", f) }

// ProjectedColumns are the columns a query reads.
func (l LakeLayout) ProjectedColumns() []int {
	cols := make([]int, l.Projected)
	for j := range cols {
		cols[j] = j * l.Columns / l.Projected
	}
	return cols
}

// Reads are the ranges a query reads of one file, in order: the tail
// (footer length and magic), the footer, then each row group's
// projected column chunks.
func (l LakeLayout) Reads() []storage.Range {
	size := l.FileBytes()
	footer := size - lakeTail - l.FooterBytes
	out := []storage.Range{{Offset: size - lakeTail, Length: lakeTail}, {Offset: footer, Length: l.FooterBytes}}
	rg := l.rowGroupBytes()
	offs := make([]int64, l.Columns)
	var o int64
	for c := range l.Columns {
		offs[c] = o
		o += l.ChunkBytes(c)
	}
	for g := range l.RowGroups {
		for _, c := range l.ProjectedColumns() {
			out = append(out, storage.Range{Offset: lakeMagic + int64(g)*rg + offs[c], Length: l.ChunkBytes(c)})
		}
	}
	return out
}

// LakeConfig is a lakehouse scan run.
type LakeConfig struct {
	Layout LakeLayout
	// Queries run one after another, each reading FilesPerQuery files
	// (the window after the last query's), Concurrency files at once.
	Queries, FilesPerQuery, Concurrency int
	Generate                            bool
	Dataset                             string // default: from the layout
	Worker                              distributed.Worker
	Verify                              bool
}

// Lake plans a lakehouse scan: the files' generation (with Generate),
// then the queries, every range read through the workers' issuers.
func Lake(c LakeConfig) (*Plan, error) {
	l := c.Layout
	if l.Seed == 0 {
		l.Seed = DefaultSeed
	}
	errs := []error{l.check()}
	if c.Queries < 1 || c.FilesPerQuery < 1 || c.Concurrency < 1 {
		errs = append(errs, fmt.Errorf("queries %d, files per query %d, concurrency %d: want each at least 1", c.Queries, c.FilesPerQuery, c.Concurrency))
	}
	if c.Dataset != "" && !workload.ValidDatasetName(c.Dataset) {
		errs = append(errs, fmt.Errorf("data set name %q: want 1 to 64 letters, digits, '.', '_' or '-'", c.Dataset))
	}
	if c.Queries >= 1 {
		errs = append(errs, splitCheck(c.Worker, "query", c.Queries))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	name := c.Dataset
	if name == "" {
		name = fmt.Sprintf("ai-lake-%dx%dx%dx%d", l.Files, l.RowGroups, l.Columns, l.ColumnBytes)
	}
	p := newPlan(workload.Spec{Name: "ai lake", Dataset: name})
	per := l.Reads()
	var readBytes int64
	for _, r := range per {
		readBytes += r.Length
	}
	p.line("data set %s: %d Parquet-shaped files of %s (%d row groups x %d columns of about %s, footer %s), under %s", name, l.Files,
		sizeText(l.FileBytes()), l.RowGroups, l.Columns, sizeText(l.ColumnBytes), sizeText(l.FooterBytes), workload.DatasetNamespace(name))
	if c.Generate {
		lo, hi := c.Worker.Range(int64(l.Files))
		gen := workload.Stream{Name: "generate", Concurrency: []int{16}, Objects: workload.KeySpace{Prefix: "lake/", Count: l.Files}, Size: l.FileBytes()}
		p.Spec.Stages = append(p.Spec.Stages, workload.Stage{Name: "generate", Kind: workload.KindPrepare, Streams: []workload.Stream{gen}})
		p.script("generate", "generate", func(int) loadgen.Script {
			return &writeScript{n: hi - lo, issuers: int(max(c.Worker.Share(16), 1)), what: "generate", op: func(i int64) loadgen.ScriptOp {
				return loadgen.ScriptOp{Op: metrics.OpPut, Key: l.Key(int(lo + i)), Size: l.FileBytes()}
			}}
		})
		p.line("generate: %d PUTs (%s)", l.Files, sizeText(int64(l.Files)*l.FileBytes()))
		p.share(c.Worker, "generates ", "file", lo, hi, int64(l.Files), "")
	} else {
		last := l.Files - 1
		p.Check = checkObjects(workload.DatasetNamespace(name), "data set "+name, []loadgen.ScriptOp{
			{Key: l.Key(0), Size: l.FileBytes()}, {Key: l.Key(last), Size: l.FileBytes()}})
	}
	reqs := int64(c.Queries) * int64(c.FilesPerQuery) * int64(len(per))
	scan := workload.Stream{Name: "query", Mix: []workload.OpWeight{{Op: workload.OpRangeGet, Weight: 1}}, Concurrency: []int{c.Concurrency},
		Objects: workload.KeySpace{Prefix: "lake/", Count: l.Files}, Size: l.FileBytes(), RangeSize: l.ColumnBytes, Bounds: workload.Bounds{Ops: reqs},
		Data: workload.Data{Verify: c.Verify}}
	p.Spec.Stages = append(p.Spec.Stages, workload.Stage{Name: "query", Kind: workload.KindMain, Streams: []workload.Stream{scan}})
	qlo, qhi := c.Worker.Range(int64(c.Queries))
	p.script("query", "query", func(int) loadgen.Script {
		return &lakeScript{c: c, l: l, reads: per, lo: int(qlo), hi: int(qhi), issuers: int(max(c.Worker.Share(int64(c.Concurrency)), 1))}
	})
	p.line("%d queries, each over %d files, %d at once: per file the 8-byte tail, the footer, then %d row groups x %d projected columns: %d ranged GETs, %s of %s stored",
		c.Queries, c.FilesPerQuery, c.Concurrency, l.RowGroups, l.Projected, len(per), sizeText(readBytes), sizeText(l.FileBytes()))
	p.line("in all: %d ranged GETs, %s read", reqs, sizeText(readBytes*int64(c.Queries)*int64(c.FilesPerQuery)))
	p.share(c.Worker, "", "query", qlo, qhi, int64(c.Queries), ", %d of the %d ranged GETs", (qhi-qlo)*int64(c.FilesPerQuery)*int64(len(per)), reqs)
	return p, nil
}

// lakeScript runs this process's queries (lo to hi), one after another,
// each reading its files on the issuers side by side.
type lakeScript struct {
	c       LakeConfig
	l       LakeLayout
	reads   []storage.Range
	lo, hi  int
	issuers int

	requests, bytes, scanned, errs atomic.Int64
	scan                           *hdr.Histogram
	queries                        int64
}

func (s *lakeScript) Issuers() int { return s.issuers }

func (s *lakeScript) Run(stop context.Context, iss []*loadgen.Issuer) error {
	s.scan = result.NewHistogram()
	for q := s.lo; q < s.hi && stop.Err() == nil; q++ {
		t0 := time.Now()
		var next atomic.Int64
		var g errgroup.Group
		for _, is := range iss {
			g.Go(func() error {
				for stop.Err() == nil {
					j := next.Add(1) - 1
					if j >= int64(s.c.FilesPerQuery) {
						return nil
					}
					s.readFile(is, (q*s.c.FilesPerQuery+int(j))%s.l.Files)
				}
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			return err
		}
		if stop.Err() == nil {
			_ = s.scan.RecordValue(time.Since(t0).Microseconds())
			s.queries++
		}
	}
	return nil
}

// readFile reads file f as a Parquet reader does: the tail, the footer,
// then the projected chunks, each request after the one before.
func (s *lakeScript) readFile(is *loadgen.Issuer, f int) {
	key, size := s.l.Key(f), s.l.FileBytes()
	s.scanned.Add(size)
	for _, r := range s.reads {
		n, err := is.Do(loadgen.ScriptOp{Op: metrics.OpRangeGet, Key: key, Size: size, Range: r})
		s.requests.Add(1)
		s.bytes.Add(n)
		if err != nil {
			s.errs.Add(1)
		}
	}
}

func (s *lakeScript) Record(step *result.Step) {
	l := s.l
	step.Lake = &result.Lake{Files: l.Files, FileBytes: l.FileBytes(), RowGroups: l.RowGroups, Columns: l.Columns, Projected: l.Projected,
		FilesPerQuery: s.c.FilesPerQuery, Queries: s.queries, Requests: s.requests.Load(), BytesRead: s.bytes.Load(),
		BytesScanned: s.scanned.Load(), Errors: s.errs.Load(), Scan: result.EncodeHistogram(s.scan)}
}
