package probe

import (
	"encoding/xml"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"strings"

	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// payload is n deterministic, incompressible bytes.
func payload(n int, seed uint64) []byte {
	b := make([]byte, n)
	var s [32]byte
	s[0] = byte(seed)
	_, _ = mrand.NewChaCha8(s).Read(b) // ChaCha8.Read never fails
	return b
}

// replyError is a non-2xx answer to an Exchange as a StatusError, with
// the service's code when its body has one.
func replyError(r s3.Reply) error {
	var doc struct {
		Code    string `xml:"Code"`
		Message string `xml:"Message"`
	}
	_ = xml.Unmarshal(r.Body, &doc) // a body without an error document leaves the code empty
	return &storage.StatusError{StatusCode: r.StatusCode, Code: doc.Code, Message: doc.Message}
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
