package cli

import (
	"github.com/spf13/pflag"

	"github.com/objbench/objbench/workload"
)

// connFlags say how connections to an S3 target are made, to measure
// what setting one up costs.
type connFlags struct {
	keepAlive     bool
	tlsResumption bool
	maxPerHost    int
}

func (c *connFlags) register(f *pflag.FlagSet) {
	f.BoolVar(&c.keepAlive, "keepalive", true, "keep connections for the next request; --keepalive=false opens a new connection per request "+
		"(DNS, connect and TLS every time: the 'where the time goes' table shows their cost)")
	f.IntVar(&c.maxPerHost, "max-conns-per-host", 0, "at most this many connections open to the endpoint; a request finding all busy waits (conn-wait) (0: no cap)")
	f.BoolVar(&c.tlsResumption, "tls-resumption", true, "resume TLS sessions on new connections; --tls-resumption=false makes every handshake a full one")
}

// applyConnections fills the connection flags the user left unset from a
// workload file's storage.
func (t *targetOptions) applyConnections(st *workload.Storage, flags *pflag.FlagSet) {
	if !flags.Changed("keepalive") && st.KeepAlive != nil {
		t.conn.keepAlive = *st.KeepAlive
	}
	if !flags.Changed("max-conns-per-host") && st.MaxConnsPerHost > 0 {
		t.conn.maxPerHost = st.MaxConnsPerHost
	}
	if !flags.Changed("tls-resumption") && st.NoTLSResumption {
		t.conn.tlsResumption = false
	}
	if !flags.Changed("ca-bundle") && st.CABundle != "" {
		t.caBundle = st.CABundle
	}
	if !flags.Changed("insecure") && st.Insecure {
		t.insecure = true
	}
}

// describe says how connections will be made, for a dry run ("" defaults).
func (t *targetOptions) describeConnections() string {
	st := workload.Storage{CABundle: t.caBundle, Insecure: t.insecure, MaxConnsPerHost: t.conn.maxPerHost, NoTLSResumption: !t.conn.tlsResumption}
	if !t.conn.keepAlive {
		off := false
		st.KeepAlive = &off
	}
	return st.Connections() // addressing: the plan's storage line says it
}
