package transfer

import (
	"sync/atomic"

	"github.com/objbench/objbench/storage"
)

// Limits of S3 multipart uploads.
const (
	MinPartSize = 5 << 20
	MaxParts    = 10_000
)

// Options tune a Run. Zero values pick automatic defaults (see Resolve).
type Options struct {
	// PartSize is the size of each part (multipart upload, ranged GET). An
	// object no larger than one part moves in one request.
	PartSize int64
	// PartConcurrency is how many parts of one object are in flight.
	PartConcurrency int
	// Workers is how many objects are in flight.
	Workers int
	// Retries is how many times a failed request is tried again (with
	// jittered backoff, bounded by the context; see storage/retry); < 0
	// means none. Default 3.
	Retries int
	// Force lets a download replace existing local files.
	Force bool
	// Progress, if set, is updated as bytes and objects finish.
	Progress *Counter
	// Checksum, with ChecksumTrailer, is what uploads (and each part)
	// carry for the target to verify, as --checksum says ("": none).
	Checksum        storage.Checksum
	ChecksumTrailer bool
	// TempDir is where an upload keeps what it wrote (its Result's
	// Written) and Verify and WriteManifest their work files, each in a
	// directory of its own removed when done ("": the system's temporary
	// directory).
	TempDir string
	// spillRun is how much of Written is held in memory before a sorted
	// run goes to disk (0: spill.DefaultRunBytes); tests make it small.
	spillRun int
}

// Counter is progress, safe to read while a Run goes on.
type Counter struct {
	Objects atomic.Int64
	Bytes   atomic.Int64
}

// AutoPartSize is the default part size for objects up to size bytes: 8 MiB
// below 1 GiB, 16 MiB above, grown (in whole MiB) so no object needs more
// than MaxParts parts.
func AutoPartSize(size int64) int64 {
	part := int64(8 << 20)
	if size >= 1<<30 {
		part = 16 << 20
	}
	if need := (size + MaxParts - 1) / MaxParts; need > part {
		part = (need + 1<<20 - 1) &^ (1<<20 - 1)
	}
	return part
}

// Resolve fills the zero fields of o for plan p: the part size from the
// largest object; 4 parts in flight when objects span several parts (1
// otherwise); workers so that about 16 requests are in flight, never more
// than there are objects.
func (o Options) Resolve(p *Plan) Options {
	biggest := p.MaxSize()
	if o.PartSize <= 0 {
		o.PartSize = AutoPartSize(biggest)
	}
	if o.PartConcurrency <= 0 {
		o.PartConcurrency = 1
		if biggest > o.PartSize {
			o.PartConcurrency = 4
		}
	}
	if o.Workers <= 0 {
		// Parts in flight per object are at most its parts.
		o.Workers = max(1, 16/min(o.PartConcurrency, parts(biggest, o.PartSize)))
	}
	o.Workers = int(max(1, min(int64(o.Workers), p.Objects())))
	if o.Retries == 0 {
		o.Retries = 3
	}
	return o
}

// parts is how many parts an object of size bytes is moved in.
func parts(size, partSize int64) int {
	if size <= partSize {
		return 1
	}
	return int((size + partSize - 1) / partSize)
}
