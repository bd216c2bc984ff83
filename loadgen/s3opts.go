package loadgen

import (
	"encoding/base64"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/workload"
)

// s3work is a stream's S3 request options resolved once per step: the
// options every upload and read carries, copied per op (no allocation).
type s3work struct {
	put       storage.PutOptions // Trace set per op
	get       storage.GetOptions // Trace, Range, conditions set per op
	enc       *storage.Encryption
	condGet   bool
	presign   bool
	versioned bool
	batch     int
}

// resolveS3 turns a stream's S3 options into request options. An SSE-C
// key is read from its file here; errors name the file, never the key.
func resolveS3(o *workload.S3Options) (s3work, error) {
	w := s3work{batch: storage.MaxBatchDelete}
	if o == nil {
		return w, nil
	}
	c, err := storage.ParseChecksum(o.Checksum)
	if err != nil {
		return w, err
	}
	w.put = storage.PutOptions{Checksum: c, ChecksumTrailer: o.ChecksumTrailer, IfNoneMatch: o.IfNoneMatch,
		Tagging: o.Tagging(), Metadata: o.Metadata, StorageClass: o.StorageClass}
	mode, kms, keyFile, err := o.SSEMode()
	if err != nil {
		return w, err
	}
	if mode != "" {
		w.enc = &storage.Encryption{Mode: mode, KMSKeyID: kms}
		if mode == storage.SSEC {
			if w.enc.CustomerKey, err = ReadSSECKey(keyFile); err != nil {
				return w, err
			}
		}
	}
	w.put.Encryption = w.enc
	w.get = storage.GetOptions{VerifyChecksum: o.VerifyChecksum}
	if w.enc != nil && w.enc.Mode == storage.SSEC {
		w.get.Encryption = w.enc // reads of SSE-C objects carry the key
	}
	w.condGet, w.presign, w.versioned = o.ConditionalGet, o.Presign, o.Versioned
	if o.BatchSize > 0 {
		w.batch = o.BatchSize
	}
	return w, nil
}

// ReadSSECKey reads an SSE-C key file: 32 bytes, raw or base64 (a
// trailing newline allowed). The error names the file, never its content.
func ReadSSECKey(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("SSE-C key file: %w", err)
	}
	if len(b) == 32 {
		return b, nil
	}
	if k, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(b))); err == nil && len(k) == 32 {
		return k, nil
	}
	return nil, fmt.Errorf("SSE-C key file %s: want a 256-bit key, 32 bytes raw or in base64", path)
}

// objectBook remembers, for keys this run wrote, the ETag and version id
// the write returned: conditional GETs and compare-and-swap PUTs send the
// ETag, versioned reads and deletes the version. Only streams that need
// it fill it, so plain runs hold nothing.
type objectBook struct {
	wanted bool // set before the run: some op needs it
	mu     sync.Mutex
	tags   map[string]storage.ObjectInfo // ETag and VersionID only
}

func (b *objectBook) remember(key string, info storage.ObjectInfo) {
	b.mu.Lock()
	if b.tags == nil {
		b.tags = map[string]storage.ObjectInfo{}
	}
	b.tags[key] = storage.ObjectInfo{ETag: info.ETag, VersionID: info.VersionID}
	b.mu.Unlock()
}

func (b *objectBook) lookup(key string) storage.ObjectInfo {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.tags[key]
}

func (b *objectBook) forget(key string) {
	b.mu.Lock()
	delete(b.tags, key)
	b.mu.Unlock()
}

// wantsBook reports whether some stream of sp sends ETags or versions
// (conditional GETs, compare and swap, a versioned bucket).
func wantsBook(sp workload.Spec) bool {
	for _, st := range sp.Stages {
		for _, s := range st.Streams {
			if o := s.S3; o != nil && (o.ConditionalGet || o.Versioned) {
				return true
			}
			for _, m := range s.Mix {
				if op, _ := workload.CanonicalOp(m.Op); op == workload.OpCAS {
					return true
				}
			}
		}
	}
	return false
}
