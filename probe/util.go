package probe

import (
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"strings"

	"github.com/objbench/objbench/storage"
)

// payload is n deterministic, incompressible bytes.
func payload(n int, seed uint64) []byte {
	b := make([]byte, n)
	var s [32]byte
	s[0] = byte(seed)
	_, _ = mrand.NewChaCha8(s).Read(b) // ChaCha8.Read never fails
	return b
}

// rootStatus is the store's answer in err: "http 400 EntityTooSmall"
// without the message, or the error itself.
func rootStatus(err error) string {
	var se *storage.StatusError
	if errors.As(err, &se) {
		if se.Code != "" {
			return fmt.Sprintf("http %d %s", se.StatusCode, se.Code)
		}
		return fmt.Sprintf("http %d", se.StatusCode)
	}
	return err.Error()
}

// refusal is a finding for an op the store did not do: No with its answer.
func refusal(err error) string {
	if errors.Is(err, storage.ErrNotImplemented) {
		var se *storage.StatusError
		if errors.As(err, &se) {
			return "not implemented (" + rootStatus(err) + ")"
		}
		var oe *storage.OpError
		if errors.As(err, &oe) {
			err = oe.Err // the key is the probe's own: not worth a line
		}
		return strings.Replace(err.Error(), storage.ErrNotImplemented.Error()+": ", "", 1)
	}
	return "refused: " + rootStatus(err)
}
