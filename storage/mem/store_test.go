package mem_test

import (
	"bytes"
	"testing"

	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/mem"
	"github.com/objbench/objbench/storage/storagetest"
)

func TestConformance(t *testing.T) {
	storagetest.Run(t, func(*testing.T) storage.Store { return mem.New() })
}

// A store shared by every subtest is how a real bucket is used; the suite's
// prefixes must keep the subtests apart.
func TestConformanceShared(t *testing.T) {
	s := mem.New()
	storagetest.Run(t, func(*testing.T) storage.Store { return s })
}

// Put must copy: load generators reuse one payload buffer for every op.
func TestPutCopiesBody(t *testing.T) {
	s := mem.New()
	buf := []byte("original")
	if _, err := s.Put(t.Context(), "k", bytes.NewReader(buf), int64(len(buf)), storage.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	copy(buf, "XXXXXXXX")
	var got bytes.Buffer
	if _, err := s.Get(t.Context(), "k", storage.GetOptions{}, &got); err != nil {
		t.Fatal(err)
	}
	if got.String() != "original" {
		t.Fatalf("got %q after the caller reused its buffer, want %q", got.String(), "original")
	}
}
