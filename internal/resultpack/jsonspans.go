package resultpack

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	asmbase64 "github.com/segmentio/asm/base64"
)

// A version-5 file holds each stream's packed seconds as one base64
// string (steps[].streams[].seconds_packed) of megabytes. encoding/json
// scans a string byte by byte (about 100 MB/s here), so Decode cuts
// these strings out first, leaving "#k" (the k-th string) in their place,
// and Encode writes them around the document it marshalled with "#k"
// placeholders. Finding them needs no JSON parser of its own: a walk
// that tracks only nesting and keys, jumping over strings with
// bytes.IndexByte. It does not validate (encoding/json reads what is
// left); a seconds_packed it misses (a key spelled with escapes) holds
// its base64 itself, which Decode reads as well.

// Key is the JSON key of a stream's packed seconds.
const Key = "seconds_packed"

type jsonLevel struct {
	obj bool
	key []byte
}

// Spans are where the string values at steps[].streams[].seconds_packed
// lie in doc, quotes included, in document order.
func Spans(doc []byte) [][2]int {
	if !bytes.Contains(doc, []byte(`"`+Key+`"`)) {
		return nil
	}
	var spans [][2]int
	var stack []jsonLevel
	expectKey := false
	for i := 0; i < len(doc); {
		switch doc[i] {
		case '{', '[':
			stack = append(stack, jsonLevel{obj: doc[i] == '{'})
			expectKey = doc[i] == '{'
		case '}', ']':
			if len(stack) <= 1 {
				return spans // the end of the document's value
			}
			stack = stack[:len(stack)-1]
			expectKey = false
		case ',':
			expectKey = len(stack) > 0 && stack[len(stack)-1].obj
		case ':':
			expectKey = false
		case '"':
			end := stringEnd(doc, i)
			if end < 0 {
				return spans
			}
			switch {
			case expectKey && len(stack) > 0:
				stack[len(stack)-1].key = doc[i+1 : end-1]
				expectKey = false
			case atPackedPath(stack):
				spans = append(spans, [2]int{i, end})
			}
			i = end
			continue
		}
		i++
	}
	return spans
}

// stringEnd is the index past the closing quote of the string that
// opens at doc[i], -1 if it does not close.
func stringEnd(doc []byte, i int) int {
	for j := i + 1; ; {
		k := bytes.IndexByte(doc[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		slashes := 0
		for doc[j-1-slashes] == '\\' {
			slashes++
		}
		if slashes%2 == 0 {
			return j + 1
		}
		j++
	}
}

func atPackedPath(s []jsonLevel) bool {
	return len(s) == 5 && s[0].obj && string(s[0].key) == "steps" && !s[1].obj && s[2].obj &&
		string(s[2].key) == "streams" && !s[3].obj && s[4].obj && string(s[4].key) == Key
}

// Cut is doc with each packed string replaced by "#k", the strings'
// base64 text (views into doc), and where each text begins in doc.
func Cut(doc []byte) ([]byte, [][]byte, []int) {
	spans := Spans(doc)
	if len(spans) == 0 {
		return doc, nil, nil
	}
	meta := make([]byte, 0, len(doc)-totalLen(spans)+8*len(spans))
	texts := make([][]byte, len(spans))
	offs := make([]int, len(spans))
	last := 0
	for k, sp := range spans {
		meta = append(meta, doc[last:sp[0]]...)
		meta = append(meta, `"#`...)
		meta = strconv.AppendInt(meta, int64(k), 10)
		meta = append(meta, '"')
		texts[k], offs[k] = doc[sp[0]+1:sp[1]-1], sp[0]+1
		last = sp[1]
	}
	return append(meta, doc[last:]...), texts, offs
}

func totalLen(spans [][2]int) int {
	n := 0
	for _, sp := range spans {
		n += sp[1] - sp[0]
	}
	return n
}

// Text is the base64 text a stream's seconds_packed field refers to:
// "#k", the k-th string Cut cut (and k), or the field itself (k -1).
func Text(field string, texts [][]byte) ([]byte, int, error) {
	if ref, ok := strings.CutPrefix(field, "#"); ok {
		k, err := strconv.Atoi(ref)
		if err != nil || k < 0 || k >= len(texts) {
			return nil, 0, fmt.Errorf("%w: %s refers to nothing", errPackedSeconds, Key)
		}
		return texts[k], k, nil
	}
	return []byte(field), -1, nil
}

// DecodeBase64 is text decoded, into buf when it has room. segmentio/asm
// decodes with AVX2 where the CPU has it: 15 times encoding/base64's
// speed on a worker file's seconds (a tenth of a 100-worker merge's CPU
// before).
func DecodeBase64(text, buf []byte) ([]byte, error) {
	n := asmbase64.StdEncoding.DecodedLen(len(text))
	if cap(buf) < n {
		buf = make([]byte, n, n+n/8) // the next text may be a little longer
	}
	n, err := asmbase64.StdEncoding.Decode(buf[:n], text)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errPackedSeconds, err)
	}
	return buf[:n], nil
}

// EncodeBase64 writes b's base64 to w (a bufio.Writer, whose error is
// its Flush's) in pieces, through text (reused; returned), encoded by
// segmentio/asm (BenchmarkEncodeBase64).
func EncodeBase64(w io.Writer, b, text []byte) []byte {
	const piece = 3 << 14 // a multiple of 3: no padding but at the end
	for len(b) > 0 {
		n := min(len(b), piece)
		text = slices.Grow(text[:0], asmbase64.StdEncoding.EncodedLen(n))[:asmbase64.StdEncoding.EncodedLen(n)]
		asmbase64.StdEncoding.Encode(text, b[:n])
		_, _ = w.Write(text)
		b = b[n:]
	}
	return text
}
