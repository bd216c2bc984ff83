package result

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/objbench/objbench/atomicfile"
	"github.com/objbench/objbench/internal/resultpack"
)

// Write stores r at path as atomicfile writes files (a temporary file
// renamed into place, the directory made if needed: a reader never sees
// half a file; a device or a pipe written through, nothing else replaced).
func Write(path string, r *Run) error {
	return atomicfile.Write(path, 0o644, func(w io.Writer) error { return Encode(w, r) })
}

// Encode writes r as the result file's JSON, in the current version's
// form whatever version r was read from: each stream's seconds packed.
func Encode(w io.Writer, r *Run) error {
	cp := *r
	cp.Schema = Version
	cp.Steps = slices.Clone(r.Steps)
	var blobs [][]byte
	var p resultpack.Packer
	for i := range cp.Steps {
		st := &cp.Steps[i]
		st.Streams = slices.Clone(st.Streams)
		for j := range st.Streams {
			s := &st.Streams[j]
			s.Packed = ""
			if len(s.Seconds) > 0 {
				blob, err := p.Pack(toCodec(s.Seconds))
				if err != nil {
					return fmt.Errorf("encode result: step %d stream %s: %w", i, s.Name, err)
				}
				s.Packed = "#" + strconv.Itoa(len(blobs))
				blobs = append(blobs, blob)
			}
			s.Seconds = nil
		}
	}
	p.Close()
	meta, err := json.MarshalIndent(&cp, "", " ")
	if err != nil {
		return fmt.Errorf("encode result: %w", err)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	var text []byte
	last := 0
	for _, sp := range resultpack.Spans(meta) {
		k, err := strconv.Atoi(string(meta[sp[0]+2 : sp[1]-1])) // "#k"
		if err != nil || k >= len(blobs) {
			return errors.New("encode result: a packed stream was not placed") // a spec holding our key?
		}
		_, _ = bw.Write(meta[last:sp[0]])
		_ = bw.WriteByte('"')
		text = resultpack.EncodeBase64(bw, blobs[k], text)
		_ = bw.WriteByte('"')
		last = sp[1]
	}
	_, _ = bw.Write(meta[last:])
	_ = bw.WriteByte('\n')
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("encode result: %w", err)
	}
	return nil
}

// Read loads a result file and recomputes every total from its per-second
// records, so what is reported never depends on stored summaries.
// A file that is not a result is refused as its first bytes show it,
// before it is read whole.
func Read(path string) (*Run, error) { return ReadContext(context.Background(), path) }

// ReadContext is Read that stops, with ctx's error, when ctx ends: also
// while it waits for a pipe's writer (/dev/stdin).
func ReadContext(ctx context.Context, path string) (*Run, error) {
	b, err := readFile(ctx, path)
	if err == nil {
		var r *Run
		if r, err = decodeBytes(ctx, b); err == nil {
			return r, nil
		}
	}
	var pe *fs.PathError
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.As(err, &pe): // names the path itself
		return nil, err
	}
	return nil, fmt.Errorf("%s: %w", path, err)
}

// readFile checks the file at path as it streams by (checkTopLevel), then
// reads it whole: a regular file again, in one read of its size; a pipe
// from what the check kept of it.
func readFile(ctx context.Context, path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	defer context.AfterFunc(ctx, func() { _ = f.SetReadDeadline(time.Now()) })() // a pipe's reads end
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		var kept bytes.Buffer
		if err := checkTopLevel(io.TeeReader(f, &kept)); err != nil {
			return nil, err
		}
		if _, err := io.Copy(&kept, f); err != nil {
			return nil, err
		}
		return kept.Bytes(), nil
	}
	if err := checkTopLevel(f); err != nil {
		return nil, err
	}
	b := make([]byte, info.Size())
	if _, err := f.ReadAt(b, 0); err != nil && err != io.EOF {
		return nil, err
	}
	return b, nil
}

// Decode reads a result document of any version up to Version from rd and
// recomputes its totals.
func Decode(rd io.Reader) (*Run, error) {
	b, err := io.ReadAll(rd)
	if err != nil {
		return nil, fmt.Errorf("read result: %w", err)
	}
	return DecodeBytes(b)
}

// eachPacked calls fn with every stream of r whose seconds a version-5
// document packed, and the packed bytes (texts: the strings cut out of the
// document); the stream's Packed is then cleared. An error names the step
// and stream.
func eachPacked(r *Run, texts [][]byte, fn func(step, stream int, s *Stream, blob []byte) error) error {
	return eachPackedText(r, texts, func(step, stream int, s *Stream, text []byte, _ int) error {
		blob, err := resultpack.DecodeBase64(text, nil)
		if err != nil {
			return err
		}
		return fn(step, stream, s, blob)
	})
}

// eachPackedText calls fn with each packed stream's base64 text and the
// index of its cut string (-1: the field held the text itself).
func eachPackedText(r *Run, texts [][]byte, fn func(step, stream int, s *Stream, text []byte, k int) error) error {
	for k := range r.Steps {
		for j := range r.Steps[k].Streams {
			s := &r.Steps[k].Streams[j]
			if s.Packed == "" {
				continue
			}
			text, idx, err := resultpack.Text(s.Packed, texts)
			if err == nil {
				err = fn(k, j, s, text, idx)
			}
			if err != nil {
				return fmt.Errorf("step %d stream %s: %w", k+1, s.Name, err)
			}
			s.Packed = ""
		}
	}
	return nil
}

// DecodeBytes is Decode of a document in memory.
func DecodeBytes(doc []byte) (*Run, error) { return decodeBytes(context.Background(), doc) }

// decodeBytes is DecodeBytes, stopping between streams when ctx ends.
func decodeBytes(ctx context.Context, doc []byte) (*Run, error) {
	r, texts, err := decodeMeta(doc)
	if err != nil {
		return nil, err
	}
	dec := resultpack.NewDecoder()
	defer dec.Close()
	err = eachPacked(r, texts, func(_, _ int, s *Stream, blob []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		secs, err := resultpack.Unpack(blob, dec)
		s.Seconds = fromCodec(secs)
		return err
	})
	if err != nil {
		return nil, err
	}
	// Version 1 files decode as they are: their bytes were spread over
	// the seconds an op covered and they have no ticks, so their window
	// edges count pro rata.
	for i := range r.Steps {
		for j := range r.Steps[i].Streams {
			s := &r.Steps[i].Streams[j]
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			totals, err := Summarize(s.Seconds, s.Window)
			if err != nil {
				return nil, fmt.Errorf("step %d stream %s: %w", i, s.Name, err)
			}
			s.Totals = totals
		}
	}
	return r, nil
}

// DecodeKeepingPacked is DecodeBytes for a reader that reads the
// per-second records itself, as they are packed in the file (a merge):
// packed is called with every stream whose seconds are packed (a
// version 5 or later file), its step's and its own index, the base64
// text of its packed seconds (a view into doc) and where that text
// begins in doc (-1: elsewhere, the stream's field in the run being
// escaped). Those streams' Seconds stay empty and their totals are the
// file's own. A document with no packed stream is decoded as DecodeBytes
// decodes it.
func DecodeKeepingPacked(doc []byte, packed func(step, stream int, text []byte, off int) error) (*Run, error) {
	r, texts, offs, err := decodeMetaAt(doc)
	if err != nil {
		return nil, err
	}
	found := false
	err = eachPackedText(r, texts, func(k, j int, _ *Stream, text []byte, idx int) error {
		found = true
		off := -1
		if idx >= 0 {
			off = offs[idx]
		}
		return packed(k, j, text, off)
	})
	switch {
	case err != nil:
		return nil, err
	case !found:
		return DecodeBytes(doc)
	}
	return r, nil
}

// decodeMeta reads a document with its packed seconds cut out (streams'
// Packed refer to texts) and checks its version.
func decodeMeta(doc []byte) (*Run, [][]byte, error) {
	r, texts, _, err := decodeMetaAt(doc)
	return r, texts, err
}

// decodeMetaAt is decodeMeta, and where each cut string begins in doc.
func decodeMetaAt(doc []byte) (*Run, [][]byte, []int, error) {
	meta, texts, offs := resultpack.Cut(doc)
	if err := checkTopLevel(bytes.NewReader(meta)); err != nil {
		return nil, nil, nil, err
	}
	var r Run
	if err := json.NewDecoder(bytes.NewReader(meta)).Decode(&r); err != nil {
		return nil, nil, nil, fmt.Errorf("not an objbench result file: %w", err)
	}
	switch {
	case r.Schema == 0:
		return nil, nil, nil, errors.New("not an objbench result file (no schema version)")
	case r.Schema < 0 || r.Schema > Version:
		return nil, nil, nil, fmt.Errorf("result schema %d is newer than this objbench understands (%d): upgrade objbench", r.Schema, Version)
	}
	for i := range r.Steps {
		r.Steps[i].NameStreams() // files written before streams that share a name were told apart
	}
	return &r, texts, offs, nil
}
