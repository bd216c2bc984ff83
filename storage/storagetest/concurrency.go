package storagetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/objbench/objbench/storage"
)

func testConcurrent(t *testing.T, f *fixture) {
	const workers, perWorker, size = 8, 8, 16 << 10
	g, ctx := errgroup.WithContext(t.Context())
	for w := range workers {
		g.Go(func() error {
			var buf bytes.Buffer
			for i := range perWorker {
				key := f.key(fmt.Sprintf("w%d/obj%d", w, i))
				data := payload(size, uint64(w*perWorker+i))
				if _, err := f.s.Put(ctx, key, bytes.NewReader(data), size, storage.PutOptions{}); err != nil {
					return fmt.Errorf("put %q: %w", key, err)
				}
				buf.Reset()
				if _, err := f.s.Get(ctx, key, storage.GetOptions{}, &buf); err != nil {
					return fmt.Errorf("get %q: %w", key, err)
				}
				if !bytes.Equal(buf.Bytes(), data) {
					return fmt.Errorf("get %q: contents differ from what was put", key)
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	if got := f.list(f.prefix); len(got) != workers*perWorker {
		t.Errorf("list after concurrent puts: %d objects, want %d", len(got), workers*perWorker)
	}
}

// testCanceled checks that every operation refuses a canceled context with
// an error that says so (errors.Is context.Canceled), and that a canceled
// Put leaves nothing behind.
func testCanceled(t *testing.T, f *fixture) {
	existing := f.key("exists")
	f.put(existing, payload(10, 1))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	fresh := f.key("fresh")
	ops := []struct {
		name string
		op   func() error
	}{
		{"put", func() error {
			_, err := f.s.Put(ctx, fresh, bytes.NewReader(payload(10, 2)), 10, storage.PutOptions{})
			return err
		}},
		{"get", func() error {
			_, err := f.s.Get(ctx, existing, storage.GetOptions{}, io.Discard)
			return err
		}},
		{"stat", func() error { _, err := f.s.Stat(ctx, existing); return err }},
		{"delete", func() error { return f.s.Delete(ctx, existing) }},
		{"list", func() error {
			return f.s.List(ctx, f.prefix, func(storage.ObjectInfo) error { return nil })
		}},
	}
	if mp, ok := f.s.(storage.Multiparter); ok {
		ops = append(ops, struct {
			name string
			op   func() error
		}{"create multipart", func() error { _, err := mp.CreateMultipart(ctx, fresh); return err }})
	}
	for _, o := range ops {
		if err := o.op(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s with canceled context: err %v, want context.Canceled", o.name, err)
		}
	}
	f.wantNotFound(fresh)
	f.stat(existing) // the canceled Delete must not have deleted it
}
