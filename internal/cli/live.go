package cli

import (
	"net"
	"strconv"
)

// listenLive listens on --listen's address before any work starts, so a
// bad address stops the run at once (exit code 2); nil without --listen.
func listenLive(addr string) (net.Listener, error) {
	if addr == "" {
		return nil, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, inputf("--listen %s: %v", addr, err)
	}
	return ln, nil
}

func closeListener(ln net.Listener) {
	if ln != nil {
		_ = ln.Close()
	}
}

// browsable is the address to type into a browser: an unspecified host
// (listening on every interface) is reachable as localhost.
func browsable(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok || !tcp.IP.IsUnspecified() {
		return a.String()
	}
	return net.JoinHostPort("localhost", strconv.Itoa(tcp.Port))
}
