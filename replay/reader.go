package replay

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/objbench/objbench/internal/compressed"
)

// Format names a trace format.
type Format string

// The formats; FormatAuto recognises each file's from its first line.
const (
	FormatAuto       Format = ""
	FormatS3Access   Format = "s3-access"
	FormatCloudTrail Format = "cloudtrail"
	FormatMinIOTrace Format = "minio-trace"
	FormatOpLog      Format = "oplog"
)

// ParseFormat accepts a format's name ("auto" for FormatAuto).
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case FormatS3Access, FormatCloudTrail, FormatMinIOTrace, FormatOpLog:
		return f, nil
	case "auto", "":
		return FormatAuto, nil
	}
	return "", fmt.Errorf("unknown trace format %q (want auto, s3-access, cloudtrail, minio-trace or oplog)", s)
}

// Options say how to read a trace.
type Options struct {
	Format Format
	// Strict makes the first entry that cannot be replayed an error
	// (a *SkipError naming file:line) instead of a count in Stats.
	Strict bool
	// LeaveStages leaves out the op-log records of steps of these stages
	// (an objbench run's own "prepare" and "cleanup"), counted in
	// Stats.Left; other sources have no stages.
	LeaveStages []string
	// Left, when set, is handed each record left out (LeaveStages), whole:
	// an op log's prepare step knows the sizes of the objects its main
	// steps read. It must not keep the record beyond the call.
	Left func(*Record)
}

// Stats count what a Reader read and what it could not use.
type Stats struct {
	Files   int
	Records int64
	// Skipped counts entries that could not be replayed, by reason.
	Skipped map[string]*Skip
	// Merged counts entries another record stands for: the create and
	// part uploads of a multipart upload, replayed as one MULTIPART.
	Merged map[string]*Skip
	// Left counts entries left out as asked (Options.LeaveStages).
	Left map[string]*Skip
}

// Skip is how often a reason came up, and where first.
type Skip struct {
	Count  int64
	First  Pos
	Detail string // what was wrong with the first one
}

// SkipError is the first unusable entry of a Strict reader.
type SkipError struct {
	Pos    Pos
	Reason string
	Detail string
}

func (e *SkipError) Error() string {
	s := e.Pos.String() + ": " + e.Reason
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// maxReasons bounds the reasons kept: they name operations found in the
// input, which a hostile file could vary without end.
const maxReasons = 200

// parser reads one file's entries. next fills rec and returns "", nil; or
// returns why the entry is skipped (reason, detail), or merged; or an
// error that ends the file (io.EOF at its end).
type parser interface {
	next(rec *Record) (outcome, error)
}

type outcome struct {
	skip, merged, left, detail string
}

// Reader streams the records of a trace's files, one at a time.
type Reader struct {
	o     Options
	files []string
	cur   parser
	close func() error
	name  string
	rec   Record
	stats Stats
	err   error
}

// Open reads the trace in paths: files, or directories whose regular
// files are read in lexical order of their paths.
func Open(paths []string, o Options) (*Reader, error) {
	if _, err := ParseFormat(string(o.Format)); err != nil {
		return nil, err
	}
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		var in []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				in = append(in, path)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		sort.Strings(in)
		files = append(files, in...)
	}
	return &Reader{o: o, files: files, stats: newStats()}, nil
}

// NewReader reads one stream named name (for positions), e.g. standard
// input.
func NewReader(name string, r io.Reader, o Options) (*Reader, error) {
	rd := &Reader{o: o, stats: newStats()}
	if err := rd.start(name, r, func() error { return nil }); err != nil {
		return nil, err
	}
	return rd, nil
}

func newStats() Stats {
	return Stats{Skipped: map[string]*Skip{}, Merged: map[string]*Skip{}, Left: map[string]*Skip{}}
}

// Next reads the next record; false at the end or on an error (Err).
func (r *Reader) Next() bool {
	for r.err == nil {
		if r.cur == nil && !r.openNext() {
			return false
		}
		out, err := r.cur.next(&r.rec)
		switch {
		case err == io.EOF:
			r.err = r.close()
			r.cur = nil
		case err != nil:
			r.err = fmt.Errorf("%s: %w", r.name, err)
		case out.skip != "":
			r.count(r.stats.Skipped, out.skip, out.detail)
			if r.o.Strict {
				r.err = &SkipError{Pos: r.rec.Pos, Reason: out.skip, Detail: out.detail}
			}
		case out.merged != "":
			r.count(r.stats.Merged, out.merged, "")
		case out.left != "":
			r.count(r.stats.Left, out.left, "")
			if r.o.Left != nil {
				r.o.Left(&r.rec)
			}
		default:
			r.stats.Records++
			return true
		}
	}
	return false
}

func (r *Reader) count(m map[string]*Skip, reason, detail string) {
	s := m[reason]
	if s == nil {
		if len(m) >= maxReasons {
			reason = "other reasons (too many kinds to list)"
			if s = m[reason]; s != nil {
				s.Count++
				return
			}
		}
		s = &Skip{First: r.rec.Pos, Detail: detail}
		m[reason] = s
	}
	s.Count++
}

// Record is the record Next read; it is overwritten by the next call.
func (r *Reader) Record() *Record { return &r.rec }

// Err is the error that stopped the reader, nil at a clean end.
func (r *Reader) Err() error { return r.err }

// Stats is what was read and skipped so far.
func (r *Reader) Stats() Stats { return r.stats }

// Close releases the file being read.
func (r *Reader) Close() error {
	if r.cur == nil {
		return nil
	}
	r.cur = nil
	return r.close()
}

func (r *Reader) openNext() bool {
	if len(r.files) == 0 {
		return false
	}
	name := r.files[0]
	r.files = r.files[1:]
	f, err := os.Open(name)
	if err != nil {
		r.err = err
		return false
	}
	if err := r.start(name, f, f.Close); err != nil {
		f.Close()
		r.err = err
		return false
	}
	return true
}

// start begins reading one stream: decompress, recognise, parse.
func (r *Reader) start(name string, in io.Reader, closeIn func() error) error {
	src, _, err := compressed.NewReader(in)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	br, format, err := detect(src, r.o.Format)
	if err != nil {
		src.Close()
		return fmt.Errorf("%s: %w", name, err)
	}
	r.stats.Files++
	r.name = name
	r.close = func() error { return errors.Join(src.Close(), closeIn()) }
	switch format {
	case FormatS3Access:
		r.cur = newAccessParser(name, br)
	case FormatCloudTrail:
		r.cur = newCloudTrailParser(name, br)
	case FormatMinIOTrace:
		r.cur = newMinIOParser(name, br)
	case FormatOpLog:
		r.cur, err = newOpLogParser(name, br, r.o.LeaveStages)
	default: // an empty file
		r.cur = emptyParser{}
	}
	return err
}

type emptyParser struct{}

func (emptyParser) next(*Record) (outcome, error) { return outcome{}, io.EOF }
