package transfer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/objbench/objbench/storage"
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

// WriteManifest records in st, beside the plan's prefix, the keys of p
// that res says this upload wrote (with their sizes and ETags), under
// ManifestDir(p.Prefix)+runID+".jsonl": what Clean may later delete.
// It returns the manifest's key; a plan that wrote nothing gets none.
func WriteManifest(ctx context.Context, st storage.Store, p *Plan, res *Result, runID string) (string, error) {
	if p.Download || res == nil || len(res.Written) != len(p.Items) {
		return "", errors.New("manifest: not an upload's result")
	}
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	head := manifestHead{Manifest: 1, RunID: runID, Prefix: p.Prefix, Written: time.Now().UTC()}
	var keys bytes.Buffer
	kenc := json.NewEncoder(&keys)
	for i, it := range p.Items {
		if !res.Written[i] {
			continue
		}
		head.Objects++
		head.Bytes += it.Size
		if err := kenc.Encode(manifestKey{Key: it.Key, Size: it.Size, ETag: res.ETags[i]}); err != nil {
			return "", err
		}
	}
	if head.Objects == 0 {
		return "", nil
	}
	if err := enc.Encode(head); err != nil {
		return "", err
	}
	body.Write(keys.Bytes())
	key := ManifestDir(p.Prefix) + runID + ".jsonl"
	err := storage.RetryTransient(ctx, 6, func() error {
		_, err := st.Put(ctx, key, bytes.NewReader(body.Bytes()), int64(body.Len()), storage.PutOptions{})
		return err
	})
	if err != nil {
		return "", fmt.Errorf("write manifest %s: %w", key, err)
	}
	return key, nil
}

// readManifest reads the manifest at key, refusing one that is not for
// prefix or records a key outside it.
func readManifest(ctx context.Context, st storage.Store, key, prefix string) (manifestHead, []manifestKey, error) {
	var buf bytes.Buffer
	if _, err := st.Get(ctx, key, storage.GetOptions{}, &buf); err != nil {
		return manifestHead{}, nil, fmt.Errorf("read manifest %s: %w", key, err)
	}
	r := bufio.NewReader(&buf)
	dec := json.NewDecoder(r)
	var head manifestHead
	if err := dec.Decode(&head); err != nil || head.Manifest != 1 {
		return head, nil, fmt.Errorf("%s is not an objbench manifest (%v)", key, err)
	}
	if head.Prefix != prefix {
		return head, nil, fmt.Errorf("manifest %s is of uploads to %q, not %q", key, head.Prefix, prefix)
	}
	var keys []manifestKey
	for {
		var k manifestKey
		err := dec.Decode(&k)
		if err == io.EOF {
			break
		}
		if err != nil {
			return head, nil, fmt.Errorf("manifest %s: %w", key, err)
		}
		if !under(k.Key, prefix) {
			return head, nil, fmt.Errorf("%w: manifest %s records %q, outside %q", storage.ErrListingFault, key, k.Key, prefix)
		}
		keys = append(keys, k)
	}
	if int64(len(keys)) != head.Objects {
		return head, nil, fmt.Errorf("manifest %s records %d keys, its head says %d: cut short?", key, len(keys), head.Objects)
	}
	return head, keys, nil
}

// under says whether key lies under prefix as an upload to it writes:
// the exact key, or below it as a directory.
func under(key, prefix string) bool {
	return key == prefix || strings.HasPrefix(key, dirPrefix(prefix))
}
