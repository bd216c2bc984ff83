package storage

import (
	"context"
	"time"
)

// RetryTransient calls fn until it succeeds, fails for good (not
// Transient), has been tried tries times or ctx ends, waiting 50 ms
// doubling between tries, and returns fn's last error. It is for the
// requests around a measurement (bucket checks, cleanup's listings and
// deletes), never for measured ops: those count every failure.
func RetryTransient(ctx context.Context, tries int, fn func() error) error {
	wait := 50 * time.Millisecond
	var err error
	for i := range tries {
		if err = fn(); err == nil || !Transient(err) || i == tries-1 {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return err
		}
		wait *= 2
	}
	return err
}
