package replay

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/objbench/objbench/workload"
)

// MaxKeyLen is S3's limit on a key, in bytes.
const MaxKeyLen = 1024

// KeyMapOptions say how a trace's keys become keys of the run.
type KeyMapOptions struct {
	// KeepBucket makes the source bucket the first segment, so the keys
	// of several buckets stay apart.
	KeepBucket bool
	// Anonymize replaces every path segment with a keyed hash of it
	// (HMAC-SHA256 with Secret, 16 hex digits): equal segments stay equal,
	// so the tree's shape and the keys' popularity are kept, names are not.
	Anonymize bool
	// Secret keys the hash; at least 16 bytes when Anonymize is set.
	// Without it a name could be found by hashing guesses.
	Secret []byte
	// MaxLen bounds a mapped key, namespace included (0: MaxKeyLen).
	MaxLen int
}

// KeyMap maps a trace's keys into a run's namespace. Every key it returns
// starts with the namespace, is valid UTF-8, has no empty, "." or ".."
// segment, no control character or backslash, and is at most MaxLen
// bytes; distinct source keys get distinct keys.
type KeyMap struct {
	ns string
	o  KeyMapOptions
}

// hashLen is the hex digits of a hashed segment or a truncated key's tail.
const hashLen = 16

// NewKeyMap maps keys below namespace (e.g. "objbench/RUN-ID/replay/"; a
// missing final "/" is added).
func NewKeyMap(namespace string, o KeyMapOptions) (*KeyMap, error) {
	if o.MaxLen <= 0 {
		o.MaxLen = MaxKeyLen
	}
	if namespace != "" && !strings.HasSuffix(namespace, "/") {
		namespace += "/"
	}
	if err := workload.CheckPrefix(namespace); err != nil {
		return nil, fmt.Errorf("namespace %q: %w", namespace, err)
	}
	if !utf8.ValidString(namespace) || strings.ContainsFunc(namespace, unsafeRune) {
		return nil, fmt.Errorf("namespace %q: control characters and backslashes are not allowed in keys", namespace)
	}
	if len(namespace)+2*hashLen+4 > o.MaxLen {
		return nil, fmt.Errorf("namespace %q leaves no room for keys below %d bytes", namespace, o.MaxLen)
	}
	if o.Anonymize && len(o.Secret) < 16 {
		return nil, errors.New("anonymizing keys needs a secret of at least 16 bytes")
	}
	return &KeyMap{ns: namespace, o: o}, nil
}

// Key is the run's key for key of bucket.
func (m *KeyMap) Key(bucket, key string) string {
	var b strings.Builder
	b.Grow(len(m.ns) + len(bucket) + len(key) + 8)
	b.WriteString(m.ns)
	if m.o.KeepBucket {
		m.segment(&b, bucket)
		b.WriteByte('/')
	}
	for i, seg := range strings.Split(key, "/") {
		if i > 0 {
			b.WriteByte('/')
		}
		m.segment(&b, seg)
	}
	out := b.String()
	if len(out) <= m.o.MaxLen {
		return out
	}
	return m.truncate(out, bucket, key)
}

// segment writes one path segment: hashed, or escaped so that the mapping
// is reversible ('%' itself is escaped, so "%" alone and "%2E" can only
// come from an empty segment and a dot).
func (m *KeyMap) segment(b *strings.Builder, seg string) {
	if m.o.Anonymize {
		b.WriteString(m.hash(seg))
		return
	}
	switch seg {
	case "":
		b.WriteByte('%')
		return
	case ".":
		b.WriteString("%2E")
		return
	case "..":
		b.WriteString("%2E%2E")
		return
	}
	for i := 0; i < len(seg); {
		r, size := utf8.DecodeRuneInString(seg[i:])
		if (r == utf8.RuneError && size == 1) || r == '%' || r == '/' || unsafeRune(r) { // '/': a bucket is one segment
			for _, c := range []byte(seg[i : i+size]) {
				fmt.Fprintf(b, "%%%02X", c)
			}
		} else {
			b.WriteString(seg[i : i+size])
		}
		i += size
	}
}

// unsafeRune: characters kept out of keys (control characters, and the
// backslash a Windows file store would take for a separator).
func unsafeRune(r rune) bool { return r < 0x20 || r == 0x7f || r == '\\' || (r >= 0x80 && r < 0xa0) }

func (m *KeyMap) hash(s string) string {
	h := hmac.New(sha256.New, m.o.Secret)
	h.Write([]byte(s))
	return hex.EncodeToString(h.Sum(nil))[:hashLen]
}

// truncate cuts a mapped key that is too long and ends it with "%~" and a
// hash of the whole source key ("%~" never comes out of escaping), cutting
// neither an escape nor a character in two.
func (m *KeyMap) truncate(out, bucket, key string) string {
	cut := m.o.MaxLen - 2 - hashLen
	for cut > len(m.ns) && !utf8.RuneStart(out[cut]) {
		cut--
	}
	for _, back := range []int{1, 2} { // "%4" or "%" just before the cut
		if cut-back >= len(m.ns) && out[cut-back] == '%' {
			cut -= back
			break
		}
	}
	sum := sha256.Sum256([]byte(bucket + "\x00" + key))
	tail := hex.EncodeToString(sum[:])[:hashLen]
	if m.o.Anonymize {
		tail = m.hash(bucket + "\x00" + key)
	}
	return out[:cut] + "%~" + tail
}
