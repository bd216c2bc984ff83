package workload

import (
	"fmt"
	"strings"
)

// FsyncMode is when file targets flush writes to stable storage.
type FsyncMode string

const (
	FsyncNone    FsyncMode = "none"     // never: page-cache speed
	FsyncPerFile FsyncMode = "per-file" // each PUT fsyncs its file before returning
	FsyncAtEnd   FsyncMode = "at-end"   // one syncfs when the step's ops are done, timed with the step
)

// PerFile reports whether each file is flushed as it is written.
func (m FsyncMode) PerFile() bool { return m == FsyncPerFile }

// ParseFsync reads none, per-file or at-end (true and false mean per-file
// and none, as a plain fsync switch did).
func ParseFsync(s string) (FsyncMode, error) {
	switch m := FsyncMode(strings.ToLower(strings.TrimSpace(s))); m {
	case FsyncNone, FsyncPerFile, FsyncAtEnd:
		return m, nil
	}
	if b, err := parseBool(s); err == nil {
		if b {
			return FsyncPerFile, nil
		}
		return FsyncNone, nil
	}
	return "", fmt.Errorf("%q: want none, per-file or at-end", s)
}

// FsyncOf is the mode a stream's fields say.
func FsyncOf(s Stream) FsyncMode {
	switch {
	case s.SyncAtEnd:
		return FsyncAtEnd
	case s.Fsync:
		return FsyncPerFile
	}
	return FsyncNone
}
