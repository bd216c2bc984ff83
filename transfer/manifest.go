package transfer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/objbench/objbench/internal/spill"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/retry"
)

// ManifestSuffix ends the folder beside an upload's prefix that holds its
// manifests: uploads to mail/ are recorded under mail.objbench-manifest/,
// beside the objects, not among them (a listing of mail/ never sees it).
const ManifestSuffix = ".objbench-manifest/"

// ManifestDir is the folder of the manifests of uploads to prefix.
func ManifestDir(prefix string) string {
	p := strings.TrimSuffix(prefix, "/")
	if p == "" {
		return strings.TrimPrefix(ManifestSuffix, ".") // the bucket's root: objbench-manifest/
	}
	return p + ManifestSuffix
}

// manifestHead is a manifest's first line; each key it records follows,
// one JSON object a line.
type manifestHead struct {
	Manifest int       `json:"objbench_manifest"`
	RunID    string    `json:"run_id"`
	Prefix   string    `json:"prefix"`
	Written  time.Time `json:"written"`
	Objects  int64     `json:"objects"`
	Bytes    int64     `json:"bytes"`
}

type manifestKey struct {
	Key  string `json:"k"`
	Size int64  `json:"s"`
	ETag string `json:"e,omitempty"`
}

// WriteManifest records in st, beside the plan's prefix, the keys that
// res says this upload wrote (with their sizes and ETags, in key order),
// under ManifestDir(p.Prefix)+runID+".jsonl": what Clean may later delete.
// It returns the manifest's key; a plan that wrote nothing gets none. The
// body is written to a temporary file first (its length is then known and
// a retried PUT reads it again), never held in memory.
func WriteManifest(ctx context.Context, st storage.Store, p *Plan, res *Result, runID string) (string, error) {
	if p.Download || res == nil || res.Written == nil {
		return "", errors.New("manifest: not an upload's result")
	}
	w := res.Written
	f, err := os.CreateTemp(w.parent, "objbench-manifest-*.jsonl")
	if err != nil {
		return "", fmt.Errorf("manifest: %w", err)
	}
	defer func() { _ = f.Close(); _ = os.Remove(f.Name()) }()
	head := manifestHead{Manifest: 1, RunID: runID, Prefix: p.Prefix, Written: time.Now().UTC()}
	bw := bufio.NewWriterSize(f, 64<<10)
	enc := json.NewEncoder(bw)
	err = w.each(func(r spill.Record) error {
		head.Objects++
		head.Bytes += r.Size
		return enc.Encode(manifestKey{Key: r.Key, Size: r.Size, ETag: r.ETag})
	})
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return "", fmt.Errorf("manifest: %w", err)
	}
	if head.Objects == 0 {
		return "", nil
	}
	keys, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return "", fmt.Errorf("manifest: %w", err)
	}
	first, err := json.Marshal(head)
	if err != nil {
		return "", err
	}
	first = append(first, '\n')
	key := ManifestDir(p.Prefix) + runID + ".jsonl"
	err = retry.Do(ctx, retry.Around(6), func() error {
		body := io.MultiReader(bytes.NewReader(first), io.NewSectionReader(f, 0, keys))
		_, err := st.Put(ctx, key, body, int64(len(first))+keys, storage.PutOptions{})
		return err
	})
	if err != nil {
		return "", fmt.Errorf("write manifest %s: %w", key, err)
	}
	return key, nil
}

// readManifest streams the manifest at key to fn, one recorded key at a
// time, refusing one that is not for prefix, records a key outside it, or
// was cut short (fewer keys than its head says).
func readManifest(ctx context.Context, st storage.Store, key, prefix string, fn func(manifestKey) error) (manifestHead, error) {
	pr, pw := io.Pipe()
	got := make(chan error, 1)
	go func() {
		_, err := st.Get(ctx, key, storage.GetOptions{}, pw)
		pw.CloseWithError(err)
		got <- err
	}()
	head, err := decodeManifest(bufio.NewReaderSize(pr, 64<<10), key, prefix, fn)
	pr.CloseWithError(errors.New("manifest read no further")) // the GET ends if it has not
	if gerr := <-got; gerr != nil && err == nil {
		err = fmt.Errorf("read manifest %s: %w", key, gerr)
	}
	return head, err
}

func decodeManifest(r io.Reader, key, prefix string, fn func(manifestKey) error) (manifestHead, error) {
	dec := json.NewDecoder(r)
	var head manifestHead
	if err := dec.Decode(&head); err != nil || head.Manifest != 1 {
		return head, fmt.Errorf("%s is not an objbench manifest (%v)", key, err)
	}
	if head.Prefix != prefix {
		return head, fmt.Errorf("manifest %s is of uploads to %q, not %q", key, head.Prefix, prefix)
	}
	var n int64
	for {
		var k manifestKey
		err := dec.Decode(&k)
		if err == io.EOF {
			break
		}
		if err != nil {
			return head, fmt.Errorf("manifest %s: %w", key, err)
		}
		if !under(k.Key, prefix) {
			return head, fmt.Errorf("%w: manifest %s records %q, outside %q", storage.ErrListingFault, key, k.Key, prefix)
		}
		n++
		if err := fn(k); err != nil {
			return head, err
		}
	}
	if n != head.Objects {
		return head, fmt.Errorf("manifest %s records %d keys, its head says %d: cut short?", key, n, head.Objects)
	}
	return head, nil
}

// under says whether key lies under prefix as an upload to it writes:
// the exact key, or below it as a directory.
func under(key, prefix string) bool {
	return key == prefix || strings.HasPrefix(key, dirPrefix(prefix))
}
