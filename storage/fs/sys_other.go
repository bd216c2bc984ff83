//go:build !linux

package fs

import (
	"errors"
	"runtime"
)

const oDirect = 0

func directSupported() error {
	return errors.New("O_DIRECT is not supported on " + runtime.GOOS + " yet")
}
