package s3

import (
	"context"
	"net"
)

// RedirectDials makes s dial addr whatever host a request names, so tests
// can use virtual-host names that do not resolve.
func RedirectDials(s *Store, addr string) {
	dial := s.transport.DialContext
	s.transport.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return dial(ctx, network, addr)
	}
}
