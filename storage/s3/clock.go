package s3

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/objbench/objbench/storage"
)

var _ storage.Clock = (*Store)(nil)

// ServerTime asks the store for its time: a HEAD on the bucket, read from
// the response's Date header (whole seconds), with the local instants the
// request was sent and its answer received.
func (s *Store) ServerTime(ctx context.Context) (sent, received, server time.Time, err error) {
	req := s.newRequest(ctx, http.MethodHead, "", "")
	sent = time.Now()
	resp, err := s.do(req, nil)
	received = time.Now()
	if err != nil {
		return sent, received, time.Time{}, opError("server-time", s.bucket, err)
	}
	date := resp.Header.Get("Date")
	s.release(resp)
	if server, err = http.ParseTime(date); err != nil {
		return sent, received, time.Time{}, opError("server-time", s.bucket, errors.New("no Date header in the store's answer"))
	}
	return sent, received, server, nil
}
