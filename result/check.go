package result

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// maxKeyLen bounds a top-level key: none of a result's is longer.
const maxKeyLen = 64

// checkTopLevel reads a document's top-level object as it streams by,
// holding no value of it: a document that is not a JSON object, has a
// field a result does not have, or lacks one every result has, is not a
// result file, and is refused at once, whatever its size (a 300 MB file
// of one unknown field was read whole, then printed as an empty run).
func checkTopLevel(rd io.Reader) error {
	s := &scanner{r: bufio.NewReaderSize(rd, 64<<10)}
	known := runKeys()
	seen := map[string]bool{}
	schema := 0
	if c, err := s.next(); err != nil || c != '{' {
		return s.refuse("it is not a JSON object", err)
	}
	for {
		c, err := s.next()
		if err != nil {
			return s.refuse("it ends inside its object", err)
		}
		if c == '}' && len(seen) == 0 {
			break
		}
		if c != '"' {
			return s.refuse(fmt.Sprintf("%q where a field name belongs", c), nil)
		}
		key, err := s.key()
		if err != nil {
			return s.refuse("a field name is cut short or too long", err)
		}
		if !known[key] {
			if schema > Version {
				return nil // a newer version's field: decoding says "upgrade"
			}
			return s.refuse(fmt.Sprintf("it has a field %q, which no result has", key), nil)
		}
		seen[key] = true
		if c, err := s.next(); err != nil || c != ':' {
			return s.refuse(fmt.Sprintf("no ':' after %q", key), err)
		}
		if key == "schema" {
			if schema, err = s.int(); err != nil {
				return s.refuse("its schema is not a version number", err)
			}
		} else if err := s.skipValue(); err != nil {
			return s.refuse(fmt.Sprintf("the value of %q is cut short", key), err)
		}
		c, err = s.next()
		if err == nil && c == '}' {
			break
		}
		if err != nil || c != ',' {
			return s.refuse(fmt.Sprintf("no ',' or '}' after the value of %q", key), err)
		}
	}
	if schema > Version {
		return nil // decoding says "upgrade"
	}
	var missing []string
	// The fields every result file has held since version 1 (the writer
	// always writes them, empty or not).
	for _, k := range []string{"schema", "tool", "run_id", "started", "steps"} {
		if !seen[k] {
			missing = append(missing, fmt.Sprintf("%q", k))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("not an objbench result file: it has no %s field", strings.Join(missing, ", "))
	}
	return nil
}

// runKeys are the top-level fields a result may hold: Run's JSON names.
func runKeys() map[string]bool {
	keys := map[string]bool{}
	var add func(t reflect.Type)
	add = func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			switch {
			case f.Anonymous && name == "":
				add(f.Type)
			case name != "" && name != "-":
				keys[name] = true
			}
		}
	}
	add(reflect.TypeFor[Run]())
	return keys
}

// scanner walks JSON text a byte at a time, keeping nothing but a key.
type scanner struct {
	r   *bufio.Reader
	off int64
}

func (s *scanner) refuse(why string, err error) error {
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("not an objbench result file (at byte %d): %s: %w", s.off, why, err)
	}
	return fmt.Errorf("not an objbench result file (at byte %d): %s", s.off, why)
}

func (s *scanner) byte() (byte, error) {
	c, err := s.r.ReadByte()
	if err == nil {
		s.off++
	} else if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return c, err
}

// next is the next byte that is not white space.
func (s *scanner) next() (byte, error) {
	for {
		c, err := s.byte()
		if err != nil || (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
			return c, err
		}
	}
}

// int reads a small non-negative integer.
func (s *scanner) int() (int, error) {
	c, err := s.next()
	if err != nil {
		return 0, err
	}
	if c < '0' || c > '9' {
		return 0, errors.New("not a number")
	}
	n := int(c - '0')
	for digits := 1; ; digits++ {
		b, err := s.r.Peek(1)
		if err != nil || b[0] < '0' || b[0] > '9' {
			return n, nil // what follows is the object's to judge
		}
		if digits == 9 {
			return 0, errors.New("too large a number")
		}
		c, _ = s.byte()
		n = 10*n + int(c-'0')
	}
}

// key reads a string whose opening quote was read, and decodes it.
func (s *scanner) key() (string, error) {
	raw := []byte{'"'}
	for {
		c, err := s.byte()
		if err != nil {
			return "", err
		}
		raw = append(raw, c)
		if len(raw) > 2*maxKeyLen {
			return "", errors.New("longer than any result's")
		}
		switch c {
		case '\\':
			c, err = s.byte()
			if err != nil {
				return "", err
			}
			raw = append(raw, c)
		case '"':
			var k string
			err := json.Unmarshal(raw, &k)
			return k, err
		}
	}
}

// skipValue reads past one value, nested ones included.
func (s *scanner) skipValue() error {
	depth := 0
	for {
		c, err := s.next()
		if err != nil {
			return err
		}
		switch c {
		case '"':
			if err := s.skipString(); err != nil {
				return err
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case ':', ',': // between a nested object's or array's parts
		default: // a number or a literal: up to its delimiter
			for {
				c, err := s.r.Peek(1)
				if err != nil || strings.IndexByte(",}] \t\r\n", c[0]) >= 0 {
					break
				}
				_, _ = s.byte()
			}
		}
		if depth <= 0 {
			if depth < 0 {
				return errors.New("a closing bracket without its opening one")
			}
			return nil
		}
	}
}

// skipString reads past a string whose opening quote was read, a buffer
// at a time (a stream's packed seconds are megabytes of one string).
func (s *scanner) skipString() error {
	odd := false // the text so far ends in an odd run of backslashes
	for {
		chunk, err := s.r.ReadSlice('"')
		s.off += int64(len(chunk))
		if err != nil && err != bufio.ErrBufferFull {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
		body := chunk
		if err == nil {
			body = chunk[:len(chunk)-1] // the quote
		}
		n := 0
		for n < len(body) && body[len(body)-1-n] == '\\' {
			n++
		}
		if n < len(body) {
			odd = n%2 == 1
		} else {
			odd = odd != (n%2 == 1)
		}
		if err == nil && !odd {
			return nil
		}
		if err == nil { // an escaped quote: part of the string
			odd = false
		}
	}
}
