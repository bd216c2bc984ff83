package oplog

import (
	"errors"
	"fmt"
	"github.com/objbench/objbench/internal/digits"
	"math"
	"strconv"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/objbench/objbench/metrics"
)

// parse reads one line: a JSON object whose fields are those appendRecord
// writes, in any order, with any others ignored. It is written out by hand
// because encoding/json's reflection is several times slower than the
// half a million lines a second replay needs.
func (r *Reader) parse(line []byte, rec *Record) error {
	*rec = Record{}
	p := scanner{b: line, scratch: r.scrach[:0]}
	defer func() { r.scrach = p.scratch }()
	if !p.consume('{') {
		return errors.New("not a JSON object")
	}
	var hasTime, hasOp bool
	for first := true; ; first = false {
		if p.consume('}') {
			break
		}
		if !first && !p.consume(',') {
			return p.fail("',' or '}'")
		}
		name, ok := p.str()
		if !ok || !p.consume(':') {
			return p.fail("a field name")
		}
		var err error
		switch string(name) {
		case "time":
			rec.Start, err = p.time()
			hasTime = err == nil
		case "intended":
			rec.Intended, err = p.time()
		case "op":
			rec.Op, err = p.op()
			hasOp = err == nil
		case "bucket":
			rec.Bucket, err = p.interned(&r.strs.bucket)
		case "key":
			rec.Key, err = p.string()
		case "stream":
			rec.Stream, err = p.interned(&r.strs.stream)
		case "step":
			rec.Step, err = p.interned(&r.strs.step)
		case "error":
			rec.Class, err = p.interned(&r.strs.class)
		case "size":
			rec.Size, err = p.int()
		case "status":
			var v int64
			v, err = p.int()
			rec.Status = int(v)
		case "worker":
			var v int64
			v, err = p.int()
			rec.Worker = int(v)
		case "latency_us":
			rec.Latency, err = p.micros()
		case "ttfb_us":
			rec.TTFB, err = p.micros()
		case "range":
			rec.Range.Offset, rec.Range.Length, err = p.pair()
		default:
			err = p.skip(0)
		}
		if err != nil {
			return fmt.Errorf("field %q: %w", name, err)
		}
	}
	if p.ws(); p.i != len(p.b) {
		return p.fail("the end of the line")
	}
	switch {
	case !hasTime:
		return errors.New(`no "time"`)
	case !hasOp:
		return errors.New(`no "op"`)
	}
	return nil
}

// interned keeps the last string of the fields that repeat from line to
// line (bucket, stream, error class), so equal values cost no allocation.
type interned struct{ bucket, stream, class, step string }

type scanner struct {
	b       []byte
	i       int
	scratch []byte
}

func (p *scanner) ws() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\n' || p.b[p.i] == '\r') {
		p.i++
	}
}

func (p *scanner) consume(c byte) bool {
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *scanner) fail(want string) error {
	if p.i >= len(p.b) {
		return fmt.Errorf("line ends where %s should be", want)
	}
	return fmt.Errorf("at byte %d: want %s", p.i+1, want)
}

// str reads a JSON string; the bytes are valid until the next call.
func (p *scanner) str() ([]byte, bool) {
	if !p.consume('"') {
		return nil, false
	}
	start := p.i
	for p.i < len(p.b) {
		switch c := p.b[p.i]; {
		case c == '"':
			p.i++
			return p.b[start : p.i-1], true
		case c == '\\':
			return p.escaped(start)
		case c < 0x20:
			return nil, false
		}
		p.i++
	}
	return nil, false
}

// escaped finishes a string that holds escapes, unescaping into scratch.
func (p *scanner) escaped(start int) ([]byte, bool) {
	out := append(p.scratch[:0], p.b[start:p.i]...)
	defer func() { p.scratch = out[:0] }()
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return out, true
		case c < 0x20:
			return nil, false
		case c != '\\':
			out = append(out, c)
			p.i++
			continue
		}
		if p.i+1 >= len(p.b) {
			return nil, false
		}
		e := p.b[p.i+1]
		p.i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return nil, false
			}
			if utf16.IsSurrogate(r) {
				r2, ok2 := rune(0), false
				if p.i+1 < len(p.b) && p.b[p.i] == '\\' && p.b[p.i+1] == 'u' {
					p.i += 2
					r2, ok2 = p.hex4()
				}
				if r = utf16.DecodeRune(r, r2); !ok2 {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return nil, false
		}
	}
	return nil, false
}

func (p *scanner) hex4() (rune, bool) {
	if p.i+4 > len(p.b) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(p.b[p.i:p.i+4]), 16, 32)
	p.i += 4
	return rune(v), err == nil
}

func (p *scanner) string() (string, error) {
	b, ok := p.str()
	if !ok {
		return "", p.fail("a string")
	}
	return string(b), nil
}

// interned reads a string, reusing *last when it is equal.
func (p *scanner) interned(last *string) (string, error) {
	b, ok := p.str()
	if !ok {
		return "", p.fail("a string")
	}
	if string(b) != *last { // compared without allocating
		*last = string(b)
	}
	return *last, nil
}

func (p *scanner) op() (metrics.Op, error) {
	b, ok := p.str()
	if !ok {
		return 0, p.fail("a string")
	}
	for o := metrics.Op(0); o < metrics.NumOps; o++ {
		if string(b) == o.String() {
			return o, nil
		}
	}
	return metrics.ParseOp(string(b))
}

func (p *scanner) time() (time.Time, error) {
	b, ok := p.str()
	if !ok {
		return time.Time{}, p.fail("a time string")
	}
	if t, ok := parseUTC(b); ok {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339Nano, string(b))
	if err != nil {
		return t, err
	}
	if y := t.UTC().Year(); y < 0 || y > 9999 {
		// The writer writes UTC, which must stay a four-digit year.
		return time.Time{}, fmt.Errorf("time %q is outside the years 0000-9999 in UTC", b)
	}
	return t, nil
}

// number reads a JSON number's bytes.
func (p *scanner) number() []byte {
	p.ws()
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		if (c < '0' || c > '9') && c != '-' && c != '+' && c != '.' && c != 'e' && c != 'E' {
			break
		}
		p.i++
	}
	return p.b[start:p.i]
}

// int reads a whole number; one with a fraction or exponent is rounded.
func (p *scanner) int() (int64, error) {
	b := p.number()
	if len(b) == 0 {
		return 0, p.fail("a number")
	}
	if v, ok := digits.Atoi(b); ok {
		return v, nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsNaN(f) || math.Abs(f) >= math.MaxInt64 {
		return 0, fmt.Errorf("%q is not a number in range", b)
	}
	return int64(math.Round(f)), nil
}

func (p *scanner) micros() (time.Duration, error) {
	v, err := p.int()
	if v > math.MaxInt64/int64(time.Microsecond) || v < 0 {
		return 0, fmt.Errorf("%d µs is out of range", v)
	}
	return time.Duration(v) * time.Microsecond, err
}

func (p *scanner) pair() (a, b int64, err error) {
	if !p.consume('[') {
		return 0, 0, p.fail("[offset,length]")
	}
	if a, err = p.int(); err != nil {
		return 0, 0, err
	}
	if !p.consume(',') {
		return 0, 0, p.fail("','")
	}
	if b, err = p.int(); err != nil {
		return 0, 0, err
	}
	if !p.consume(']') {
		return 0, 0, p.fail("']'")
	}
	return a, b, nil
}

// maxDepth bounds the nesting of values skipped.
const maxDepth = 32

// skip passes over any JSON value.
func (p *scanner) skip(depth int) error {
	if depth > maxDepth {
		return errors.New("nested too deep")
	}
	p.ws()
	if p.i >= len(p.b) {
		return p.fail("a value")
	}
	switch c := p.b[p.i]; c {
	case '"':
		if _, ok := p.str(); !ok {
			return p.fail("a string")
		}
		return nil
	case '{', '[':
		return p.skipComposite(c, depth)
	case 't', 'f', 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if len(p.b)-p.i >= len(lit) && string(p.b[p.i:p.i+len(lit)]) == lit {
				p.i += len(lit)
				return nil
			}
		}
		return p.fail("a value")
	}
	if len(p.number()) == 0 {
		return p.fail("a value")
	}
	return nil
}

func (p *scanner) skipComposite(open byte, depth int) error {
	closing := byte(']')
	if open == '{' {
		closing = '}'
	}
	p.i++
	for first := true; ; first = false {
		if p.consume(closing) {
			return nil
		}
		if !first && !p.consume(',') {
			return p.fail("',' or '" + string(closing) + "'")
		}
		if open == '{' {
			if _, ok := p.str(); !ok || !p.consume(':') {
				return p.fail("a field name")
			}
		}
		if err := p.skip(depth + 1); err != nil {
			return err
		}
	}
}

// parseUTC reads the form the writer writes, 2006-01-02T15:04:05[.fraction]Z,
// without allocating; other forms go to time.Parse.
func parseUTC(b []byte) (time.Time, bool) {
	if len(b) < 20 || b[len(b)-1] != 'Z' || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' {
		return time.Time{}, false
	}
	num := func(s []byte) int {
		v, ok := digits.Atoi(s)
		if !ok || v < 0 {
			return -1
		}
		return int(v)
	}
	y, mo, d := num(b[0:4]), num(b[5:7]), num(b[8:10])
	h, mi, s := num(b[11:13]), num(b[14:16]), num(b[17:19])
	if y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 59 {
		return time.Time{}, false
	}
	ns := 0
	if frac := b[19 : len(b)-1]; len(frac) > 0 {
		if frac[0] != '.' || len(frac) < 2 || len(frac) > 10 {
			return time.Time{}, false
		}
		for i := 1; i < 10; i++ {
			ns *= 10
			if i < len(frac) {
				if frac[i] < '0' || frac[i] > '9' {
					return time.Time{}, false
				}
				ns += int(frac[i] - '0')
			}
		}
	}
	t := time.Date(y, time.Month(mo), d, h, mi, s, ns, time.UTC)
	if t.Day() != d { // 31 February
		return time.Time{}, false
	}
	return t, true
}
