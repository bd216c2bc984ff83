package s3

import "net"

// RedirectDials makes s dial addr whatever host a request names, so tests
// can use virtual-host names that do not resolve.
func RedirectDials(s *Store, addr string) { dialerOf(s).redirect = addr }

// SetResolver makes s resolve host names with r.
func SetResolver(s *Store, r *net.Resolver) { dialerOf(s).net.Resolver = r }

func dialerOf(s *Store) *connDialer {
	switch t := s.transport.(type) {
	case *directTransport:
		return t.dialer
	case *stdTransport:
		return t.dialer
	}
	panic("unknown transport")
}
