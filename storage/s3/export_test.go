package s3

import (
	"context"
	"net"
	"net/http"
)

// RedirectDials makes s dial addr whatever host a request names, so tests
// can use virtual-host names that do not resolve.
func RedirectDials(s *Store, addr string) {
	switch t := s.transport.(type) {
	case *directTransport:
		t.addr = addr
	default:
		tr := t.(*http.Transport)
		dial := tr.DialContext
		tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
			return dial(ctx, network, addr)
		}
	}
}
