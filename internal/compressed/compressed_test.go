package compressed_test

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/compressed"
)

func TestRoundTripEveryKind(t *testing.T) {
	text := strings.Repeat("one line of an op log\n", 1000)
	for _, k := range []compressed.Kind{compressed.None, compressed.Gzip, compressed.Zstd} {
		t.Run(k.String(), func(t *testing.T) {
			var buf bytes.Buffer
			w, err := compressed.NewWriter(&buf, k)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.WriteString(w, text); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if k != compressed.None && buf.Len() >= len(text)/4 {
				t.Errorf("%s: %d bytes of %d: not compressed", k, buf.Len(), len(text))
			}
			r, got, err := compressed.NewReader(&buf)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if got != k {
				t.Errorf("detected %s, wrote %s", got, k)
			}
			back, err := io.ReadAll(r)
			if err != nil || string(back) != text {
				t.Fatalf("read back %d bytes (err %v), want %d", len(back), err, len(text))
			}
		})
	}
}

func TestForName(t *testing.T) {
	for name, want := range map[string]compressed.Kind{
		"ops.jsonl": compressed.None, "ops.jsonl.gz": compressed.Gzip, "ops.zst": compressed.Zstd, "gz": compressed.None,
	} {
		if got := compressed.ForName(name); got != want {
			t.Errorf("ForName(%q) = %s, want %s", name, got, want)
		}
	}
}

func TestTruncatedStreamIsAnError(t *testing.T) {
	for _, k := range []compressed.Kind{compressed.Gzip, compressed.Zstd} {
		var buf bytes.Buffer
		w, _ := compressed.NewWriter(&buf, k)
		io.WriteString(w, strings.Repeat("x", 100000))
		w.Close()
		r, _, err := compressed.NewReader(bytes.NewReader(buf.Bytes()[:buf.Len()/2]))
		if err != nil {
			continue // refused at the header: also an error
		}
		if _, err := io.ReadAll(r); err == nil {
			t.Errorf("%s: half a stream read without error", k)
		}
	}
}
